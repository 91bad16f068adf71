import type { ToolDefinition, ToolExecuteContext } from '@toolwire/polyfill';
import { defineTool } from '@toolwire/polyfill';
import { describe, expectTypeOf, it } from 'vitest';
import { type UseToolResult, useTool } from '../src/index.js';

/**
 * The shape a typed definition has (what a defineTool() would return): execute's input and
 * result narrowed from the schema. Written here so the test does not depend on defineTool.
 */
interface TypedDefinition<Name extends string, Input, Output> extends ToolDefinition {
  name: Name;
  execute(input: Input, context: ToolExecuteContext): Output | Promise<Output>;
}

describe('useTool types', () => {
  it('takes a typed definition as it is and keeps its literal name', () => {
    type Add = TypedDefinition<'counter.add', { by: number }, number>;
    expectTypeOf(useTool<Add>)
      .parameter(0)
      .toEqualTypeOf<Add>();
    expectTypeOf(useTool<Add>).returns.toEqualTypeOf<UseToolResult<'counter.add'>>();
    expectTypeOf<UseToolResult<'counter.add'>['name']>().toEqualTypeOf<'counter.add'>();
  });

  it("takes defineTool()'s definition, its execute typed from the schema", () => {
    const add = defineTool({
      name: 'counter.add',
      inputSchema: {
        type: 'object',
        properties: { by: { type: 'integer' }, at: { webType: 'Date' } },
        required: ['by'],
      },
      execute: ({ by, at }) => by + (at ? 0 : 1),
    });
    expectTypeOf(useTool).toBeCallableWith(add);
    expectTypeOf(add.execute).parameter(0).toEqualTypeOf<{ by: number; at?: Date }>();
  });

  it('narrows the error by status', () => {
    const result = {} as UseToolResult;
    if (result.status === 'error') expectTypeOf(result.error).toEqualTypeOf<Error>();
    else expectTypeOf(result.error).toEqualTypeOf<undefined>();
  });

  it('refuses what register() refuses', () => {
    // @ts-expect-error: a tool needs execute
    expectTypeOf(useTool).toBeCallableWith({ name: 'no.execute' });
    // @ts-expect-error: policy is read, write or critical
    expectTypeOf(useTool).toBeCallableWith({ name: 'x', execute: () => 1, policy: 'all' });
  });
});
