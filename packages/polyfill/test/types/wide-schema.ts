// A 30-property schema, every rule of FromSchema in it, 3 levels deep in places: type-checking
// it must stay fast (from-schema.ts walks the schema once; `tsc --extendedDiagnostics` on this
// folder shows the instantiation count).
import { defineTool } from '@toolwire/polyfill';
import type { Equal } from './equal.ts';

export const wide = defineTool({
  name: 'wide',
  inputSchema: {
    type: 'object',
    properties: {
      p00: { type: 'string' },
      p01: { type: 'integer', minimum: 0 },
      p02: { webType: 'Date' },
      p03: { type: ['string', 'null'] },
      p04: {
        webType: 'Map',
        keys: { type: 'string' },
        values: { type: 'array', items: { type: 'number' } },
      },
      p05: { webType: 'Set', items: { enum: ['x', 'y', 'z'] } },
      p06: {
        type: 'object',
        properties: { a: { type: 'boolean' }, b: { webType: 'Blob' } },
        required: ['a'],
      },
      p07: { anyOf: [{ type: 'string' }, { type: 'array', items: { webType: 'URL' } }] },
      p08: {
        type: 'array',
        prefixItems: [{ type: 'string' }, { webType: 'BigInt' }],
        minItems: 2,
        items: false,
      },
      p09: { const: 'fixed' },
      p10: { type: 'string' },
      p11: { type: 'integer', minimum: 0 },
      p12: { webType: 'Date' },
      p13: { type: ['string', 'null'] },
      p14: {
        webType: 'Map',
        keys: { type: 'string' },
        values: { type: 'array', items: { type: 'number' } },
      },
      p15: { webType: 'Set', items: { enum: ['x', 'y', 'z'] } },
      p16: {
        type: 'object',
        properties: { a: { type: 'boolean' }, b: { webType: 'Blob' } },
        required: ['a'],
      },
      p17: { anyOf: [{ type: 'string' }, { type: 'array', items: { webType: 'URL' } }] },
      p18: {
        type: 'array',
        prefixItems: [{ type: 'string' }, { webType: 'BigInt' }],
        minItems: 2,
        items: false,
      },
      p19: { const: 'fixed' },
      p20: { type: 'string' },
      p21: { type: 'integer', minimum: 0 },
      p22: { webType: 'Date' },
      p23: { type: ['string', 'null'] },
      p24: {
        webType: 'Map',
        keys: { type: 'string' },
        values: { type: 'array', items: { type: 'number' } },
      },
      p25: { webType: 'Set', items: { enum: ['x', 'y', 'z'] } },
      p26: {
        type: 'object',
        properties: { a: { type: 'boolean' }, b: { webType: 'Blob' } },
        required: ['a'],
      },
      p27: { anyOf: [{ type: 'string' }, { type: 'array', items: { webType: 'URL' } }] },
      p28: {
        type: 'array',
        prefixItems: [{ type: 'string' }, { webType: 'BigInt' }],
        minItems: 2,
        items: false,
      },
      p29: { const: 'fixed' },
    },
    required: [
      'p00',
      'p01',
      'p02',
      'p03',
      'p04',
      'p05',
      'p06',
      'p07',
      'p08',
      'p09',
      'p10',
      'p11',
      'p12',
      'p13',
      'p14',
      'p15',
      'p16',
      'p17',
      'p18',
      'p19',
      'p20',
      'p21',
      'p22',
      'p23',
      'p24',
      'p25',
      'p26',
      'p27',
      'p28',
      'p29',
    ],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      p00: { type: 'string' },
      p01: { type: 'integer', minimum: 0 },
      p02: { webType: 'Date' },
      p03: { type: ['string', 'null'] },
      p04: {
        webType: 'Map',
        keys: { type: 'string' },
        values: { type: 'array', items: { type: 'number' } },
      },
      p05: { webType: 'Set', items: { enum: ['x', 'y', 'z'] } },
      p06: {
        type: 'object',
        properties: { a: { type: 'boolean' }, b: { webType: 'Blob' } },
        required: ['a'],
      },
      p07: { anyOf: [{ type: 'string' }, { type: 'array', items: { webType: 'URL' } }] },
      p08: {
        type: 'array',
        prefixItems: [{ type: 'string' }, { webType: 'BigInt' }],
        minItems: 2,
        items: false,
      },
      p09: { const: 'fixed' },
      p10: { type: 'string' },
      p11: { type: 'integer', minimum: 0 },
      p12: { webType: 'Date' },
      p13: { type: ['string', 'null'] },
      p14: {
        webType: 'Map',
        keys: { type: 'string' },
        values: { type: 'array', items: { type: 'number' } },
      },
      p15: { webType: 'Set', items: { enum: ['x', 'y', 'z'] } },
      p16: {
        type: 'object',
        properties: { a: { type: 'boolean' }, b: { webType: 'Blob' } },
        required: ['a'],
      },
      p17: { anyOf: [{ type: 'string' }, { type: 'array', items: { webType: 'URL' } }] },
      p18: {
        type: 'array',
        prefixItems: [{ type: 'string' }, { webType: 'BigInt' }],
        minItems: 2,
        items: false,
      },
      p19: { const: 'fixed' },
      p20: { type: 'string' },
      p21: { type: 'integer', minimum: 0 },
      p22: { webType: 'Date' },
      p23: { type: ['string', 'null'] },
      p24: {
        webType: 'Map',
        keys: { type: 'string' },
        values: { type: 'array', items: { type: 'number' } },
      },
      p25: { webType: 'Set', items: { enum: ['x', 'y', 'z'] } },
      p26: {
        type: 'object',
        properties: { a: { type: 'boolean' }, b: { webType: 'Blob' } },
        required: ['a'],
      },
      p27: { anyOf: [{ type: 'string' }, { type: 'array', items: { webType: 'URL' } }] },
      p28: {
        type: 'array',
        prefixItems: [{ type: 'string' }, { webType: 'BigInt' }],
        minItems: 2,
        items: false,
      },
      p29: { const: 'fixed' },
    },
  },
  execute: (input) => {
    true satisfies Equal<
      typeof input,
      {
        p00: string;
        p01: number;
        p02: Date;
        p03: string | null;
        p04: Map<string, number[]>;
        p05: Set<'x' | 'y' | 'z'>;
        p06: { a: boolean; b?: Blob };
        p07: string | URL[];
        p08: [string, bigint];
        p09: 'fixed';
        p10: string;
        p11: number;
        p12: Date;
        p13: string | null;
        p14: Map<string, number[]>;
        p15: Set<'x' | 'y' | 'z'>;
        p16: { a: boolean; b?: Blob };
        p17: string | URL[];
        p18: [string, bigint];
        p19: 'fixed';
        p20: string;
        p21: number;
        p22: Date;
        p23: string | null;
        p24: Map<string, number[]>;
        p25: Set<'x' | 'y' | 'z'>;
        p26: { a: boolean; b?: Blob };
        p27: string | URL[];
        p28: [string, bigint];
        p29: 'fixed';
      }
    >;
    return input;
  },
});
