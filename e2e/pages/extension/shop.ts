/**
 * The extension panel's test page: toolwire's polyfill with three tools (a form-friendly one,
 * one returning an image, one returning a Blob) and a cross-origin iframe (`allow="tools"`)
 * whose tool coalesces into this page's `window.tools`; `#wait` adds a tool that never answers,
 * `#slow` one that reports progress and runs until cancelled.
 */
import { install } from '../../../packages/polyfill/src/index.js';

const { toolManager } = install();
const w = window as any;
w.calls = [];

export async function registerShop(): Promise<void> {
  await toolManager.register({
    name: 'cart.add',
    naturalLanguageProperties: {
      title: 'Add to cart',
      description: 'Adds an item to the cart.',
      annotations: { idempotentHint: false },
    },
    inputSchema: {
      type: 'object',
      properties: {
        sku: { type: 'string', description: 'The item code' },
        qty: { type: 'integer', minimum: 1 },
        gift: { type: 'boolean' },
        size: { enum: ['S', 'M', 'L'] },
      },
      required: ['sku', 'qty'],
    },
    execute: (input: { sku: string; qty: number }) => {
      w.calls.push(input);
      return { added: input, at: new Date(Date.UTC(2026, 0, 2)) };
    },
  });
  await toolManager.register({
    name: 'chart.render',
    naturalLanguageProperties: {
      description: 'Draws a 4x2 chart.',
      annotations: { readOnlyHint: true },
    },
    execute: () => {
      const canvas = new OffscreenCanvas(4, 2);
      const context = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
      context.fillStyle = '#ff0000';
      context.fillRect(0, 0, 4, 2);
      return canvas;
    },
  });
  await toolManager.register({
    name: 'orders.export',
    naturalLanguageProperties: {
      description: 'Exports the orders as CSV.',
      annotations: { readOnlyHint: true },
    },
    execute: () => new File(['id,total\n1,9.5\n'], 'orders.csv', { type: 'text/csv' }),
  });
}

/** A tool that never answers: for what happens to a pending call when the tab goes. */
export async function registerWait(): Promise<void> {
  await toolManager.register({
    name: 'order.wait',
    naturalLanguageProperties: { description: 'Waits for a courier that never comes.' },
    execute: () => new Promise(() => {}),
  });
}

/**
 * A tool that runs until its caller cancels it, reporting progress when the test says
 * (`window.reportStep(progress, total, message)`), and recording what aborted its signal.
 */
export async function registerSlow(): Promise<void> {
  w.aborted = [];
  await toolManager.register({
    name: 'report.build',
    naturalLanguageProperties: { description: 'Builds a report step by step.' },
    execute: (
      _input: unknown,
      context: {
        signal: AbortSignal;
        reportProgress: (progress: number, total?: number, message?: string) => void;
      },
    ) => {
      w.reportStep = context.reportProgress;
      return new Promise((_resolve, reject) =>
        context.signal.addEventListener('abort', () => {
          w.aborted.push((context.signal.reason as Error | undefined)?.name ?? 'no reason');
          reject(context.signal.reason);
        }),
      );
    },
  });
}

export async function registerFrame(top: string): Promise<void> {
  await toolManager.register({
    name: 'calendar.slots',
    exposedTo: [top],
    naturalLanguageProperties: { description: 'Free slots of the calendar widget.' },
    execute: () => ({ slots: ['09:00', '14:30'] }),
  });
}

/** The other loopback name, same port: a cross-origin frame. */
export function otherOrigin(): string {
  const url = new URL(location.href);
  url.hostname = url.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  return url.origin;
}
