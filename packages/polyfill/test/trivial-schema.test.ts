/**
 * Issue 16, item 2: a schema that needs no validator loads none (validation/trivial.ts). The
 * engine loader is spied on: calls through trivial schemas never ask for it; a real schema does,
 * and still refuses what it should.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as load from '../src/validation/load.js';
import { trivialCheck } from '../src/validation/trivial.js';
import { freshInstall, rejection } from './helpers.js';

vi.mock('../src/validation/load.js', { spy: true });

beforeEach(() => {
  vi.mocked(load.loadValidator).mockClear();
});

describe('trivialCheck', () => {
  it('takes exactly the schemas that any value, or any object, satisfies', () => {
    const any = [true, {}, { description: 'anything', title: 'x', $comment: 'c', default: 1 }];
    for (const schema of any) expect(trivialCheck(schema as object)?.(['an', 'array'])).toBeNull();
    const objects = [
      { type: 'object' },
      { type: 'object', description: 'd', additionalProperties: true },
      { type: 'object', properties: { a: {}, b: { description: 'b' } }, additionalProperties: {} },
    ];
    for (const schema of objects) {
      const check = trivialCheck(schema);
      expect(check?.({ a: 1 })).toBeNull();
      expect(check?.([1])).toEqual([{ path: '', reason: 'must be object', schemaPath: '#/type' }]);
      expect(check?.(null)).not.toBeNull();
    }
    const constraining = [
      false,
      { type: 'object', properties: { a: { type: 'string' } } },
      { type: 'object', required: ['a'] },
      { type: 'object', additionalProperties: false },
      { type: 'object', properties: { a: false } },
      { type: ['object', 'null'] },
      { type: 'string' },
      { format: 'email' },
      { webType: 'Date' },
      { $ref: '#/$defs/a', $defs: { a: { type: 'string' } } },
      { type: 'object', minProperties: 1 },
      { type: 'object', patternProperties: { '^a': { type: 'string' } } },
    ];
    for (const schema of constraining) expect(trivialCheck(schema as object)).toBeUndefined();
  });
});

describe('callTool loads no validator for a trivial schema', () => {
  it('absent, {}, {type: "object"}: no validator, in json and structured calls', async () => {
    const { toolManager, tools } = freshInstall();
    const echo = (input: unknown) => input;
    await toolManager.register({ name: 'none', execute: echo });
    await toolManager.register({ name: 'empty', inputSchema: {}, outputSchema: {}, execute: echo });
    await toolManager.register({
      name: 'object',
      inputSchema: { type: 'object', properties: { a: { description: 'any' } } },
      outputSchema: { type: 'object' },
      execute: echo,
    });
    for (const name of ['none', 'empty', 'object']) {
      for (const encoding of ['json', 'structured'] as const) {
        expect(await tools.callTool(name, { a: 1 }, { encoding })).toEqual({ a: 1 });
      }
    }
    expect(load.loadValidator).not.toHaveBeenCalled();
  });

  it('a value a trivial schema refuses, and a real schema, go to the validator', async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register({
      name: 'object',
      inputSchema: { type: 'object' },
      execute: (input: unknown) => input,
    });
    await toolManager.register({
      name: 'typed',
      inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
      execute: (input: unknown) => input,
    });
    const refused = await rejection(tools.callTool('object', [1], { encoding: 'json' }));
    expect(refused.name).toBe('DataError');
    expect(load.loadValidator).toHaveBeenCalledTimes(1);
    expect(await tools.callTool('typed', { a: 'x' }, { encoding: 'json' })).toEqual({ a: 'x' });
    const typed = await rejection(tools.callTool('typed', { a: 1 }, { encoding: 'json' }));
    expect(typed.name).toBe('DataError');
    expect(JSON.parse(typed.message)).toMatchObject({
      path: '/a',
      schemaPath: '#/properties/a/type',
    });
  });
});
