/**
 * wireFailureLoading: the mapping the page's bridge entries use (toBridgeTool), which loads a
 * schema failure's `details` and wording only for a schema failure. Loaded, it says exactly what
 * wireFailure says; not loadable, the code stays, with a plain message and no details; any
 * other failure is answered at once, without loading anything.
 */
import type { SchemaFailureModule } from '@toolwire/protocol';
import { importSchemaFailure } from '@toolwire/protocol';
import { describe, expect, it } from 'vitest';
import { wireFailureLoading } from '../src/wire/failure.js';
import { wireFailure } from '../src/wire/index.js';

const SCHEMA = { type: 'object', properties: { qty: { type: 'integer', minimum: 1 } } };
const context = { toolId: 'cart.add', policy: 'write' as const, schemas: { input: SCHEMA } };
const refused = {
  name: 'DataError',
  toolCode: 'tool_arguments_schema_invalid',
  message: 'bad',
  issues: [{ path: '/qty', reason: 'must be >= 1', schemaPath: '#/properties/qty/minimum' }],
};
const unreadable = {
  name: 'TypeError',
  toolCode: 'tool_arguments_invalid',
  message: 'bad',
  issues: [{ path: '/when', reason: 'is not a date', schemaPath: '#/properties/when' }],
};

function counting(load: () => Promise<SchemaFailureModule>) {
  const calls = { count: 0 };
  return {
    calls,
    load: () => {
      calls.count++;
      return load();
    },
  };
}

describe('wireFailureLoading', () => {
  it('loaded: what wireFailure says, for a schema failure and for unreadable arguments', async () => {
    const { calls, load } = counting(importSchemaFailure);
    const said = await wireFailureLoading(refused, context, load);
    expect(said).toEqual(wireFailure(refused, context));
    expect(said.message).toBe('`qty` must be an integer >= 1');
    expect(await wireFailureLoading(unreadable, context, load)).toEqual(
      wireFailure(unreadable, context),
    );
    expect(calls.count).toBe(2);
  });

  it('other failures are answered at once, without loading', () => {
    const { calls, load } = counting(importSchemaFailure);
    const thrown = { name: 'ToolExecutionError', message: 'x', cause: new Error('boom') };
    expect(wireFailureLoading(thrown, context, load)).toEqual(wireFailure(thrown, context));
    expect(calls.count).toBe(0);
  });

  it('not loadable: the same code, a plain message, no details', async () => {
    // Loadable first, so the failure below is the load's alone.
    expect((await wireFailureLoading(refused, context, importSchemaFailure)).details).not.toBe(
      null,
    );
    const { calls, load } = counting(() => Promise.reject(new Error('chunk missing')));
    expect(await wireFailureLoading(refused, context, load)).toEqual({
      code: 'tool_arguments_schema_invalid',
      message: 'The arguments of "cart.add" do not match its argumentsSchema.',
      retryable: false,
      details: null,
    });
    expect(await wireFailureLoading(unreadable, context, load)).toEqual({
      code: 'tool_arguments_invalid',
      message: 'The call arguments cannot be read.',
      retryable: false,
      details: null,
    });
    expect(calls.count).toBe(2);
  });
});
