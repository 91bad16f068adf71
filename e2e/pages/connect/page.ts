// A page with toolwire's polyfill and no endpoint (no endpoint.iife.js, no connect()): the
// toolwire extension's "Connect this tab" is its only way to a host (e2e/extension-connect.e2e.ts).
import { install } from '../../../packages/polyfill/src/index.js';

const { toolManager } = install();
const w = window as any;
w.calls = [];
/** What aborted the signals of the calls that never finish (shop.wait). */
w.aborted = [];
const readOnly = { readOnlyHint: true };

await toolManager.register({
  name: 'shop.search',
  naturalLanguageProperties: {
    title: 'Search the shop',
    description: 'Finds products by name.',
    annotations: readOnly,
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
    },
  },
  execute: (input: { query: string }) => {
    w.calls.push('shop.search');
    return { query: input.query, results: [`${input.query} (blue)`, `${input.query} (red)`] };
  },
});
await toolManager.register({
  name: 'shop.logo',
  naturalLanguageProperties: {
    description: 'The shop logo as ImageData (2x1: red, blue).',
    annotations: readOnly,
    outputSchema: { webType: 'ImageData' },
  },
  execute: () => {
    const canvas = new OffscreenCanvas(2, 1);
    const context = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
    context.fillStyle = '#f00';
    context.fillRect(0, 0, 1, 1);
    context.fillStyle = '#00f';
    context.fillRect(1, 0, 1, 1);
    return context.getImageData(0, 0, 2, 1);
  },
});
await toolManager.register({
  name: 'cart.add',
  naturalLanguageProperties: { description: 'Adds a product to the cart.' },
  execute: () => {
    w.calls.push('cart.add');
    return { added: true };
  },
});
await toolManager.register({
  name: 'shop.wait',
  naturalLanguageProperties: { description: 'Never finishes.', annotations: readOnly },
  execute: (
    _input: unknown,
    context: {
      signal: AbortSignal;
      reportProgress: (progress: number, total?: number, message?: string) => void;
    },
  ) => {
    w.calls.push('shop.wait');
    // The test reports progress through it while the call runs.
    w.reportWait = context.reportProgress;
    const { signal } = context;
    signal.addEventListener('abort', () => w.aborted.push(signal.reason?.name ?? 'no reason'));
    return new Promise(() => {});
  },
});
// Declared critical, with no annotation saying so: the guard and the grant must see critical.
await toolManager.register({
  name: 'shop.reset',
  policy: 'critical',
  naturalLanguageProperties: { description: 'Empties the shop.' },
  execute: () => {
    w.calls.push('shop.reset');
    return { reset: true };
  },
});
// For the page's own code (no naturalLanguageProperties): never offered to a host.
await toolManager.register({
  name: 'shop.internal',
  execute: () => {
    w.calls.push('shop.internal');
    return {};
  },
});
(document.getElementById('status') as HTMLElement).textContent = 'ready';
