/**
 * Issue 16, item 2: the light page checks with @cfworker/json-schema first (8 KB, not ajv's 49
 * KB) and ajv takes over where eval is allowed (validation/load.ts). Both engines must report
 * the same `{path, reason, schemaPath}` for the same failure, and the switch must happen by the
 * rule: after AJV_AFTER_MS of cfworker checks, or at once for a `webType` below the top.
 */
import { describe, expect, it, vi } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { createValidator as createAjv } from '../src/validation/ajv.js';
import { schemaAt } from '../src/validation/ajv-words.js';
import { createValidator as createCfworker } from '../src/validation/cfworker.js';

const SCHEMA = {
  type: 'object',
  properties: {
    list: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 0 },
    either: { type: ['string', 'null'] },
    three: { const: 3 },
    mail: { type: 'string', format: 'email' },
    even: { multipleOf: 2 },
    counts: { type: 'object', additionalProperties: { type: 'integer' } },
    field: { type: 'string', minLength: 3 },
    color: { type: 'string', enum: ['red', 'green'] },
    code: { type: 'string', pattern: '^[a-z]+$' },
    age: { type: 'integer', minimum: 0, exclusiveMaximum: 120 },
  },
  required: ['x', 'y/z'],
  additionalProperties: false,
};

const INPUTS = [
  {
    list: [1],
    either: 3,
    three: 4,
    mail: 'nope',
    even: 3,
    counts: { k: 's' },
    extra: 1,
    field: 'f',
    color: 'blue',
    code: 'ABC',
    age: -1,
  },
  { age: 120, x: 1, 'y/z': 2 },
  { age: 'old' },
  [],
];

const sorted = (issues: unknown[] | null) => (issues ?? []).map((i) => JSON.stringify(i)).sort();

describe('the engines report failures alike', () => {
  it('ajv and cfworker give the same issues, keyword by keyword', async () => {
    const [ajv, cfworker] = [await createAjv(), await createCfworker()];
    for (const mode of ['structured', 'json'] as const) {
      for (const input of INPUTS) {
        const expected = ajv.compile(SCHEMA, mode)(input);
        expect(expected).not.toBeNull();
        expect(sorted(cfworker.compile(SCHEMA, mode)(input))).toEqual(sorted(expected));
      }
    }
  });

  it('a webType failure reads the same', async () => {
    const [ajv, cfworker] = [await createAjv(), await createCfworker()];
    const schema = { webType: 'Date' };
    expect(cfworker.compile(schema, 'structured')('2026')).toEqual(
      ajv.compile(schema, 'structured')('2026'),
    );
  });
});

/**
 * Schemas that reach keywords through `$ref` (`$defs`, `definitions`, pointers into the
 * schema, recursion, a chain, escaped names), each with an input that fails in several places.
 */
const REF_CASES: { name: string; schema: object; input: unknown }[] = [
  {
    name: '$defs: type, minLength, required, additionalProperties false',
    schema: {
      type: 'object',
      properties: { home: { $ref: '#/$defs/address' }, work: { $ref: '#/$defs/address' } },
      $defs: {
        address: {
          type: 'object',
          properties: { street: { type: 'string', minLength: 2 }, zip: { pattern: '^[0-9]+$' } },
          required: ['street'],
          additionalProperties: false,
        },
      },
    },
    input: { home: { street: 1, zip: 'x', extra: true }, work: { street: 'a' } },
  },
  {
    name: 'draft-07 definitions, through items',
    schema: {
      type: 'array',
      items: { $ref: '#/definitions/count' },
      definitions: { count: { type: 'integer', minimum: 0, maximum: 9 } },
    },
    input: [1, -1, 'x', 10, 2.5],
  },
  {
    name: 'a pointer into properties, and $ref beside other keywords',
    schema: {
      type: 'object',
      properties: {
        a: { type: 'string', maxLength: 3 },
        b: { $ref: '#/properties/a' },
        c: { $ref: '#/properties/a', minLength: 2 },
      },
    },
    input: { b: 3, c: 'abcde', a: 'abcd' },
  },
  {
    name: 'recursion: a linked list from the root $ref',
    schema: {
      $ref: '#/$defs/node',
      $defs: {
        node: {
          type: 'object',
          properties: { value: { type: 'number' }, next: { $ref: '#/$defs/node' } },
          required: ['value'],
        },
      },
    },
    input: { value: 1, next: { value: 'two', next: { next: { value: true } } } },
  },
  {
    name: 'recursion through the root (#)',
    schema: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#' } },
      },
      additionalProperties: false,
    },
    input: { name: 'a', children: [{ name: 2 }, { children: [{ x: 1 }] }] },
  },
  {
    name: 'a chain of $refs and names that need escaping',
    schema: {
      type: 'object',
      properties: {
        x: { $ref: '#/$defs/a%20b' },
        y: { $ref: '#/$defs/c~1d' },
        z: { $ref: '#/$defs/first' },
      },
      $defs: {
        'a b': { enum: [1, 2] },
        'c/d': { const: 'c' },
        first: { $ref: '#/$defs/second' },
        second: { type: 'object', properties: { 't~x': { type: 'boolean' } } },
      },
    },
    input: { x: 3, y: 'd', z: { 't~x': 'no' } },
  },
  {
    name: 'inside allOf and anyOf',
    schema: {
      type: 'object',
      properties: {
        code: { allOf: [{ $ref: '#/$defs/upper' }, { $ref: '#/$defs/short' }] },
        either: { anyOf: [{ $ref: '#/$defs/short' }, { type: 'number' }] },
      },
      $defs: { upper: { pattern: '^[A-Z]+$' }, short: { type: 'string', maxLength: 2 } },
    },
    input: { code: 'abc', either: true },
  },
  {
    name: 'oneOf and if/then/else of $refs',
    schema: {
      type: 'array',
      items: {
        oneOf: [{ $ref: '#/$defs/small' }, { $ref: '#/$defs/even' }],
        if: { $ref: '#/$defs/small' },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's then keyword, not a thenable.
        then: { $ref: '#/$defs/positive' },
        else: { $ref: '#/$defs/even' },
      },
      $defs: {
        small: { type: 'integer', maximum: 9 },
        even: { type: 'integer', multipleOf: 2 },
        positive: { minimum: 1 },
      },
    },
    input: [4, 0, 13, 'x'],
  },
];

