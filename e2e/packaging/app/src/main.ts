// A user's Vite app, written against the packed tarballs only (e2e/packaging.e2e.ts copies
// this folder into a project outside the workspace, type-checks it with create-vite's strict
// settings, builds it with Vite and opens the build in Chromium).
import { type ConnectOptions, connect } from '@toolwire/endpoint';
import { lower } from '@toolwire/lowering';
import { install } from '@toolwire/polyfill';

const { toolManager, tools } = install();

await toolManager.register({
  name: 'calendar.weekday',
  naturalLanguageProperties: { description: 'The weekday of a date (0 is Sunday).' },
  inputSchema: {
    type: 'object',
    properties: { at: { webType: 'Date' } },
    required: ['at'],
  },
  execute: (input) => {
    const { at } = input as { at: Date };
    return { isDate: at instanceof Date, weekday: at.getUTCDay() };
  },
});

const options: ConnectOptions = { url: 'ws://127.0.0.1:1/never', guard: 'read-only' };
// @ts-expect-error connect() takes its options: the declarations are real types, not `any`.
const withoutOptions = () => connect();

const out = document.querySelector('#result');
if (out) {
  out.textContent = JSON.stringify({
    called: await tools.callTool(
      'calendar.weekday',
      { at: '2026-12-01T00:00:00Z' },
      { encoding: 'json' },
    ),
    lowered: await lower(new Date(Date.UTC(2026, 11, 1))),
    connect: typeof connect,
    checked: [typeof withoutOptions, options.guard],
  });
}
