import { describe, expect, test } from 'vitest';
import { expandSchema, type JsonSchema, lift, lower, WEB_TYPES } from '../src/index.js';
import { expectCode, thrown } from './support/expect-error.js';
import { loadFixture } from './support/fixtures.js';

// How schemas are read: the webType keyword and its expansion (LOWERING.md §1), the keywords
// lift and lower check themselves, and the ones they refuse rather than ignore (§4).

describe('the webType keyword', () => {
  test('[W1] an unknown webType is unsupported_schema in lower, lift and expandSchema', async () => {
    const schema = {
      type: 'object',
      properties: { a: { webType: 'Temporal' } },
    } as unknown as JsonSchema;
    await expectCode(lower({ a: 1 }, schema), 'unsupported_schema', '', '#/properties/a/webType');
    await expectCode(lift({ a: 1 }, schema), 'unsupported_schema', '', '#/properties/a/webType');
    expect(thrown(() => expandSchema(schema)).schemaPath).toBe('#/properties/a/webType');
  });

  test('[W1] [V2] every allow-listed type compiles and expands to a schema without webType', () => {
    for (const webType of WEB_TYPES) {
      const expanded = JSON.stringify(expandSchema({ webType }));
      expect(expanded).not.toContain('webType');
    }
  });

  test('[W2] only annotations and the type parameters may stand beside webType', async () => {
    const bad = { webType: 'Date', type: 'string' } as JsonSchema;
    await expectCode(lift('2020-01-01T00:00:00Z', bad), 'unsupported_schema', '', '#/type');
    expect(thrown(() => expandSchema(bad)).code).toBe('unsupported_schema');
    await expectCode(lift([], { webType: 'Set', keys: {} }), 'unsupported_schema', '', '#/keys');
    const annotated = {
      webType: 'Date',
      title: 'When',
      description: 'The meeting start',
      examples: ['2024-01-01T00:00:00.000Z'],
      'x-ui': 'date-picker',
    } as JsonSchema;
    expect(await lift('2024-01-01T00:00:00.000Z', annotated)).toEqual(
      new Date('2024-01-01T00:00:00.000Z'),
    );
    expect(expandSchema(annotated)).toEqual({
      title: 'When',
      description: 'The meeting start',
      examples: ['2024-01-01T00:00:00.000Z'],
      'x-ui': 'date-picker',
      type: 'string',
      format: 'date-time',
    });
  });

  test('[W3] expandSchema reaches every keyword that holds schemas, and copies the rest', () => {
    const d = { webType: 'Date' };
    const dx = { type: 'string', format: 'date-time' };
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { when: d },
      definitions: { when: d },
      type: 'object',
      // JSON.parse keeps __proto__ an own key, as a schema read off the wire has it.
      properties: JSON.parse('{"a": {"webType": "Date"}, "__proto__": {"webType": "Date"}}'),
      patternProperties: { '^x': d },
      additionalProperties: d,
      propertyNames: { maxLength: 3 },
      dependentSchemas: { a: { properties: { b: d } } },
      if: d,
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's then keyword, not a thenable.
      then: d,
      else: d,
      not: d,
      allOf: [d],
      anyOf: [d, { type: 'null' }],
      oneOf: [d],
      unevaluatedProperties: d,
      enum: [{ webType: 'Date' }],
      default: { webType: 'Date' },
      items: d,
      prefixItems: [d],
      contains: d,
      unevaluatedItems: d,
    } as JsonSchema;
    const before = JSON.stringify(schema);
    const out = expandSchema(schema) as Record<string, unknown>;
    expect(JSON.stringify(schema)).toBe(before); // the input is not touched
    expect(out).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { when: dx },
      definitions: { when: dx },
      type: 'object',
      properties: JSON.parse(
        '{"a": {"type":"string","format":"date-time"}, "__proto__": {"type":"string","format":"date-time"}}',
      ),
      patternProperties: { '^x': dx },
      additionalProperties: dx,
      propertyNames: { maxLength: 3 },
      dependentSchemas: { a: { properties: { b: dx } } },
      if: dx,
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's then keyword, not a thenable.
      then: dx,
      else: dx,
      not: dx,
      allOf: [dx],
      anyOf: [dx, { type: 'null' }],
      oneOf: [dx],
      unevaluatedProperties: dx,
      // enum and default are data, not schemas: copied as they are.
      enum: [{ webType: 'Date' }],
      default: { webType: 'Date' },
      items: dx,
      prefixItems: [dx],
      contains: dx,
      unevaluatedItems: dx,
    });
    expect(Object.hasOwn(out.properties as object, '__proto__')).toBe(true);
  });

  test('[W3] [T10] the four image types publish one form', () => {
    const { expanded } = loadFixture('types/image.json');
    for (const webType of ['ImageBitmap', 'ImageData', 'HTMLCanvasElement', 'OffscreenCanvas']) {
      expect(expandSchema({ webType } as JsonSchema)).toEqual(expanded);
    }
  });

  test('[W3] Map expansions follow the form rule, through $ref too', () => {
    expect(expandSchema({ webType: 'Map', keys: { type: 'string', maxLength: 4 } })).toEqual({
      type: 'object',
      propertyNames: { type: 'string', maxLength: 4 },
      additionalProperties: true,
    });
    expect(
      expandSchema({
        $defs: { k: { webType: 'BigInt' } },
        webType: 'Map',
        keys: { $ref: '#/$defs/k' },
      }),
    ).toEqual({
      $defs: { k: { type: 'string', pattern: '^-?[0-9]+$' } },
      type: 'object',
      propertyNames: { $ref: '#/$defs/k' },
      additionalProperties: true,
    });
    expect(expandSchema({ webType: 'Map', keys: { anyOf: [{ type: 'string' }] } })).toMatchObject({
      type: 'array',
    });
  });

  test('[W4] keys, values and cause need webType beside them', async () => {
    await expectCode(
      lift({}, { type: 'object', values: {} }),
      'unsupported_schema',
      '',
      '#/values',
    );
    await expectCode(lower({}, { cause: {} }), 'unsupported_schema', '', '#/cause');
    expect(thrown(() => expandSchema({ keys: {} })).schemaPath).toBe('#/keys');
  });
});

