import { describe, expect, test, vi } from 'vitest';
import { failureKind, LOWERING_ERROR_CODES, LoweringError, lift, lower } from '../src/index.js';
import { expectCode, rejection } from './support/expect-error.js';

// The public surface: the error class and its code table, the package's lack of side
// effects, and the few rules that need a clock or a constructor check rather than a fixture.

describe('failureKind', () => {
  test("sorts every code: a schema's verdict, the value itself, the schema itself", async () => {
    const kinds = Object.fromEntries(
      Object.keys(LOWERING_ERROR_CODES).map((code) => [
        code,
        failureKind(new LoweringError(code as keyof typeof LOWERING_ERROR_CODES, 'x')),
      ]),
    );
    expect(kinds).toEqual({
      unsupported_type: 'value',
      unsupported_in_environment: 'value',
      unsupported_schema: 'definition',
      type_mismatch: 'schema',
      not_json: 'value',
      invalid_value: 'schema',
      missing_property: 'schema',
      unexpected_property: 'schema',
      constraint_failed: 'schema',
      no_matching_branch: 'schema',
      duplicate_entry: 'schema',
      cycle: 'value',
      read_failed: 'value',
      depth_exceeded: 'value',
      json_too_large: 'value',
      binary_too_large: 'value',
    });
    // What lower and lift really throw.
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(failureKind(await rejection(lower(cyclic)))).toBe('value');
    expect(failureKind(await rejection(lift('x', { type: 'number' })))).toBe('schema');
    expect(failureKind(new Error('not a LoweringError'))).toBe('value');
  });
});

describe('LoweringError', () => {
  test('carries code, JSON Pointer path and schemaPath, and serialises to {path, reason, schemaPath}', async () => {
    const error = await rejection(
      lift(
        { a: [{ b: 'x' }] },
        {
          type: 'object',
          properties: {
            a: { type: 'array', items: { type: 'object', properties: { b: { type: 'number' } } } },
          },
        },
      ),
    );
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('LoweringError');
    expect(error.code).toBe('type_mismatch');
    expect(error.path).toBe('/a/0/b');
    expect(error.schemaPath).toBe('#/properties/a/items/properties/b/type');
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      code: 'type_mismatch',
      path: '/a/0/b',
      reason: 'Expected number, got string.',
      schemaPath: '#/properties/a/items/properties/b/type',
    });
  });

  test('keys that need escaping in a pointer are escaped (RFC 6901)', async () => {
    await expectCode(
      lift(
        { 'a/b': { '~': 1 } },
        { properties: { 'a/b': { properties: { '~': { type: 'string' } } } } },
      ),
      'type_mismatch',
      '/a~1b/~0',
      '#/properties/a~1b/properties/~0/type',
    );
  });

  test('every code it raises is in the one table', () => {
    const codes = Object.keys(LOWERING_ERROR_CODES);
    expect(codes).toContain('depth_exceeded');
    expect(new Set(codes).size).toBe(codes.length);
    for (const summary of Object.values(LOWERING_ERROR_CODES))
      expect(summary.length).toBeGreaterThan(5);
  });

  test('a thrown error with a cause keeps it', () => {
    const cause = new Error('root');
    expect(new LoweringError('read_failed', 'x', { cause }).cause).toBe(cause);
    expect('cause' in new LoweringError('read_failed', 'x')).toBe(false);
  });
});

test('[P3] importing the package defines no global', async () => {
  const before = Reflect.ownKeys(globalThis);
  vi.resetModules();
  const fresh = await import('../src/index.js');
  expect(typeof fresh.lower).toBe('function');
  expect(Reflect.ownKeys(globalThis)).toEqual(before);
});

test('[F2] a File lifted without lastModified gets the constructor default (now)', async () => {
  const before = Date.now();
  const file = (await lift(
    { mimeType: 'text/plain', data: 'aGk=', name: 'a.txt' },
    { webType: 'File' },
  )) as File;
  expect(file).toBeInstanceOf(File);
  expect(file.lastModified).toBeGreaterThanOrEqual(before);
  expect(file.lastModified).toBeLessThanOrEqual(Date.now());
  expect(await file.text()).toBe('hi');
});

test("[E4] native error names lift to their own constructors; the stack is lift's own", async () => {
  for (const Native of [
    Error,
    EvalError,
    RangeError,
    ReferenceError,
    SyntaxError,
    TypeError,
    URIError,
  ]) {
    const error = (await lift(
      { name: Native.name, message: 'm', code: 'C' },
      { webType: 'Error' },
    )) as Error & { code: string };
    expect(Object.getPrototypeOf(error)).toBe(Native.prototype);
    expect(Object.hasOwn(error, 'name')).toBe(false);
    expect(error.code).toBe('C');
  }
  const custom = (await lift({ name: 'QuotaError', message: 'm' }, { webType: 'Error' })) as Error;
  expect(Object.hasOwn(custom, 'name')).toBe(true);
  expect(String(custom)).toBe('QuotaError: m');
});

test('[E1] lowering never reads the stack', async () => {
  const error = new Error('m');
  Object.defineProperty(error, 'stack', {
    get() {
      throw new Error('the stack was read');
    },
  });
  expect(await lower(error)).toEqual({ name: 'Error', message: 'm' });
});

test('[B3] a lifted view owns exactly its bytes, even for small values Node decodes from a pool', async () => {
  for (const text of ['AQ==', 'AQID', 'AAAAAAAAAAA=']) {
    const view = (await lift(text, { webType: 'Uint8Array' })) as Uint8Array;
    expect(view.byteOffset).toBe(0);
    expect(view.buffer.byteLength).toBe(view.byteLength);
  }
});
