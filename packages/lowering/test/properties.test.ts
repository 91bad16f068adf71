import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { expandSchema, type Json, type JsonSchema, lift, lower } from '../src/index.js';
import { rejection } from './support/expect-error.js';
import { inspect } from './support/inspect.js';

// CPU-bound work: on a busy two-core machine these take several times their usual seconds, past
// the 20 s default. The bound only turns a hang into a failure; no speed is measured.
const CPU_BOUND = { timeout: 120_000 };

// Property tests (issue 3): for arbitrary values of the supported types and a schema that
// describes them, lift(lower(v, s), s) gives v back; and JSON that does not match s is
// refused by lift with a path that exists in that JSON. ajv, fed expandSchema(s), is the
// independent judge of "does not match": lift must be at least as strict as what the agent
// is told.

const RUNS = 1000;

interface Sample {
  schema: JsonSchema;
  value: unknown;
}

/** A schema and values it describes: the building block of every sample. */
interface Kind {
  schema: JsonSchema;
  arb: fc.Arbitrary<unknown>;
}

const noNegativeZero = (x: number) => (x === 0 ? 0 : x);

function fixZeros(value: unknown): unknown {
  if (typeof value === 'number') return noNegativeZero(value);
  if (Array.isArray(value)) return value.map(fixZeros);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, key, {
        value: fixZeros(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

const DATE_RANGE = {
  min: new Date('0000-01-01T00:00:00.000Z'),
  max: new Date('9999-12-31T23:59:59.999Z'),
  noInvalidDate: true,
};
const NATIVE_ERRORS: Record<string, ErrorConstructor> = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
};

function makeError(name: string, message: string, code: string | number | undefined): Error {
  const Native = NATIVE_ERRORS[name];
  const error = Native ? new Native(message) : new Error(message);
  if (!Native)
    Object.defineProperty(error, 'name', { value: name, writable: true, configurable: true });
  if (code !== undefined) (error as Error & { code: unknown }).code = code;
  return error;
}

const KINDS: Kind[] = [
  { schema: { type: 'null' }, arb: fc.constant(null) },
  { schema: { type: 'boolean' }, arb: fc.boolean() },
  { schema: { type: 'integer' }, arb: fc.integer() },
  {
    schema: { type: 'number' },
    arb: fc.double({ noNaN: true, noDefaultInfinity: true }).map(noNegativeZero),
  },
  { schema: { type: 'string' }, arb: fc.string({ unit: 'binary' }) },
  { schema: {}, arb: fc.jsonValue().map(fixZeros) },
  { schema: { webType: 'Date' }, arb: fc.date(DATE_RANGE) },
  { schema: { webType: 'BigInt' }, arb: fc.bigInt() },
  { schema: { webType: 'Uint8Array' }, arb: fc.uint8Array({ maxLength: 40 }) },
  { schema: { webType: 'Int16Array' }, arb: fc.int16Array({ maxLength: 20 }) },
  { schema: { webType: 'Float64Array' }, arb: fc.float64Array({ maxLength: 10 }) },
  { schema: { webType: 'BigInt64Array' }, arb: fc.bigInt64Array({ maxLength: 5 }) },
  {
    schema: { webType: 'ArrayBuffer' },
    arb: fc.uint8Array({ maxLength: 40 }).map((a) => a.slice().buffer),
  },
  {
    schema: { webType: 'DataView' },
    arb: fc.uint8Array({ maxLength: 40 }).map((a) => new DataView(a.slice().buffer)),
  },
  {
    schema: { webType: 'Blob' },
    arb: fc
      .tuple(
        fc.uint8Array({ maxLength: 64 }),
        fc.constantFrom(
          'text/plain',
          'application/octet-stream',
          'image/png',
          'application/json;charset=utf-8',
        ),
      )
      .map(([bytes, type]) => new Blob([bytes], { type })),
  },
  {
    schema: { webType: 'File' },
    arb: fc
      .tuple(fc.uint8Array({ maxLength: 64 }), fc.string(), fc.integer({ min: 0, max: 2 ** 45 }))
      .map(
        ([bytes, name, lastModified]) =>
          new File([bytes], name, { type: 'text/plain', lastModified }),
      ),
  },
  {
    schema: { webType: 'URL' },
    arb: fc.webUrl({ withQueryParameters: true, withFragments: true }).map((url) => new URL(url)),
  },
  {
    schema: { webType: 'RegExp' },
    arb: fc
      .constantFrom(['a+', 'g'], ['^x$', 'imsu'], ['[\\d]', 'y'], ['\\/', 'd'], ['', ''])
      .map(([source, flags]) => new RegExp(source as string, flags)),
  },
  {
    schema: { webType: 'Error' },
    arb: fc
      .tuple(
        fc.constantFrom('Error', 'TypeError', 'RangeError', 'QuotaError'),
        fc.string(),
        fc.option(fc.oneof(fc.string(), fc.integer()), { nil: undefined }),
      )
      .map(([name, message, code]) => makeError(name, message, code)),
  },
  {
    schema: { webType: 'DOMException' },
    arb: fc
      .tuple(fc.constantFrom('NotFoundError', 'AbortError', 'DataError', 'OtherError'), fc.string())
      .map(([name, message]) => new DOMException(message, name)),
  },
];

/** Kinds whose JSON forms are unique exactly when these keys are: Set items and Map keys. */
const KEYED: {
  schema: JsonSchema;
  arb: fc.Arbitrary<unknown>;
  key: (v: never) => unknown;
  /** The JSON object key, for kinds that give a Map the object form. */
  text?: (v: never) => string;
}[] = [
  { schema: { type: 'string' }, arb: fc.string(), key: (s: string) => s, text: (s: string) => s },
  { schema: { type: 'integer' }, arb: fc.integer(), key: (n: number) => n },
  {
    schema: { webType: 'Date' },
    arb: fc.date(DATE_RANGE),
    key: (d: Date) => d.getTime(),
    text: (d: Date) => d.toISOString(),
  },
  {
    schema: { webType: 'BigInt' },
    arb: fc.bigInt(),
    key: (b: bigint) => b,
    text: (b: bigint) => String(b),
  },
];

/**
 * An object-form Map comes back in the order a JSON object keeps (LOWERING.md [M5]:
 * integer-like keys first): generate it in that order, so the round trip can compare order.
 */
function inObjectOrder<K>(
  entries: [K, unknown][],
  text: ((key: never) => string) | undefined,
): [K, unknown][] {
  if (!text) return entries;
  const byText = new Map(entries.map((entry) => [text(entry[0] as never), entry]));
  const order = Object.keys(Object.fromEntries([...byText.keys()].map((key) => [key, 0])));
  return order.map((key) => byText.get(key) as [K, unknown]);
}

const leaf: fc.Arbitrary<Sample> = fc
  .constantFrom(...KINDS)
  .chain((kind) => kind.arb.map((value) => ({ schema: kind.schema, value })));

const map: fc.Arbitrary<Sample> = fc
  .tuple(fc.constantFrom(...KEYED), fc.constantFrom(...KINDS))
  .chain(([keys, values]) =>
    fc
      .uniqueArray(fc.tuple(keys.arb, values.arb), {
        maxLength: 5,
        selector: (entry) => keys.key(entry[0] as never),
      })
      .map((entries) => ({
        schema: { webType: 'Map', keys: keys.schema, values: values.schema } as JsonSchema,
        value: new Map(inObjectOrder(entries, keys.text)),
      })),
  );

const set: fc.Arbitrary<Sample> = fc.constantFrom(...KEYED).chain((items) =>
  fc
    .uniqueArray(items.arb, { maxLength: 6, selector: (item) => items.key(item as never) })
    .map((list) => ({
      schema: { webType: 'Set', items: items.schema } as JsonSchema,
      value: new Set(list),
    })),
);

const { sample } = fc.letrec<{ sample: Sample; array: Sample; object: Sample; nullable: Sample }>(
  (tie) => ({
    sample: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      tie('array'),
      tie('object'),
      tie('nullable'),
      map,
      set,
    ),
    array: fc.array(tie('sample'), { maxLength: 4 }).map((items) => ({
      // prefixItems may not be empty (2020-12 meta-schema): an empty tuple is maxItems 0.
      schema: (items.length === 0
        ? { type: 'array', maxItems: 0 }
        : {
            type: 'array',
            prefixItems: items.map((i) => i.schema),
            items: false,
            minItems: items.length,
          }) as JsonSchema,
      value: items.map((i) => i.value),
    })),
    object: fc
      .uniqueArray(fc.tuple(fc.string({ maxLength: 6 }), tie('sample')), {
        maxLength: 4,
        selector: (e) => e[0],
      })
      .map((entries) => {
        const properties: Record<string, JsonSchema> = {};
        const value: Record<string, unknown> = {};
        for (const [key, item] of entries) {
          Object.defineProperty(properties, key, {
            value: item.schema,
            enumerable: true,
            writable: true,
            configurable: true,
          });
          Object.defineProperty(value, key, {
            value: item.value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return {
          schema: {
            type: 'object',
            properties,
            required: entries.map((e) => e[0]),
            additionalProperties: false,
          } as JsonSchema,
          value,
        };
      }),
    nullable: fc.tuple(tie('sample'), fc.boolean()).map(([inner, none]) => ({
      schema: { anyOf: [inner.schema, { type: 'null' }] } as JsonSchema,
      value: none ? null : inner.value,
    })),
  }),
);

// ajv 2020-12 with formats in "fast" mode: lift's Date and URL rules are stricter than both.
type AjvInstance = { compile(schema: object): (data: unknown) => boolean };
const unwrap = <T>(module: unknown): T => ((module as { default?: T }).default ?? module) as T;
const Ajv2020 = unwrap<new (options: object) => AjvInstance>(Ajv2020Module);
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
unwrap<(ajv: AjvInstance, options: object) => void>(addFormatsModule)(ajv, { mode: 'fast' });

function paths(value: Json, prefix: string[] = []): string[][] {
  const out = [prefix];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      out.push(...paths(value[i] as Json, [...prefix, String(i)]));
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) out.push(...paths(value[key] as Json, [...prefix, key]));
  }
  return out;
}

function replaceAt(root: Json, path: string[], replacement: Json): Json {
  if (path.length === 0) return replacement;
  const copy = structuredClone(root) as Record<string, Json>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, Json>;
  Object.defineProperty(node, path[path.length - 1] as string, {
    value: replacement,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return copy;
}

/** Follows a JSON Pointer; `found: false` when it leads nowhere. */
function resolve(root: unknown, pointer: string): { found: boolean } {
  if (pointer === '') return { found: true };
  let node = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key))
      return { found: false };
    node = (node as Record<string, unknown>)[key];
  }
  return { found: true };
}

describe('round trip', CPU_BOUND, () => {
  test(`lift(lower(v, s), s) gives v back, through JSON text (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(sample, async ({ schema, value }) => {
        const text = JSON.stringify(await lower(value, schema));
        const back = await lift(JSON.parse(text), schema);
        expect(await inspect(back)).toEqual(await inspect(value));
        // The JSON form is canonical: lowering the lifted value writes the same text.
        expect(JSON.stringify(await lower(back, schema))).toBe(text);
        // And what lower writes is what the published schema allows.
        expect(ajv.compile(expandSchema(schema) as object)(JSON.parse(text))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('strict lifting of JSON that does not match', CPU_BOUND, () => {
  test(`lift refuses with a path into the input (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        sample,
        fc.nat(),
        fc.jsonValue(),
        async ({ schema, value }, pick, replacement) => {
          const json = JSON.parse(JSON.stringify(await lower(value, schema))) as Json;
          const all = paths(json);
          const mutated = replaceAt(
            json,
            all[pick % all.length] as string[],
            fixZeros(replacement) as Json,
          );
          fc.pre(!ajv.compile(expandSchema(schema) as object)(mutated));
          const error = await rejection(lift(mutated, schema));
          expect(resolve(mutated, error.path).found).toBe(true);
          expect(error.schemaPath.startsWith('#')).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test(`arbitrary JSON against a fixed schema: refused whenever ajv refuses it, with a path (${RUNS} runs)`, async () => {
    const schema = {
      type: 'object',
      properties: {
        at: { webType: 'Date' },
        tags: { webType: 'Set', items: { type: 'string' } },
        n: { type: 'integer', minimum: 0 },
      },
      required: ['n'],
      additionalProperties: false,
    } as JsonSchema;
    const validate = ajv.compile(expandSchema(schema) as object);
    await fc.assert(
      fc.asyncProperty(fc.jsonValue().map(fixZeros), async (input) => {
        const outcome = await lift(input, schema).then(
          () => null,
          (error: { path: string }) => error,
        );
        if (!validate(input)) {
          expect(outcome).not.toBeNull();
          expect(resolve(input, (outcome as { path: string }).path).found).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
