/**
 * Issue 16, item 2: the light page checks with @cfworker/json-schema first (8 KB, not ajv's 49
 * KB) and ajv takes over where eval is allowed (validation/load.ts). Both engines must report
 * the same `{path, reason, schemaPath}` for the same failure, and the switch must happen by the
 * rule: after AJV_AFTER_MS of cfworker checks, or at once for a `webType` below the top.
 */
import { describe, expect, it, vi } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { createValidator as createAjv } from '../src/validation/ajv.js';
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
