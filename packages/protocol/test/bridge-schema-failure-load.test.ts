/**
 * A schema failure's `details` and wording (schema-failure.ts) are loaded the first time a call
 * fails its schema, through the bridge's `loadSchemaFailure`: a page script fetches them as a
 * chunk. Passing calls never load them; a failure loaded says what `schemaFailure` says; a
 * failure whose module cannot be loaded keeps its code, with a plain message and no details.
 */
import { describe, expect, it } from 'vitest';
import { createAjvProvider } from '../src/ajv.js';
import type { SchemaFailureModule } from '../src/index.js';
import { createToolBridge, importSchemaFailure, schemaFailure } from '../src/index.js';
import { request, tool } from './helpers.js';

const CART = {
  type: 'object',
  properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
  required: ['sku'],
  additionalProperties: false,
};
const RESULT = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

function bridgeWith(loadSchemaFailure: () => Promise<SchemaFailureModule>) {
  const calls = { count: 0 };
  const bridge = createToolBridge({
    validator: createAjvProvider(),
    tools: () => [
      tool('cart.add', () => ({ ok: true }), { argumentsSchema: CART, resultSchema: RESULT }),
      tool('cart.bad', () => ({ ok: 'yes' }), { resultSchema: RESULT }),
    ],
    guard: 'read-write',
    onToolError: () => {},
    loadSchemaFailure: () => {
      calls.count++;
      return loadSchemaFailure();
    },
  });
  return { bridge, calls };
}

async function call(bridge: ReturnType<typeof bridgeWith>['bridge'], payload: unknown) {
  const response = await bridge.handle(request('tool.call', payload));
  if (!response) throw new Error('no response');
  return JSON.parse(response.frame) as { type: string; payload: Record<string, any> };
}

describe('the bridge loads a schema failure only when a call fails its schema', () => {
  it('a passing call never loads it; a failing one says what schemaFailure says', async () => {
    const { bridge, calls } = bridgeWith(importSchemaFailure);
    const passed = await call(bridge, { toolId: 'cart.add', arguments: { sku: 'a', qty: 2 } });
    expect(passed.payload.result).toEqual({ ok: true });
    expect(calls.count).toBe(0);

    const args = { qty: 0, note: 'x' };
    const failed = await call(bridge, { toolId: 'cart.add', arguments: args });
    expect(calls.count).toBe(1);
    const check = (await createAjvProvider().compile(CART))(args);
    if (check.valid) throw new Error('the arguments should fail');
    const expected = schemaFailure('arguments', 'cart.add', check.errors, CART);
    expect(failed.payload).toEqual(expected);
    expect(failed.payload.message).toContain('`sku` is required');
  });

  it('when it cannot be loaded: the same codes, a plain message and no details', async () => {
    // The honest bridge first: the same calls, worded.
    const honest = bridgeWith(importSchemaFailure).bridge;
    const worded = await call(honest, { toolId: 'cart.add', arguments: { qty: 0 } });
    expect(worded.payload.code).toBe('tool_arguments_schema_invalid');
    expect(worded.payload.details).not.toBeNull();

    const { bridge, calls } = bridgeWith(() => Promise.reject(new Error('chunk missing')));
    const args = await call(bridge, { toolId: 'cart.add', arguments: { qty: 0 } });
    expect(args.payload).toEqual({
      code: 'tool_arguments_schema_invalid',
      message: 'The arguments of "cart.add" do not match its argumentsSchema.',
      retryable: false,
      details: null,
    });
    const result = await call(bridge, { toolId: 'cart.bad', arguments: {} });
    expect(result.payload).toEqual({
      code: 'tool_result_schema_invalid',
      message: 'The result of "cart.bad" does not match its resultSchema.',
      retryable: false,
      details: null,
    });
    expect(calls.count).toBe(2);
  });
});
