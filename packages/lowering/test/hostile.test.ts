import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type JsonSchema, lift, lower } from '../src/index.js';
import { expectCode } from './support/expect-error.js';

// Security is a fixture (docs/style.md 14): prototype-pollution keys, absurd nesting, oversized
// binary, exploding graphs. Each ends in a coded error or plain data, never a crash, and the
// global prototypes stay as they were.

const prototypes = [Object.prototype, Array.prototype, Function.prototype, Error.prototype];
let snapshot: string[][];

function names(target: object): string[] {
  return Reflect.ownKeys(target).map(String).sort();
}

beforeAll(() => {
  snapshot = prototypes.map(names);
});

afterAll(() => {
  // Nothing below may have added, removed or replaced a property of a global prototype.
  expect(prototypes.map(names)).toEqual(snapshot);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

// Spelled as text: an object literal's `__proto__:` would set a prototype, not make a key.
const HOSTILE_TEXT =
  '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},' +
  '"prototype":{"polluted":true},"nested":[{"__proto__":{"polluted":true}}]}';

describe('prototype-pollution keys stay plain data [P2]', () => {
  /** The object that carried the hostile keys must hold them as its own, and stay ordinary. */
  function expectPlainCarrier(record: unknown): void {
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.keys(record as object)).toEqual([
      '__proto__',
      'constructor',
      'prototype',
      'nested',
    ]);
    expect((record as { polluted?: unknown }).polluted).toBeUndefined();
    const nested = (record as { nested: object[] }).nested[0] as object;
    expect(Object.getPrototypeOf(nested)).toBe(Object.prototype);
    expect(Object.hasOwn(nested, '__proto__')).toBe(true);
  }

  test('lift under {} and under a typed schema', async () => {
    const typed = {
      type: 'object',
      properties: { nested: { type: 'array', items: { type: 'object' } } },
    };
    for (const schema of [{}, typed] as JsonSchema[]) {
      const input = JSON.parse(HOSTILE_TEXT);
      const out = await lift(input, schema);
      expectPlainCarrier(out);
      expect(JSON.stringify(await lower(out, schema))).toBe(HOSTILE_TEXT);
    }
  });

  test('lift of a Map in object form: the keys become Map keys', async () => {
    const schema = { webType: 'Map', keys: { type: 'string' } } as JsonSchema;
    const out = (await lift(JSON.parse(HOSTILE_TEXT), schema)) as Map<string, unknown>;
    expect([...out.keys()]).toEqual(['__proto__', 'constructor', 'prototype', 'nested']);
    expect(out.get('__proto__')).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(out.get('__proto__'))).toBe(Object.prototype);
    expect(JSON.stringify(await lower(out, schema))).toBe(HOSTILE_TEXT);
  });

  test('lift of a Map in pairs form: a hostile record as a value', async () => {
    const text = `[["__proto__",${HOSTILE_TEXT}]]`;
    const out = (await lift(JSON.parse(text), { webType: 'Map' })) as Map<string, unknown>;
    expectPlainCarrier(out.get('__proto__'));
    expect(JSON.stringify(await lower(out, { webType: 'Map' }))).toBe(text);
  });

  test('lower of values carrying own __proto__ keys', async () => {
    const value = JSON.parse(HOSTILE_TEXT);
    const json = (await lower(value)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(json)).toBe(Object.prototype);
    expect(Object.keys(json)).toEqual(['__proto__', 'constructor', 'prototype', 'nested']);
    expect(JSON.stringify(json)).toBe(HOSTILE_TEXT);
  });

  test('[P1] an error record names a constructor only from the fixed table', async () => {
    for (const name of [
      'Function',
      'eval',
      '__proto__',
      'constructor',
      'Object',
      'AggregateError',
      'DOMException',
    ]) {
      const error = (await lift({ name, message: 'x' }, { webType: 'Error' })) as Error;
      expect(Object.getPrototypeOf(error)).toBe(Error.prototype);
      expect(error.name).toBe(name);
      expect(error.message).toBe('x');
    }
    const typed = await lift({ name: 'TypeError', message: 'x' }, { webType: 'Error' });
    expect(Object.getPrototypeOf(typed)).toBe(TypeError.prototype);
  });
});

