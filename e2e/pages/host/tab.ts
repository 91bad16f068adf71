// One tab of several served to one toolwire host (e2e/multi-tab.e2e.ts). Every tab registers
// the same `demo.whoami`, which answers the tab it runs in. The host's URL comes in the fragment
// as `#toolwire=<encoded ws URL>`; the query may set `title=` (the document's title) and
// `reportTitle=` (the title connect() reports instead, as ConnectOptions.page: what an extension
// connecting on a tab's behalf does).
import { connect } from '../../../packages/endpoint/src/index.js';
import { install } from '../../../packages/polyfill/src/index.js';

const params = new URL(location.href).searchParams;
const fragment = new URLSearchParams(location.hash.slice(1));
const title = params.get('title');
if (title !== null) document.title = title;
const { toolManager } = install();
const w = window as any;
w.calls = 0;

await toolManager.register({
  name: 'demo.whoami',
  naturalLanguageProperties: {
    title: 'Who am I',
    description: 'Answers the tab it runs in.',
    annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: {} },
    outputSchema: { type: 'object' },
  },
  execute: () => {
    w.calls++;
    return { origin: location.origin, title: document.title };
  },
});

const reportTitle = params.get('reportTitle');
const session = connect({
  url: fragment.get('toolwire') ?? '',
  guard: 'read-only',
  reconnect: { initialDelayMs: 50, maxDelayMs: 400 },
  ...(reportTitle !== null ? { page: { title: reportTitle } } : {}),
});
session.addEventListener('statuschange', () => {
  (document.getElementById('status') as HTMLElement).textContent = session.status;
});