describe('the engines report failures alike through $ref', () => {
  for (const { name, schema, input } of REF_CASES) {
    it(name, async () => {
      const [ajv, cfworker] = [await createAjv(), await createCfworker()];
      for (const mode of ['structured', 'json'] as const) {
        const expected = ajv.compile(schema, mode)(input) ?? [];
        const got = cfworker.compile(schema, mode)(input) ?? [];
        expect(got.length).toBeGreaterThan(1);
        expect(sorted(got)).toEqual(sorted(expected));
        for (const issue of got) {
          // In words a person can act on, and at a place that is in the schema: the keyword
          // where the $ref leads, never cfworker's own words or a value it could not find.
          expect(issue.reason).not.toMatch(/undefined|boolean schema/i);
          const keyword = issue.schemaPath.split('/').at(-1) as string;
          expect(schemaAt(schema, issue.schemaPath), issue.schemaPath).toBeDefined();
          expect(issue.schemaPath).not.toContain('$ref');
          expect(keyword).not.toBe('');
        }
      }
    });
  }
});

describe('the default engine', () => {
  async function freshLoader() {
    vi.resetModules();
    return import('../src/validation/load.js');
  }

  it('is cfworker, until its checks have cost AJV_AFTER_MS; then ajv checks', async () => {
    // The loader's own request for ajv, seen through this mock.
    const requested = vi.fn();
    vi.doMock('../src/validation/ajv.js', async (importOriginal) => {
      const actual = await importOriginal<typeof import('../src/validation/ajv.js')>();
      return {
        createValidator: () => {
          requested();
          return actual.createValidator();
        },
      };
    });
    try {
      const { AJV_AFTER_MS, loadValidator } = await freshLoader();
      const validator = await loadValidator();
      expect(validator.engine).toBe('cfworker');
      const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
      const check = validator.compile(schema, 'structured');
      // What a check costs is what this clock says (each check reads it before and after): on
      // a loaded machine the wall clock would make a few quick checks look slow.
      let time = 0;
      const costing = (ms: number) => {
        const clock = vi
          .spyOn(performance, 'now')
          .mockImplementationOnce(() => time)
          .mockImplementationOnce(() => {
            time += ms;
            return time;
          });
        try {
          check({ n: 1 });
        } finally {
          clock.mockRestore();
        }
      };
      // A few checks cost far less than AJV_AFTER_MS, and one more brings them just short of
      // it: still cfworker, nothing loading.
      for (let i = 0; i < 10; i++) costing(1);
      costing(AJV_AFTER_MS - 11);
      expect(time).toBe(AJV_AFTER_MS - 1);
      // A barrier: this import of the same module comes after any the checks made.
      await import('../src/validation/ajv.js');
      expect(requested).not.toHaveBeenCalled();
      expect(validator.engine).toBe('cfworker');
      // The check that reaches the mark starts the load; every check moves to ajv once loaded.
      costing(1);
      await until(() => validator.engine === 'ajv', 'ajv took over');
      expect(requested).toHaveBeenCalledTimes(1);
      expect(AJV_AFTER_MS).toBe(20);
      // The same check, now ajv's, and a new schema's: the same words.
      expect(check({ n: 1.5 })).toEqual([
        { path: '/n', reason: 'must be integer', schemaPath: '#/properties/n/type' },
      ]);
      expect(validator.compile({ type: 'string' }, 'json')(1)).toEqual([
        { path: '', reason: 'must be string', schemaPath: '#/type' },
      ]);
    } finally {
      vi.doUnmock('../src/validation/ajv.js');
    }
  });

  it('loads ajv before the first check of a webType below the top', async () => {
    const { loadValidator } = await freshLoader();
    const validator = await loadValidator();
    const schema = { type: 'object', properties: { when: { webType: 'Date' } } };
    expect(validator.ready?.({ webType: 'Date' }, 'structured')).toBeUndefined();
    expect(validator.ready?.(schema, 'json')).toBeUndefined();
    await validator.ready?.(schema, 'structured');
    expect(validator.engine).toBe('ajv');
    expect(validator.compile(schema, 'structured')({ when: '2026-01-01' })).toEqual([
      { path: '/when', reason: 'must be a Date', schemaPath: '#/properties/when/webType' },
    ]);
  });
});
