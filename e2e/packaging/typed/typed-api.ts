// A user's typed tool against the installed tarballs: the globals typed by
// `@toolwire/polyfill/global`, and defineTool()'s inferred types (a webType included).
// e2e/packaging.e2e.ts type-checks this file beside app/src under create-vite's strict settings.
import '@toolwire/polyfill/global';
import { defineTool } from '@toolwire/polyfill';

const weekday = defineTool({
  name: 'calendar.weekday',
  naturalLanguageProperties: { description: 'The weekday of a date (0 is Sunday).' },
  inputSchema: {
    type: 'object',
    properties: { at: { webType: 'Date' } },
    required: ['at'],
  },
  outputSchema: {
    type: 'object',
    properties: { weekday: { type: 'integer' } },
    required: ['weekday'],
  },
  execute: ({ at }) => ({ weekday: at.getUTCDay() }), // at: Date
});

await window.toolManager.register(weekday);
await window.tools.callTool('calendar.weekday', { at: '2026-12-01T00:00:00Z' });
void document.modelContext.getTools();

defineTool({
  name: 'calendar.bad',
  inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  // @ts-expect-error n is a number, not a string
  execute: ({ n }: { n: string }) => n.length,
});

defineTool({
  name: 'calendar.bad_result',
  outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  // @ts-expect-error the result must be { n: number }
  execute: () => ({ n: 'one' }),
});
