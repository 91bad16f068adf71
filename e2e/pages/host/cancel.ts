// A page for e2e/cancel-progress.e2e.ts: tools that run until their signal aborts, noting when
// they start and when their signal fires (`started`, `stops`), and one that reports progress. The host's
// URL comes in the fragment (`#toolwire=<encoded ws URL>`).
import { connect } from '../../../packages/endpoint/src/index.js';
import { install } from '../../../packages/polyfill/src/index.js';

const fragment = new URLSearchParams(location.hash.slice(1));
const { toolManager } = install();
const w = window as any;
w.started = [];
w.stops = [];
/** When each tool's signal fired (Date.now(), the machine's clock the test reads too). */
w.stoppedAt = {};

interface Context {
  signal: AbortSignal;
  reportProgress?: (progress: number, total?: number, message?: string) => void;
}

/** Runs `ms` unless its signal aborts first; notes its start and its signal firing. */
function waitFor(name: string, ms: number, signal: AbortSignal): Promise<unknown> {
  w.started.push(name);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve({ waited: ms }), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      w.stops.push(name);
      w.stoppedAt[name] = Date.now();
      reject(signal.reason);
    });
  });
}

const readOnly = { readOnlyHint: true };
await toolManager.register({
  name: 'demo.wait',
  naturalLanguageProperties: { description: 'Waits ten seconds.', annotations: readOnly },
  execute: (_input: unknown, context: Context) => waitFor('demo.wait', 10_000, context.signal),
});
await toolManager.register({
  name: 'demo.stall',
  naturalLanguageProperties: { description: 'Waits thirty seconds.', annotations: readOnly },
  execute: (_input: unknown, context: Context) => waitFor('demo.stall', 30_000, context.signal),
});
/** `release()` lets a `demo.steps` call that holds (`hold: true`) answer. */
let release: () => void = () => {};
w.release = () => release();
await toolManager.register({
  name: 'demo.steps',
  naturalLanguageProperties: {
    description:
      'Three steps, reported as progress, `every` ms apart (default 80); with `hold`, answers once released.',
    annotations: readOnly,
    inputSchema: {
      type: 'object',
      properties: { every: { type: 'number' }, hold: { type: 'boolean' } },
    },
  },
  execute: async (input: { every?: number; hold?: boolean }, context: Context) => {
    const every = input?.every ?? 80;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    for (const [step, message] of ['one', 'two', 'three'].entries()) {
      await new Promise((resolve) => setTimeout(resolve, every));
      context.reportProgress?.(step + 1, 3, message);
    }
    if (input?.hold) await released;
    return 'stepped';
  },
});

const session = connect({
  url: fragment.get('toolwire') ?? '',
  guard: 'full-access',
  reconnect: { initialDelayMs: 50, maxDelayMs: 400 },
});
session.addEventListener('statuschange', () => {
  (document.getElementById('status') as HTMLElement).textContent = session.status;
});