describe('keywords lift and lower check themselves [L6]', () => {
  const cases: [string, JsonSchema, unknown, string][] = [
    ['minLength', { minLength: 2 }, 'a', '#/minLength'],
    ['maxLength', { maxLength: 1 }, 'ab', '#/maxLength'],
    ['pattern', { pattern: '^a+$' }, 'ab', '#/pattern'],
    ['minimum', { minimum: 2 }, 1, '#/minimum'],
    ['maximum', { maximum: 2 }, 3, '#/maximum'],
    ['exclusiveMinimum', { exclusiveMinimum: 2 }, 2, '#/exclusiveMinimum'],
    ['exclusiveMaximum', { exclusiveMaximum: 2 }, 2, '#/exclusiveMaximum'],
    ['multipleOf', { multipleOf: 2 }, 3, '#/multipleOf'],
    ['minProperties', { minProperties: 2 }, { a: 1 }, '#/minProperties'],
    ['maxProperties', { maxProperties: 0 }, { a: 1 }, '#/maxProperties'],
    ['minItems', { minItems: 2 }, [1], '#/minItems'],
    ['maxItems', { maxItems: 0 }, [1], '#/maxItems'],
    ['enum', { enum: [1, 2] }, 3, '#/enum'],
    ['const', { const: 'a' }, 'b', '#/const'],
    ['items: false', { prefixItems: [{}], items: false }, [1, 2], '#/items'],
    ['not', { not: { type: 'string' } }, 'a', '#/not'],
    ['allOf', { allOf: [{ type: 'string' }, { minLength: 3 }] }, 'ab', '#/allOf/1/minLength'],
    [
      'propertyNames',
      { propertyNames: { pattern: '^[a-z]+$' } },
      { A: 1 },
      '#/propertyNames/pattern',
    ],
  ];
  for (const [keyword, schema, value, schemaPath] of cases) {
    test(`${keyword}: lift refuses, and so does lower [L12]`, async () => {
      await expectCode(lift(value, schema), 'constraint_failed', undefined, schemaPath);
      await expectCode(lower(value, schema), 'constraint_failed', undefined, schemaPath);
    });
  }

  test('uniqueItems compares JSON forms, keys in any order', async () => {
    const schema = { type: 'array', uniqueItems: true } as JsonSchema;
    await expectCode(
      lift(
        [
          { a: 1, b: [2] },
          { b: [2], a: 1 },
        ],
        schema,
      ),
      'duplicate_entry',
      '/1',
      '#/uniqueItems',
    );
    await expectCode(lower([1, 1], schema), 'duplicate_entry', '/1', '#/uniqueItems');
    expect(await lift([1, '1', [1], { a: 1 }, { a: 2 }], schema)).toEqual([
      1,
      '1',
      [1],
      { a: 1 },
      { a: 2 },
    ]);
  });

  test('the type keyword: integer admits only whole numbers, number admits both, arrays of types', async () => {
    expect(
      await lift([1, 2.5, null], { type: 'array', items: { type: ['number', 'null'] } }),
    ).toEqual([1, 2.5, null]);
    await expectCode(lift(2.5, { type: 'integer' }), 'type_mismatch', '', '#/type');
    await expectCode(lower('x', { type: 'number' }), 'type_mismatch', '', '#/type');
  });

  test('[L7] default is never filled in, and format is not checked on plain strings', async () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'integer', default: 5 },
        d: { type: 'string', format: 'date-time' },
      },
    } as JsonSchema;
    expect(await lift({ d: 'not a date' }, schema)).toEqual({ d: 'not a date' });
  });
});

