// Lands with branch i15-types (issue 15, "Types people expect"): the typed globals from
// `@toolwire/polyfill/global` and defineTool()'s inferred types. e2e/packaging.e2e.ts
// type-checks this file beside app/src when its test is no longer marked fixme; adjust the
// calls below to the API as merged.
import '@toolwire/polyfill/global';
import { defineTool } from '@toolwire/polyfill';

const weekday = defineTool({
  name: 'calendar.weekday',
  description: 'The weekday of a date (0 is Sunday).',
  inputSchema: {
    type: 'object',
    properties: { at: { webType: 'Date' } },
    required: ['at'],
  } as const,
  execute: ({ at }) => ({ weekday: at.getUTCDay() }),
});

await window.toolManager.register(weekday);
await window.tools.callTool('calendar.weekday', { at: '2026-12-01T00:00:00Z' });
void document.modelContext.getTools();

defineTool({
  name: 'calendar.bad',
  description: 'A wrong argument type must fail to compile.',
  inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } as const,
  // @ts-expect-error n is a number, not a string
  execute: ({ n }: { n: string }) => n.length,
});
