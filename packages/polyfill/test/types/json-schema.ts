// defineTool with JSON Schema, webType included: what execute receives is what the lowering
// delivers (packages/lowering/LOWERING.md), and what it returns is checked against outputSchema.
import '@toolwire/polyfill/global';
import { type DefinedTool, defineTool } from '@toolwire/polyfill';
import type { Equal } from './equal.ts';

export const addToCart = defineTool({
  name: 'cart.add',
  naturalLanguageProperties: { description: 'Adds a product to the cart.' },
  inputSchema: {
    type: 'object',
    properties: {
      sku: { type: 'string' },
      qty: { type: 'integer', minimum: 1 },
      by: { webType: 'Date' },
      gift: { type: ['string', 'null'] },
    },
    required: ['sku'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      sku: { type: 'string' },
      qty: { type: 'integer' },
      deliverBy: { webType: 'Date' },
    },
    required: ['sku', 'qty'],
    additionalProperties: false,
  },
  execute: ({ sku, qty = 1, by }) => ({ sku, qty, deliverBy: by }),
});
true satisfies Equal<
  Parameters<typeof addToCart.execute>[0],
  { sku: string; qty?: number; by?: Date; gift?: string | null }
>;
await toolManager.register(addToCart);

const webTypes = defineTool({
  name: 'web.types',
  inputSchema: {
    type: 'object',
    properties: {
      tags: { webType: 'Map', keys: { type: 'string' }, values: { type: 'integer' } },
      byDay: { webType: 'Map', keys: { webType: 'Date' }, values: { webType: 'Set' } },
      seen: { webType: 'Set', items: { enum: ['a', 'b'] } },
      photo: { webType: 'Blob' },
      upload: { webType: 'File' },
      bytes: { webType: 'Uint8Array' },
      buffer: { webType: 'ArrayBuffer' },
      big: { webType: 'BigInt' },
      image: { webType: 'ImageData' },
      problem: { webType: 'Error' },
      link: { webType: 'URL' },
      match: { webType: 'RegExp' },
    },
    required: ['tags', 'byDay', 'seen', 'photo', 'upload', 'bytes', 'buffer', 'big'],
    additionalProperties: false,
  },
  outputSchema: { webType: 'Blob' },
  execute: (input) => {
    true satisfies Equal<typeof input.tags, Map<string, number>>;
    true satisfies Equal<typeof input.byDay, Map<Date, Set<unknown>>>;
    true satisfies Equal<typeof input.seen, Set<'a' | 'b'>>;
    true satisfies Equal<typeof input.photo, Blob>;
    true satisfies Equal<typeof input.upload, File>;
    true satisfies Equal<typeof input.bytes, Uint8Array>;
    true satisfies Equal<typeof input.buffer, ArrayBuffer>;
    true satisfies Equal<typeof input.big, bigint>;
    true satisfies Equal<typeof input.image, ImageData | undefined>;
    true satisfies Equal<typeof input.problem, Error | undefined>;
    true satisfies Equal<typeof input.link, URL | undefined>;
    true satisfies Equal<typeof input.match, RegExp | undefined>;
    return input.photo.slice(0, input.bytes.length);
  },
});
true satisfies Equal<typeof webTypes, DefinedTool<Parameters<typeof webTypes.execute>[0], Blob>>;

// Arrays, tuples, enums, const, anyOf / oneOf, and what no rule reads.
defineTool({
  name: 'shapes',
  inputSchema: {
    type: 'object',
    properties: {
      pair: {
        type: 'array',
        prefixItems: [{ type: 'string' }, { type: 'number' }],
        minItems: 2,
        items: false,
      },
      head: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'boolean' } },
      list: { type: 'array', items: { type: 'object', properties: { id: { const: 7 } } } },
      mode: { type: 'string', enum: ['fast', 'safe'] },
      either: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      one: { oneOf: [{ const: 'a' }, { type: 'object', required: ['b'] }] },
      flags: { type: 'object', additionalProperties: { type: 'boolean' } },
      free: { type: 'object' },
      ref: { $ref: '#/$defs/x' },
      anything: true,
    },
    required: ['pair', 'head', 'list', 'mode', 'either', 'one', 'flags', 'free', 'ref', 'anything'],
  },
  execute: (input) => {
    true satisfies Equal<typeof input.pair, [string, number]>;
    true satisfies Equal<typeof input.head, [string?, ...boolean[]]>;
    true satisfies Equal<typeof input.list, { id?: 7 }[]>;
    true satisfies Equal<typeof input.mode, 'fast' | 'safe'>;
    true satisfies Equal<typeof input.either, string | number>;
    true satisfies Equal<typeof input.one, 'a' | { [key: string]: unknown; b: unknown }>;
    true satisfies Equal<typeof input.flags, { [key: string]: boolean }>;
    true satisfies Equal<typeof input.free, { [key: string]: unknown }>;
    true satisfies Equal<typeof input.ref, unknown>;
    true satisfies Equal<typeof input.anything, unknown>;
    return null;
  },
});

// No schemas: the input is whatever the caller passed, the result anything.
defineTool({
  name: 'free',
  execute: (input) => {
    true satisfies Equal<typeof input, unknown>;
    return input;
  },
});

defineTool({
  name: 'wrong.argument',
  inputSchema: { type: 'object', properties: { when: { webType: 'Date' } }, required: ['when'] },
  // @ts-expect-error -- `when` arrives as a Date, not as the ISO string an agent sent
  execute: (input: { when: string }) => input.when,
});

defineTool({
  name: 'wrong.use',
  inputSchema: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
  // @ts-expect-error -- sku is a string
  execute: ({ sku }) => sku.toFixed(2),
});

defineTool({
  name: 'misspelt',
  inputSchema: { type: 'object', properties: { sku: { type: 'string' } } },
  // @ts-expect-error -- without additionalProperties, only the named properties exist
  execute: (input) => input.skew,
});

defineTool({
  name: 'wrong.result',
  outputSchema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
  // @ts-expect-error -- total must be a number
  execute: () => ({ total: '12' }),
});

defineTool({
  name: 'wrong.async.result',
  outputSchema: { webType: 'Date' },
  // @ts-expect-error -- a Date is lowered to ISO by toolwire; returning the string breaks the schema
  execute: async () => new Date().toISOString(),
});

defineTool({
  name: 'wrong.enum',
  outputSchema: { enum: ['ok', 'failed'] },
  // @ts-expect-error -- not one of the enum's values
  execute: () => 'done',
});

defineTool({
  name: 'nullable',
  outputSchema: { type: ['string', 'null'] },
  execute: () => null,
});

defineTool({
  name: 'not.nullable',
  outputSchema: { type: 'string' },
  // @ts-expect-error -- null is not a string
  execute: () => null,
});