describe('keywords neither lift nor lower implement are refused [L8]', () => {
  const refused: [string, JsonSchema][] = [
    ['patternProperties', { patternProperties: { '^a': { type: 'string' } } }],
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's then keyword, not a thenable.
    ['if/then/else', { if: { type: 'string' }, then: { minLength: 1 } }],
    ['dependentSchemas', { dependentSchemas: { a: { required: ['b'] } } }],
    ['dependentRequired', { dependentRequired: { a: ['b'] } }],
    ['unevaluatedProperties', { unevaluatedProperties: false }],
    ['contains', { contains: { type: 'string' } }],
    ['$anchor', { $anchor: 'x' }],
    ['$dynamicRef', { $dynamicRef: '#x' }],
    ['array-form items', { items: [{ type: 'string' }] } as unknown as JsonSchema],
    ['nested $id', { properties: { a: { $id: 'https://example.com/a' } } }],
    ['a misspelled keyword', { requried: ['a'] }],
  ];
  for (const [name, schema] of refused) {
    test(name, async () => {
      expect((await expectCode(lift({}, schema), 'unsupported_schema')).path).toBe('');
      await expectCode(lower({}, schema), 'unsupported_schema');
      // expandSchema passes them through for validators that implement them.
      expect(() => expandSchema(schema)).not.toThrow();
    });
  }

  test('a malformed keyword value is refused, not misread', async () => {
    await expectCode(lift('a', { minLength: -1 }), 'unsupported_schema', '', '#/minLength');
    await expectCode(lift('a', { pattern: '(' }), 'unsupported_schema', '', '#/pattern');
    await expectCode(lift('a', { type: 'text' }), 'unsupported_schema', '', '#/type');
    await expectCode(
      lift('a', { required: 'a' } as unknown as JsonSchema),
      'unsupported_schema',
      '',
      '#/required',
    );
    await expectCode(lift('a', 5 as unknown as JsonSchema), 'unsupported_schema', '', '#');
  });

  test('a schema object that contains itself is refused (use $ref)', async () => {
    const schema: Record<string, unknown> = { type: 'object', properties: {} };
    (schema.properties as Record<string, unknown>).self = schema;
    await expectCode(lift({}, schema as JsonSchema), 'unsupported_schema', '', '#/properties/self');
    expect(thrown(() => expandSchema(schema as JsonSchema)).code).toBe('unsupported_schema');
  });
});

