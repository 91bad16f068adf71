// @vitest-environment happy-dom
import type { Installation } from '@toolwire/polyfill';
import { defineTool } from '@toolwire/polyfill';
import { act, createElement, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type ToolInput, type UseToolResult, useTools } from '../src/index.js';
import { mountTool, rejection, removeGlobals, scriptTagPolyfill } from './helpers.js';

let polyfill: Installation;
let errors: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  polyfill = scriptTagPolyfill();
  errors = vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterEach(() => {
  removeGlobals();
  errors.mockRestore();
});

const names = async () => (await polyfill.tools.getTools()).map((tool) => tool.name);

type Seen = { results: readonly UseToolResult[] };

/** The component under test: useTools(definitions), its results kept in `seen`. */
function ToolsProbe(props: { definitions: readonly ToolInput[]; seen: Seen }): null {
  props.seen.results = useTools(props.definitions);
  return null;
}

/** A root rendering one component that calls useTools(definitions). */
function mountTools(strict = false) {
  const root = createRoot(document.createElement('div'));
  const seen: Seen = { results: [] };
  return {
    seen,
    async render(definitions: readonly ToolInput[]): Promise<void> {
      await act(async () => {
        const node = createElement(ToolsProbe, { definitions, seen });
        root.render(strict ? createElement(StrictMode, null, node) : node);
      });
    },
    async unmount(): Promise<void> {
      await act(async () => root.unmount());
    },
  };
}

const note = (name: string, description = `The ${name} tool.`): ToolInput => ({
  name,
  naturalLanguageProperties: { description },
  execute: () => name,
});

// mountTool's render() is typed for ToolDefinition; types.test.ts checks what useTool accepts.
describe('useTool with a zod schema', () => {
  const cartAdd = z.object({ sku: z.string().min(1), qty: z.number().int().min(1).default(1) });

  it('registers it for agents with its JSON Schema, and validates every call by it', async () => {
    const calls: unknown[] = [];
    const view = mountTool();
    await view.render({
      name: 'cart.add',
      naturalLanguageProperties: { description: 'Adds a product to the cart.' },
      inputSchema: cartAdd,
      execute: (input: unknown) => {
        calls.push(input);
        return 'added';
      },
    } as never);
    expect(view.probe.result).toEqual({ status: 'registered', name: 'cart.add', error: undefined });
    // What agents read: a real schema naming the arguments, not {"type": "object"}.
    const [listed] = await polyfill.tools.getTools({ agentOnly: true });
    expect(listed?.inputSchema).toMatchObject({
      type: 'object',
      properties: { sku: { type: 'string', minLength: 1 }, qty: { type: 'integer' } },
      required: ['sku'],
    });
    // The honest call: zod's output (its default filled in) reaches execute.
    expect(await polyfill.tools.callTool('cart.add', { sku: 'A-1' })).toBe('added');
    expect(calls).toEqual([{ sku: 'A-1', qty: 1 }]);
    // A bad one is refused by the schema; execute does not run.
    const refused = await rejection(polyfill.tools.callTool('cart.add', { sku: 'A-1', qty: 0 }));
    expect(refused).toMatchObject({ name: 'DataError', toolCode: 'tool_arguments_schema_invalid' });
    expect(calls).toHaveLength(1);
    expect(errors).not.toHaveBeenCalled();
    await view.unmount();
    expect(await names()).toEqual([]);
  });

  it('a zod schema agents cannot be given is the status error, not a throw', async () => {
    const view = mountTool();
    await view.render({
      name: 'plain',
      naturalLanguageProperties: { description: 'Fine.' },
      inputSchema: z.object({ when: z.string() }),
      execute: () => 1,
    } as never);
    expect(view.probe.result?.status).toBe('registered');
    await view.render({
      name: 'when.due',
      naturalLanguageProperties: { description: 'Takes a Date, which JSON has not.' },
      inputSchema: z.object({ when: z.date() }),
      execute: () => 1,
    } as never);
    expect(view.probe.result).toMatchObject({
      status: 'error',
      name: 'when.due',
      error: { name: 'ToolDefinitionError', code: 'json_schema_failed' },
    });
    expect(await names()).toEqual([]);
    expect(errors).toHaveBeenCalledWith(
      expect.stringMatching(/^useTool: could not register "when\.due": ToolDefinitionError: /),
    );
    await view.unmount();
  });

  it("takes defineTool()'s definition as it is", async () => {
    const view = mountTool();
    const add = defineTool({
      name: 'cart.add',
      naturalLanguageProperties: { description: 'Adds a product to the cart.' },
      inputSchema: cartAdd,
      execute: ({ sku, qty }) => `${qty} x ${sku}`,
    });
    await view.render(add);
    expect(view.probe.result?.status).toBe('registered');
    expect(await polyfill.tools.callTool('cart.add', { sku: 'B-2', qty: 3 })).toBe('3 x B-2');
    await view.unmount();
  });
});