describe('10,000-deep nesting [X1]', () => {
  const deepArrays = JSON.parse(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
  const deepObjects = JSON.parse(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`);

  test('lift refuses at the limit, with the path down to it', async () => {
    const error = await expectCode(lift(deepArrays, {}), 'depth_exceeded');
    expect(error.path).toBe('/0'.repeat(128));
    await expectCode(lift(deepObjects, { type: 'object' }), 'depth_exceeded');
    await expectCode(lift(deepArrays, { type: 'array', items: { $ref: '#' } }), 'depth_exceeded');
    await expectCode(lift(deepArrays, {}, { maxDepth: 1000 }), 'depth_exceeded');
  });

  test('lower refuses the same way, and a cycle is not mistaken for depth', async () => {
    await expectCode(lower(deepArrays), 'depth_exceeded');
    await expectCode(lower(deepObjects, {}, { maxDepth: 1000 }), 'depth_exceeded');
    const error = await expectCode(
      lower(deepObjects, { type: 'object', additionalProperties: { $ref: '#' } }),
      'depth_exceeded',
    );
    expect(error.path.startsWith('/a/a/a')).toBe(true);
  });

  test('the root container is level 1', async () => {
    expect(await lift([[1]], {}, { maxDepth: 2 })).toEqual([[1]]);
    await expectCode(lift([[[1]]], {}, { maxDepth: 2 }), 'depth_exceeded', '/0/0');
    expect(await lower([[1]], undefined, { maxDepth: 2 })).toEqual([[1]]);
    await expectCode(lower([[[1]]], undefined, { maxDepth: 2 }), 'depth_exceeded', '/0/0');
  });
});

describe('binary past the limit [X3]', () => {
  // 44,739,244 symbols decode to 33,554,433 bytes: one byte over the 32 MiB default.
  const oversized = 'AAAA'.repeat(11_184_811);

  test('a base64 string that decodes past maxBinaryBytes is refused before decoding', async () => {
    await expectCode(
      lift(oversized, { webType: 'Uint8Array' }),
      'binary_too_large',
      '',
      '#/webType',
    );
    await expectCode(
      lift({ mimeType: 'text/plain', data: oversized }, { webType: 'Blob' }),
      'binary_too_large',
      '/data',
    );
    await expectCode(
      lift(
        { mimeType: 'image/png', data: oversized, width: 1, height: 1 },
        { webType: 'ImageData' },
      ),
      'binary_too_large',
      '/data',
    );
  });

  test('the same limit binds lower, and is an option', async () => {
    await expectCode(lower(new Uint8Array(32 * 1024 * 1024 + 1)), 'binary_too_large');
    expect(await lower(new Uint8Array(4), undefined, { maxBinaryBytes: 4 })).toBe('AAAAAA==');
    await expectCode(
      lower(new Uint8Array(5), undefined, { maxBinaryBytes: 4 }),
      'binary_too_large',
    );
    await expectCode(
      lower(new Blob(['12345']), undefined, { maxBinaryBytes: 4 }),
      'binary_too_large',
    );
    await expectCode(
      lift('AAAAAAA=', { webType: 'ArrayBuffer' }, { maxBinaryBytes: 4 }),
      'binary_too_large',
    );
    expect(
      await lift('AAAAAA==', { webType: 'ArrayBuffer' }, { maxBinaryBytes: 4 }),
    ).toBeInstanceOf(ArrayBuffer);
  });
});

describe('graphs that explode when copied [C2] [C3]', () => {
  test('2^40 paths through shared arrays stop at maxJsonBytes, quickly', async () => {
    let value: unknown = 'x';
    for (let i = 0; i < 40; i++) value = [value, value];
    const started = Date.now();
    await expectCode(lower(value, undefined, { maxJsonBytes: 1024 * 1024 }), 'json_too_large');
    await expectCode(lift(value, {}, { maxJsonBytes: 1024 * 1024 }), 'json_too_large');
    // Not a timing assertion on speed, only that the walk stopped instead of running for hours:
    // a bound a loaded machine never comes near (it takes a second or two there).
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000); // the bound above, with room: not the 20 s default

  test('shared references are copied; lifted objects share nothing, with the input neither [L5]', async () => {
    const shared = { x: 1 };
    const input = { a: shared, b: shared, list: [shared] };
    const out = (await lift(input, {})) as typeof input;
    expect(out).toEqual(input);
    expect(out.a).not.toBe(out.b);
    expect(out.a).not.toBe(shared);
    expect(out.list).not.toBe(input.list);
    const lowered = (await lower(input)) as typeof input;
    expect(lowered.a).not.toBe(lowered.b);
    expect(lowered.a).not.toBe(shared);
  });
});

describe('a hostile BigInt [X4]', () => {
  test('10,000 digits pass, 10,001 do not', async () => {
    const max = `-${'9'.repeat(10_000)}`;
    expect(await lift(max, { webType: 'BigInt' })).toBe(BigInt(max));
    await expectCode(lift(`${'9'.repeat(10_001)}`, { webType: 'BigInt' }), 'invalid_value');
    await expectCode(lift('1'.repeat(60_000_000), { webType: 'BigInt' }), 'invalid_value');
  });
});
