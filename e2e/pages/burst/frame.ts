// The child of e2e/catalog-burst.e2e.ts. `burst({from, count, size, gapMs})` registers
// `frame.t<i>` for i in [from, from + count), `size` at a time with `gapMs` between bursts;
// `unburst` unregisters them the same way. Every tool is agent-exposed to every origin, so the
// top lists them all.
import { install } from '../../../packages/polyfill/src/index.js';

interface Burst {
  from: number;
  count: number;
  size: number;
  gapMs: number;
}

const { toolManager } = install();
const w = window as any;
const registrations = new Map<number, AbortController>();

const name = (i: number) => `frame.t${String(i).padStart(4, '0')}`;

async function inBursts(burst: Burst, each: (i: number) => Promise<unknown> | undefined) {
  const { from, count, size, gapMs } = burst;
  for (let start = from; start < from + count; start += size) {
    const end = Math.min(from + count, start + size);
    const batch: (Promise<unknown> | undefined)[] = [];
    for (let i = start; i < end; i++) batch.push(each(i));
    // Awaited as a page would (`for (...) await register(...)`): each burst still reaches the
    // top as its own change notice, and gapMs > 0 adds a new task between bursts.
    await Promise.all(batch);
    // The burst's shape (a new task between bursts), not a wait the test relies on.
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
}

w.burst = (burst: Burst) =>
  inBursts(burst, (i) => {
    const controller = new AbortController();
    registrations.set(i, controller);
    return toolManager.register(
      {
        name: name(i),
        exposedTo: ['*'],
        naturalLanguageProperties: {
          description: `Tool ${i} of the frame.`,
          annotations: { readOnlyHint: true },
          inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
        },
        execute: () => i,
      },
      { signal: controller.signal },
    );
  });

w.unburst = (burst: Burst) =>
  inBursts(burst, (i) => {
    registrations.get(i)?.abort();
    registrations.delete(i);
    return undefined;
  });

w.ready = true;