describe('useTools: several tools in one call', () => {
  it('registers each, one result each in order, and removes them all on unmount', async () => {
    const view = mountTools();
    await view.render([note('notes.add'), note('notes.list')]);
    expect(view.seen.results).toEqual([
      { status: 'registered', name: 'notes.add', error: undefined },
      { status: 'registered', name: 'notes.list', error: undefined },
    ]);
    expect(await names()).toEqual(['notes.add', 'notes.list']);
    expect(await polyfill.tools.callTool('notes.list', {})).toBe('notes.list');
    await view.unmount();
    expect(await names()).toEqual([]);
    expect(errors).not.toHaveBeenCalled();
  });

  it('a change in one definition re-registers that tool only; tools come and go with the list', async () => {
    const register = vi.spyOn(polyfill.toolManager, 'register');
    const view = mountTools();
    await view.render([note('a.tool'), note('b.tool')]);
    expect(register).toHaveBeenCalledTimes(2);
    // Equal data written anew: nothing to do.
    await view.render([note('a.tool'), note('b.tool')]);
    expect(register).toHaveBeenCalledTimes(2);
    await view.render([note('a.tool'), note('b.tool', 'New words.')]);
    expect(register).toHaveBeenCalledTimes(3);
    expect(register.mock.calls[2]?.[0].name).toBe('b.tool');
    const described = async () =>
      (await polyfill.tools.getTools()).map((tool) => [tool.name, tool.description]);
    expect(await described()).toEqual([
      ['a.tool', 'The a.tool tool.'],
      ['b.tool', 'New words.'],
    ]);
    await view.render([note('a.tool'), note('b.tool', 'New words.'), note('c.tool')]);
    expect(await names()).toEqual(['a.tool', 'b.tool', 'c.tool']);
    await view.render([note('c.tool')]);
    expect(await names()).toEqual(['c.tool']);
    expect(view.seen.results.map((result) => result.status)).toEqual(['registered']);
    expect(errors).not.toHaveBeenCalled();
    await view.unmount();
    expect(await names()).toEqual([]);
  });

  it('StrictMode: one registration per tool, and no error', async () => {
    const register = vi.spyOn(polyfill.toolManager, 'register');
    const view = mountTools(true);
    await view.render([note('a.tool'), note('b.tool')]);
    expect(view.seen.results.map((result) => result.status)).toEqual(['registered', 'registered']);
    expect(register).toHaveBeenCalledTimes(2);
    expect(await names()).toEqual(['a.tool', 'b.tool']);
    await view.unmount();
    expect(await names()).toEqual([]);
  });

  it('one refused tool is its own error; the others register', async () => {
    const view = mountTools();
    await view.render([note('same.name'), note('same.name', 'Another.'), note('other')]);
    expect(view.seen.results.map((result) => result.status)).toEqual([
      'registered',
      'error',
      'registered',
    ]);
    expect(view.seen.results[1]?.error?.name).toBe('InvalidStateError');
    expect(await names()).toEqual(['other', 'same.name']);
    await view.unmount();
    expect(await names()).toEqual([]);
  });
});
