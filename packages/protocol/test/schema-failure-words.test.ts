import { describe, expect, it } from 'vitest';
import { createAjvProvider } from '../src/ajv.js';
import { schemaFailure } from '../src/index.js';
import type { JsonSchema } from '../src/messages.js';

// A schema failure's message is what a person reads first (the CLI's first line, what an MCP
// client shows, the extension panel): it says the problem as a person would, read against the
// schema. `details` keep the validator's words for machines, and the code does not change.

const CART_ADD = {
  type: 'object',
  properties: {
    sku: { type: 'string', minLength: 1, maxLength: 12 },
    qty: { type: 'integer', minimum: 1 },
    size: { enum: ['S', 'M', 'L'] },
    code: { type: 'string', pattern: '^[A-Z]+$' },
    ship: { $ref: '#/$defs/address' },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
  },
  required: ['sku'],
  additionalProperties: false,
  $defs: {
    address: {
      type: 'object',
      properties: { zip: { type: 'string', minLength: 5, maxLength: 5 } },
      required: ['zip'],
    },
  },
} as const;

async function argumentsFailure(args: unknown, schema: JsonSchema = CART_ADD) {
  const validate = await createAjvProvider().compile(schema);
  const check = validate(args);
  return check.valid ? undefined : schemaFailure('arguments', 'cart.add', check.errors, schema);
}

describe('a schema failure in words', () => {
  it('says the first problems as a person would; the details keep the validator words', async () => {
    // The honest path: arguments that fit get no failure at all.
    expect(await argumentsFailure({ sku: 'A-1', qty: 2, ship: { zip: '12345' } })).toBeUndefined();

    const missing = await argumentsFailure({ qty: 2 });
    expect(missing).toMatchObject({
      code: 'tool_arguments_schema_invalid',
      message: '`sku` is required',
      retryable: false,
      details: [
        { path: '$.sku', keyword: 'required', message: "must have required property 'sku'" },
      ],
    });
    // A bound and a type say the whole of what the value must be.
    for (const qty of [0, 1.5, 'two']) {
      expect((await argumentsFailure({ sku: 'A-1', qty }))?.message, String(qty)).toBe(
        '`qty` must be an integer >= 1',
      );
    }
  });

  it('names nested places, lengths, choices and unknown properties', async () => {
    expect(await argumentsFailure({ sku: 'A-1' })).toBeUndefined();
    const cases: [unknown, string][] = [
      [{ sku: '' }, '`sku` must be a string of 1 to 12 characters'],
      [{ sku: 'A', size: 'XL' }, '`size` must be one of "S", "M", "L"'],
      [{ sku: 'A', ship: {} }, '`ship.zip` is required'],
      [{ sku: 'A', ship: { zip: '1' } }, '`ship.zip` must be a string of 5 characters'],
      [{ sku: 'A', tags: ['a', 'b', 'c'] }, '`tags` must be an array of at most 2 items'],
      [{ sku: 'A', tags: ['a', 3] }, '`tags[1]` must be a string'],
      [{ sku: 'A', colour: 'red' }, '`colour` is not allowed'],
      // A keyword said by no bound: the validator's reason after the name.
      [{ sku: 'A', code: 'abc' }, '`code` must match pattern "^[A-Z]+$"'],
      ['A-1', 'the arguments must be an object'],
      [{}, '`sku` is required'],
    ];
    for (const [args, said] of cases) {
      expect((await argumentsFailure(args))?.message, JSON.stringify(args)).toBe(said);
    }
    const several = await argumentsFailure({ qty: 0, size: 'XL', colour: 'red', code: 'x' });
    expect(several?.message).toBe(
      '`sku` is required; `colour` is not allowed; `qty` must be an integer >= 1; and 2 more',
    );
    expect(several?.details).toHaveLength(5);
  });

  it("leaves out zod's safe-integer range, which no person would name", async () => {
    const zodInt = {
      type: 'object',
      properties: { qty: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
    };
    expect(await argumentsFailure({ qty: 1 }, zodInt)).toBeUndefined();
    expect((await argumentsFailure({ qty: 0 }, zodInt))?.message).toBe(
      '`qty` must be an integer >= 1',
    );
  });

  it("a zod schema's issues, read against the JSON Schema zod gave agents", async () => {
    const { z } = await import('zod');
    const cart = z.object({ sku: z.string().min(1), qty: z.number().int().min(1).default(1) });
    const json = z.toJSONSchema(cart, { io: 'input' });
    // As the polyfill carries them (standard-schema.ts): the path, zod's message, its code.
    const failure = async (value: unknown) => {
      const checked = await cart['~standard'].validate(value);
      if (!('issues' in checked) || !checked.issues) return undefined;
      const issues = checked.issues.map((issue) => ({
        path: (issue.path ?? []).map((key) => `/${String(key)}`).join(''),
        reason: issue.message,
        schemaPath: `~standard/zod/${(issue as { code?: string }).code}`,
      }));
      return schemaFailure('arguments', 'cart.add', issues, json).message;
    };
    expect(await failure({ sku: 'A-1' })).toBeUndefined();
    expect(await failure({ qty: 0 })).toBe('`sku` is required; `qty` must be an integer >= 1');
    expect(await failure({ sku: 'A-1', qty: 1.5 })).toBe('`qty` must be an integer >= 1');
    expect(await failure({ sku: '', qty: 'x' })).toBe(
      '`sku` must be a string of at least 1 character; `qty` must be an integer >= 1',
    );
    // A refinement says nothing the JSON Schema knows: zod's own words after the name.
    const custom = [
      { path: '/sku', reason: 'Unknown product', schemaPath: '~standard/zod/custom' },
    ];
    expect(schemaFailure('arguments', 'cart.add', custom, json).message).toBe(
      '`sku`: Unknown product',
    );
  });

  it('without the schema, the validator reason in plain words; results keep their prefix', () => {
    const issue = {
      path: '/qty',
      reason: 'must be integer,null',
      schemaPath: '#/properties/qty/type',
    };
    expect(schemaFailure('arguments', 't', [issue]).message).toBe(
      '`qty` must be an integer or null',
    );
    expect(schemaFailure('result', 't', [issue]).message).toBe(
      'The result of "t" does not match its resultSchema: `qty` must be an integer or null',
    );
    const standard = { path: '/n', reason: 'Expected number, got string.', schemaPath: '' };
    expect(schemaFailure('arguments', 't', [standard]).message).toBe(
      '`n`: Expected number, got string.',
    );
  });
});
