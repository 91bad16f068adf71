import type { ToolDefinition, ToolExecuteContext } from '@toolwire/polyfill';
import { defineTool } from '@toolwire/polyfill';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { type UseToolResult, useTool, useTools } from '../src/index.js';

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

  it("takes a zod schema as inputSchema, execute's input typed from it", () => {
    const cartAdd = z.object({ sku: z.string(), qty: z.number().int().default(1) });
    const hook = () =>
      useTool({
        name: 'cart.add',
        naturalLanguageProperties: { description: 'Adds a product to the cart.' },
        inputSchema: cartAdd,
        execute: (input) => {
          expectTypeOf(input).toEqualTypeOf<{ sku: string; qty: number }>();
          return input.qty;
        },
      });
    expectTypeOf(hook).returns.toEqualTypeOf<UseToolResult<'cart.add'>>();
  });

  it('useTools keeps each name, in order', () => {
    const hook = () =>
      useTools([
        { name: 'notes.add', execute: () => 1 },
        { name: 'notes.list', execute: () => [] },
      ]);
    expectTypeOf(hook).returns.toEqualTypeOf<
      readonly [UseToolResult<'notes.add'>, UseToolResult<'notes.list'>]
    >();
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
