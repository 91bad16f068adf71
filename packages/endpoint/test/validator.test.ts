import * as polyfill from '@toolwire/polyfill';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { pageValidator } from '../src/validator.js';

// Issue 16, item 2: the bridge's validator (the built-in tools') loads no engine for a schema
// that needs none, and still checks a real one.
vi.mock('@toolwire/polyfill', { spy: true });

beforeEach(() => {
  vi.mocked(polyfill.loadValidator).mockClear();
});

describe('pageValidator', () => {
  it('answers trivial schemas without loading a validator', async () => {
    const provider = pageValidator();
    expect((await provider.compile({}))([1])).toEqual({ valid: true, data: [1] });
    const object = await provider.compile({ type: 'object', properties: { a: {} } });
    expect(object({ a: 1 })).toEqual({ valid: true, data: { a: 1 } });
    expect(object([1])).toMatchObject({
      valid: false,
      errors: [{ path: '', schemaPath: '#/type' }],
    });
    expect(polyfill.loadValidator).not.toHaveBeenCalled();
  });

  it('loads the validator for a schema with a constraint', async () => {
    const check = await pageValidator().compile({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    expect(polyfill.loadValidator).toHaveBeenCalledTimes(1);
    expect(check({ a: 1 })).toMatchObject({ valid: false, errors: [{ path: '/a' }] });
    expect(check({ a: 'x' })).toEqual({ valid: true, data: { a: 'x' } });
  });
});
