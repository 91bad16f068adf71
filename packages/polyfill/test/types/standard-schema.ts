// defineTool with Standard Schema objects: execute takes the input schema's output type and
// returns the output schema's input type.
import '@toolwire/polyfill/global';
import { defineTool } from '@toolwire/polyfill';
import * as v from 'valibot';
import * as z from 'zod';
import type { Equal } from './equal.ts';

const Order = z.object({
  sku: z.string(),
  qty: z.number().int().min(1).default(1),
  by: z.iso.datetime().transform((text) => new Date(text)),
});

export const order = defineTool({
  name: 'order.place',
  naturalLanguageProperties: { description: 'Places an order.' },
  inputSchema: Order,
  outputSchema: z.object({ id: z.string(), total: z.number() }),
  execute: async ({ sku, qty, by }) => {
    true satisfies Equal<typeof sku, string>;
    true satisfies Equal<typeof qty, number>; // the default applied: never undefined here
    true satisfies Equal<typeof by, Date>; // the transform's output
    return { id: `${sku}-${by.getTime()}`, total: qty * 2 };
  },
});
await toolManager.register(order);

// Mixed: a Standard Schema input and a JSON Schema output (webType included).
defineTool({
  name: 'mixed',
  inputSchema: z.object({ days: z.array(z.number()) }),
  outputSchema: { webType: 'Set', items: { type: 'number' } },
  execute: ({ days }) => new Set(days),
});

export const note = defineTool({
  name: 'note.add',
  inputSchema: v.object({
    text: v.pipe(v.string(), v.minLength(1)),
    pinned: v.optional(v.boolean()),
  }),
  outputSchema: v.object({ id: v.number() }),
  execute: ({ text, pinned }) => {
    true satisfies Equal<typeof text, string>;
    true satisfies Equal<typeof pinned, boolean | undefined>;
    return { id: text.length };
  },
});
await toolManager.register(note);

defineTool({
  name: 'zod.wrong.argument',
  inputSchema: Order,
  // @ts-expect-error -- after the transform `by` is a Date, not a string
  execute: (input: { sku: string; qty: number; by: string }) => input.sku,
});

defineTool({
  name: 'zod.wrong.result',
  outputSchema: z.object({ id: z.string() }),
  // @ts-expect-error -- id must be a string
  execute: () => ({ id: 1 }),
});

defineTool({
  name: 'valibot.wrong.use',
  inputSchema: v.object({ count: v.number() }),
  // @ts-expect-error -- count is a number
  execute: ({ count }) => count.toUpperCase(),
});

defineTool({
  name: 'valibot.wrong.result',
  outputSchema: v.object({ id: v.number() }),
  // @ts-expect-error -- a missing id
  execute: async () => ({}),
});
