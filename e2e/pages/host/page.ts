// A page served to the toolwire host (e2e/host.e2e.ts). The host's URL comes in the fragment
// as `#toolwire=<encoded ws URL>` (what Host.pageUrl makes); the query may set
// `guard=read-only|read-write|full-access` (default full-access) and `changedDelay=<ms>`.
import { connect } from '../../../packages/endpoint/src/index.js';
import { install } from '../../../packages/polyfill/src/index.js';

const params = new URL(location.href).searchParams;
const fragment = new URLSearchParams(location.hash.slice(1));
const { toolManager } = install();
const w = window as any;
w.calls = [];
w.requests = [];

const readOnly = { readOnlyHint: true };
await toolManager.register({
  name: 'demo.echo',
  naturalLanguageProperties: {
    title: 'Echo',
    description: 'Returns its input.',
    annotations: readOnly,
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    outputSchema: { type: 'object' },
  },
  execute: (input: unknown) => {
    w.calls.push('demo.echo');
    return input;
  },
});
await toolManager.register({
  name: 'demo.big',
  naturalLanguageProperties: { description: 'About a mebibyte of text.', annotations: readOnly },
  execute: () => ({ text: 'lorem ipsum dolor sit amet '.repeat(40_000) }),
});
// Runs until it is given up on (its signal says when: `window.slow` counts the runs that
// started and `window.aborted` the reasons their signals aborted with).
w.slow = 0;
w.aborted = [];
await toolManager.register({
  name: 'demo.slow',
  naturalLanguageProperties: { description: 'Never finishes.', annotations: readOnly },
  execute: (_input: unknown, context: { signal: AbortSignal }) => {
    w.slow++;
    context.signal.addEventListener('abort', () => w.aborted.push(context.signal.reason?.name));
    return new Promise(() => {});
  },
});
await toolManager.register({
  name: 'notes.add',
  naturalLanguageProperties: { description: 'Adds a note.' },
  execute: () => {
    w.calls.push('notes.add');
    return { added: true };
  },
});
await toolManager.register({
  name: 'notes.delete',
  naturalLanguageProperties: {
    description: 'Deletes a note.',
    annotations: { destructiveHint: true },
  },
  execute: () => {
    w.calls.push('notes.delete');
    return { deleted: true };
  },
});

const session = connect({
  url: fragment.get('toolwire') ?? '',
  guard:
    (params.get('guard') as 'read-only' | 'read-write' | 'full-access' | null) ?? 'full-access',
  reconnect: { initialDelayMs: 50, maxDelayMs: 400 },
  catalogChangedDelayMs: Number(params.get('changedDelay') ?? 20),
});
w.session = session;
// What the host asked, in order (type and tool id; the page sees every request).
session.addEventListener('request', (event) => {
  const { type, toolId } = (event as CustomEvent).detail;
  w.requests.push(toolId ? `${type} ${toolId}` : type);
});
session.addEventListener('statuschange', () => {
  (document.getElementById('status') as HTMLElement).textContent = session.status;
});