describe('combinators', () => {
  const maybeDate = { anyOf: [{ webType: 'Date' }, { type: 'null' }] } as JsonSchema;

  test('[L9] anyOf: the first branch that fits produces the value, web types included', async () => {
    expect(await lower(new Date(0), maybeDate)).toBe('1970-01-01T00:00:00.000Z');
    expect(await lower(null, maybeDate)).toBeNull();
    expect(await lift('1970-01-01T00:00:00.000Z', maybeDate)).toEqual(new Date(0));
    expect(await lift(null, maybeDate)).toBeNull();
    const either = { anyOf: [{ type: 'string' }, { webType: 'Date' }] } as JsonSchema;
    expect(await lift('1970-01-01T00:00:00.000Z', either)).toBe('1970-01-01T00:00:00.000Z');
  });

  test('[L9] no branch fits: no_matching_branch, caused by the branch that got furthest', async () => {
    const schema = {
      anyOf: [{ type: 'string' }, { type: 'object', properties: { when: { webType: 'Date' } } }],
    } as JsonSchema;
    const error = await expectCode(
      lift({ when: 'soon' }, schema),
      'no_matching_branch',
      '',
      '#/anyOf',
    );
    expect(error.cause).toMatchObject({ code: 'invalid_value', path: '/when' });
    await expectCode(lower(5, maybeDate), 'no_matching_branch', '', '#/anyOf');
  });

  test('[L9] oneOf: exactly one branch', async () => {
    const schema = { oneOf: [{ type: 'integer' }, { type: 'number' }] } as JsonSchema;
    expect(await lift(1.5, schema)).toBe(1.5);
    await expectCode(lift(1, schema), 'no_matching_branch', '', '#/oneOf');
    await expectCode(lower(1, schema), 'no_matching_branch', '', '#/oneOf');
    await expectCode(lift('1', schema), 'no_matching_branch', '', '#/oneOf');
  });

  test('[L10] allOf, not, propertyNames and keywords beside anyOf only check: no webType inside', async () => {
    await expectCode(
      lift('x', { allOf: [{ webType: 'Date' }] }),
      'unsupported_schema',
      '',
      '#/allOf/0',
    );
    await expectCode(lift('x', { not: { webType: 'Date' } }), 'unsupported_schema', '', '#/not');
    await expectCode(
      lift({}, { propertyNames: { webType: 'Date' } } as JsonSchema),
      'unsupported_schema',
      '',
      '#/propertyNames',
    );
    await expectCode(
      lift(null, {
        anyOf: [{ type: 'null' }],
        properties: { a: { webType: 'Date' } },
      } as JsonSchema),
      'unsupported_schema',
    );
    const checked = {
      type: 'object',
      required: ['a'],
      anyOf: [{ properties: { a: { type: 'string' } } }],
    } as JsonSchema;
    await expectCode(lift({}, checked), 'missing_property', '', '#/required');
    expect(await lift({ a: 'x' }, checked)).toEqual({ a: 'x' });
  });

  test('[L11] $ref: same-document pointers, recursion, nothing else', async () => {
    const tree = {
      $defs: {
        node: {
          type: 'object',
          properties: {
            at: { webType: 'Date' },
            kids: { type: 'array', items: { $ref: '#/$defs/node' } },
          },
        },
      },
      $ref: '#/$defs/node',
    } as JsonSchema;
    const value = { at: new Date(0), kids: [{ at: new Date(1), kids: [] }] };
    const json = await lower(value, tree);
    expect(json).toEqual({
      at: '1970-01-01T00:00:00.000Z',
      kids: [{ at: '1970-01-01T00:00:00.001Z', kids: [] }],
    });
    expect(await lift(json, tree)).toEqual(value);
    await expectCode(
      lift({ kids: [{ at: 5 }] }, tree),
      'type_mismatch',
      '/kids/0/at',
      '#/$defs/node/properties/at/webType',
    );
    const self = { type: 'array', items: { $ref: '#' } } as JsonSchema;
    expect(await lift([[[]]], self)).toEqual([[[]]]);
    await expectCode(
      lift(1, { $ref: 'https://example.com/s.json' }),
      'unsupported_schema',
      '',
      '#/$ref',
    );
    await expectCode(lift(1, { $ref: '#/$defs/missing' }), 'unsupported_schema', '', '#/$ref');
    const escaped = { $defs: { 'a/b': { type: 'string' } }, $ref: '#/$defs/a~1b' } as JsonSchema;
    await expectCode(lift(1, escaped), 'type_mismatch', '', '#/$defs/a~1b/type');
  });
});

describe('web types come only from the schema', () => {
  test('[L2] [M7] lifting never guesses a type from the data', async () => {
    const json = {
      when: '2024-01-01T00:00:00.000Z',
      file: { mimeType: 'text/plain', data: 'aGk=' },
      n: '12',
    };
    expect(await lift(json, {})).toEqual(json);
    expect(await lift(json, { type: 'object' })).toEqual(json);
  });

  test('[L12] a web value under a plain schema must be declared', async () => {
    await expectCode(
      lower({ m: new Map() }, { type: 'object', properties: { m: { type: 'object' } } }),
      'type_mismatch',
      '/m',
      '#/properties/m',
    );
    expect(await lower({ m: new Map([['a', 1]]) }, { type: 'object' })).toEqual({ m: { a: 1 } });
  });

  test('schemas compile once: the same schema object gives the same answers', async () => {
    const schema = { type: 'object', properties: { d: { webType: 'Date' } } } as JsonSchema;
    for (let i = 0; i < 3; i++)
      expect(await lift({ d: '1970-01-01T00:00:00Z' }, schema)).toEqual({ d: new Date(0) });
  });
});
