// A page that serves its tools to a host over a real WebSocket (e2e/endpoint.e2e.ts).
// Query: ?guard=read-only|read-write|full-access&frame=allow|deny|none ; fragment: the ws URL.
import { connect } from '../../../packages/endpoint/src/index.js';
import { install } from '../../../packages/polyfill/src/index.js';

const params = new URL(location.href).searchParams;
const { toolManager } = install();
const w = window as any;
w.mapLoaded = true;
w.calls = [];

await toolManager.register({
  name: 'demo.echo',
  naturalLanguageProperties: {
    title: 'Echo',
    description: 'Returns its input.',
    annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
  execute: (input: unknown) => {
    w.calls.push('demo.echo');
    return input;
  },
});
await toolManager.register({
  name: 'demo.big',
  naturalLanguageProperties: {
    description: 'Returns about a mebibyte of text.',
    annotations: { readOnlyHint: true },
  },
  execute: () => ({ text: 'lorem ipsum dolor sit amet '.repeat(40_000) }),
});
await toolManager.register({
  name: 'demo.when',
  naturalLanguageProperties: {
    description: 'Tells the year of a date.',
    annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: { at: { webType: 'Date' } }, required: ['at'] },
  },
  execute: ({ at }: { at: Date }) => ({ year: at.getUTCFullYear(), isDate: at instanceof Date }),
});
await toolManager.register({
  name: 'map.capture',
  naturalLanguageProperties: {
    description: 'Captures the map.',
    annotations: { readOnlyHint: true },
    prerequisites: ['demo.echo'],
  },
  availability: () =>
    w.mapLoaded
      ? true
      : { available: false, code: 'map_not_loaded', reason: 'Load a map first.', retryable: true },
  execute: () => ({ captured: true }),
});
await toolManager.register({
  name: 'demo.fail',
  naturalLanguageProperties: { description: 'Always fails.', annotations: { readOnlyHint: true } },
  execute: () => {
    throw new RangeError('on purpose');
  },
});
await toolManager.register({
  name: 'notes.delete',
  naturalLanguageProperties: {
    description: 'Deletes a note.',
    annotations: { destructiveHint: true },
  },
  execute: () => ({ deleted: true }),
});
await toolManager.register({
  name: 'notes.add',
  naturalLanguageProperties: { description: 'Adds a note.' },
  execute: () => ({ added: true }),
});
// Not agent-exposed: never on the wire.
await toolManager.register({ name: 'internal.only', execute: () => 1 });

document.getElementById('save')?.addEventListener('click', () => {
  (document.getElementById('saved') as HTMLElement).textContent =
    `saved ${(document.getElementById('name') as HTMLInputElement).value}`;
});

const frame = params.get('frame');
if (frame === 'allow' || frame === 'deny') {
  const other = new URL(location.href);
  other.hostname = other.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  const spec = {
    id: 'child',
    tools: [{ name: 'frame.greet', exposedTo: [location.origin], agent: true }],
  };
  const iframe = document.createElement('iframe');
  if (frame === 'allow') iframe.setAttribute('allow', 'tools');
  iframe.src = `${other.origin}/e2e/pages/frames/frame.html#${encodeURIComponent(JSON.stringify(spec))}`;
  document.body.append(iframe);
}

const url = decodeURIComponent(location.hash.slice(1));
const session = connect({
  url,
  guard:
    (params.get('guard') as 'read-only' | 'read-write' | 'full-access' | null) ?? 'full-access',
  reconnect: { initialDelayMs: 50, maxDelayMs: 400 },
  catalogChangedDelayMs: 20,
});
w.session = session;
w.statuses = [];
session.addEventListener('statuschange', () => w.statuses.push(session.status));
