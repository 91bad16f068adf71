// @vitest-environment happy-dom
// defineTool at run time (issue 15): JSON Schema definitions register as written; Standard
// Schema ones (zod 4, valibot 1) publish JSON Schema for agents and validate every call.
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import type { Tools } from '../src/index.js';
import { defineTool, ToolDefinitionError, ToolExecutionError } from '../src/index.js';
import { freshInstall, rejection } from './helpers.js';

/** `window.tools` of a fresh installation: the calls below go through the global. */
function page() {
  const installation = freshInstall();
  const tools = (installation.win as unknown as { tools: Tools }).tools;
  expect(tools).toBe(installation.tools);
  return { ...installation, tools };
}

const Order = z.object({
  sku: z.string(),
  qty: z.number().int().min(1).default(1),
  by: z.iso.datetime().transform((text) => new Date(text)),
});

describe('defineTool with JSON Schema', () => {
  it('returns the definition as written; execute gets the lifted web types', async () => {
    const { toolManager, tools } = page();
    const execute = vi.fn(({ sku, by }: { sku: string; by?: Date }) => ({ sku, deliverBy: by }));
    const definition = {
      name: 'cart.add',
      naturalLanguageProperties: { description: 'Adds to the cart.' },
      inputSchema: {
        type: 'object',
        properties: { sku: { type: 'string' }, by: { webType: 'Date' } },
        required: ['sku'],
      },
      execute,
    } as const;
    const tool = defineTool(definition);
    expect(tool).toBe(definition);
    await toolManager.register(tool);
    const json = { sku: 'A-1', by: '2026-12-24T09:00:00+01:00' };
    expect(await tools.callTool('cart.add', json, { encoding: 'json' })).toEqual({
      sku: 'A-1',
      deliverBy: '2026-12-24T08:00:00.000Z',
    });
    expect(execute.mock.calls[0]?.[0].by).toBeInstanceOf(Date);
    const failed = await rejection(tools.callTool('cart.add', { sku: 1 }));
    expect(failed.name).toBe('DataError');
  });
});

describe('defineTool with a zod schema', () => {
  it('publishes the JSON Schema of each side, and execute gets the parsed value', async () => {
    const { toolManager, tools } = page();
    const execute = vi.fn(({ sku, qty, by }: z.output<typeof Order>) => ({
      id: `${sku}:${qty}`,
      at: by,
    }));
    // zod has no JSON Schema for a Date: the author writes what agents get (an ISO string).
    const result = {
      type: 'object',
      properties: { id: { type: 'string' }, at: { type: 'string', format: 'date-time' } },
      required: ['id', 'at'],
    };
    await toolManager.register(
      defineTool({
        name: 'order.place',
        naturalLanguageProperties: { description: 'Places an order.', outputSchema: result },
        inputSchema: Order,
        outputSchema: z.object({ id: z.string(), at: z.date() }).strict(),
        execute,
      }),
    );
    const [handle] = await tools.getTools({ agentOnly: true });
    expect(handle?.outputSchema).toEqual(result);
    expect(handle?.inputSchema).toEqual(
      JSON.parse(JSON.stringify(Order['~standard'].jsonSchema.input({ target: 'draft-2020-12' }))),
    );
    expect(handle?.inputSchema).toMatchObject({
      type: 'object',
      properties: { sku: { type: 'string' }, by: { type: 'string', format: 'date-time' } },
      required: ['sku', 'by'],
    });

    // Structured: the transform's Date and the default reach execute, the Date comes back.
    const placed = await tools.callTool('order.place', { sku: 'A', by: '2026-01-02T03:04:05Z' });
    expect(execute.mock.calls[0]?.[0]).toEqual({
      sku: 'A',
      qty: 1,
      by: new Date('2026-01-02T03:04:05Z'),
    });
    expect(placed).toEqual({ id: 'A:1', at: new Date('2026-01-02T03:04:05Z') });

    // JSON (the agent boundary): the same, lowered on the way out by runtime type.
    expect(
      await tools.callTool(
        'order.place',
        { sku: 'B', qty: 2, by: '2026-01-02T03:04:05.000Z' },
        { encoding: 'json' },
      ),
    ).toEqual({ id: 'B:2', at: '2026-01-02T03:04:05.000Z' });
  });

  it('input the schema refuses is a DataError with every issue, and execute never runs', async () => {
    const { toolManager, tools } = page();
    const execute = vi.fn();
    await toolManager.register(defineTool({ name: 'order', inputSchema: Order, execute }));
    const failed = await rejection(
      tools.callTool('order', { sku: 7, qty: 0, by: '2026-01-02T03:04:05Z' }),
    );
    expect(failed.name).toBe('DataError');
    expect(failed.error).toBeInstanceOf(DOMException);
    expect(failed.error.errors).toEqual([
      { path: '/sku', reason: expect.any(String), schemaPath: '~standard/zod/invalid_type' },
      { path: '/qty', reason: expect.any(String), schemaPath: '~standard/zod/too_small' },
    ]);
    expect(JSON.parse(failed.message)).toEqual(failed.error.errors[0]);
    expect(execute).not.toHaveBeenCalled();

    // A JSON call still has to be JSON before the schema sees it.
    const notJson = await rejection(
      tools.callTool('order', { sku: 'A', by: new Date() }, { encoding: 'json' }),
    );
    expect(notJson.name).toBe('DataError');
    expect(notJson.error.errors[0].path).toBe('/by');
  });

  it('a result the output schema refuses is an OperationError', async () => {
    const { toolManager, tools } = page();
    await toolManager.register(
      defineTool({
        name: 'total',
        outputSchema: z.object({ total: z.number() }),
        // @ts-expect-error -- the wrong result on purpose: the run-time check must catch it
        execute: () => ({ total: 'twelve' }),
      }),
    );
    for (const encoding of ['structured', 'json'] as const) {
      const failed = await rejection(tools.callTool('total', {}, { encoding }));
      expect(failed.name).toBe('OperationError');
      expect(failed.message).toContain('"path":"/total"');
      expect(failed.message).toContain('~standard/zod/invalid_type');
    }
  });

  it('awaits an asynchronous schema; a schema that throws is the tool failing', async () => {
    const { toolManager, tools } = page();
    await toolManager.register(
      defineTool({
        name: 'slow',
        inputSchema: z.object({
          word: z.string().refine(async (word) => word !== 'no', 'not that'),
        }),
        execute: ({ word }) => word.toUpperCase(),
      }),
    );
    expect(await tools.callTool('slow', { word: 'yes' })).toBe('YES');
    const refused = await rejection(tools.callTool('slow', { word: 'no' }));
    expect(refused.error.errors).toEqual([
      { path: '/word', reason: 'not that', schemaPath: '~standard/zod/custom' },
    ]);

    await toolManager.register(
      defineTool({
        name: 'broken',
        inputSchema: z.string().refine(() => {
          throw new RangeError('the check broke');
        }),
        execute: () => 'never',
      }),
    );
    const broken = await rejection(tools.callTool('broken', 'x'));
    expect(broken.error).toBeInstanceOf(ToolExecutionError);
    expect(broken.error.cause).toMatchObject({ name: 'RangeError', message: 'the check broke' });
  });

  it('a type JSON Schema cannot express: a coded error for agents, no schema otherwise', async () => {
    const when = z.object({ when: z.date() });
    let error: unknown;
    try {
      defineTool({
        name: 'agenda',
        naturalLanguageProperties: { description: 'Reads the agenda.' },
        inputSchema: when,
        execute: () => [],
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ToolDefinitionError);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ code: 'json_schema_failed', name: 'ToolDefinitionError' });
    expect((error as Error).message).toContain('"agenda"\'s inputSchema (zod)');

    // Page scripts pass structured values: a Date is fine, and no agent needs the schema.
    const { toolManager, tools } = page();
    const tool = defineTool({
      name: 'agenda',
      inputSchema: when,
      execute: ({ when }) => when.getTime(),
    });
    expect(tool.inputSchema).toBeUndefined();
    await toolManager.register(tool);
    expect(await tools.callTool('agenda', { when: new Date(5) })).toBe(5);
    expect((await rejection(tools.callTool('agenda', { when: 'now' }))).name).toBe('DataError');
  });
});

describe('defineTool with a valibot schema', () => {
  const Note = v.object({ text: v.pipe(v.string(), v.minLength(1)), tags: v.array(v.string()) });

  it('validates every call (valibot 1.5 has no JSON Schema: the tool publishes none)', async () => {
    const { toolManager, tools } = page();
    const tool = defineTool({
      name: 'note.add',
      inputSchema: Note,
      outputSchema: v.object({ id: v.number() }),
      execute: ({ text, tags }) => ({ id: text.length + tags.length, extra: true }),
    });
    expect(tool.inputSchema).toBeUndefined();
    await toolManager.register(tool);
    // valibot's object() drops unknown keys: the caller gets the validated value.
    expect(await tools.callTool('note.add', { text: 'hi', tags: ['a'] })).toEqual({ id: 3 });

    const failed = await rejection(tools.callTool('note.add', { text: '', tags: ['a', 2] }));
    expect(failed.name).toBe('DataError');
    expect(failed.error.errors).toEqual([
      { path: '/text', reason: expect.any(String), schemaPath: '~standard/valibot/min_length' },
      { path: '/tags/1', reason: expect.any(String), schemaPath: '~standard/valibot/string' },
    ]);
  });

  it('an output failure is an OperationError', async () => {
    const { toolManager, tools } = page();
    await toolManager.register(
      defineTool({
        name: 'note.count',
        outputSchema: v.pipe(v.number(), v.integer()),
        execute: () => 1.5,
      }),
    );
    const failed = await rejection(tools.callTool('note.count'));
    expect(failed.name).toBe('OperationError');
    expect(failed.message).toContain('~standard/valibot/integer');
  });

  it('exposed to agents: the JSON Schema the author writes, or a coded error', async () => {
    const nlp = { description: 'Adds a note.' };
    expect(() =>
      defineTool({
        name: 'note.add',
        naturalLanguageProperties: nlp,
        inputSchema: Note,
        execute: () => 1,
      }),
    ).toThrow(expect.objectContaining({ code: 'no_json_schema', name: 'ToolDefinitionError' }));

    const json = {
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1 },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['text', 'tags'],
    };
    const { toolManager, tools } = page();
    const tool = defineTool({
      name: 'note.add',
      naturalLanguageProperties: { ...nlp, inputSchema: json },
      inputSchema: Note,
      execute: ({ text }) => text,
    });
    expect(tool.inputSchema).toBe(json);
    expect(tool.naturalLanguageProperties).toEqual(nlp);
    await toolManager.register(tool);
    const [handle] = await tools.getTools({ agentOnly: true });
    expect(handle?.inputSchema).toEqual(json);
    // valibot still decides: the JSON Schema is what agents read, not a second validator.
    const failed = await rejection(
      tools.callTool('note.add', { text: '', tags: [] }, { encoding: 'json' }),
    );
    expect(failed.error.errors[0].schemaPath).toBe('~standard/valibot/min_length');
  });
});

describe('Standard Schema outside defineTool', () => {
  it('register() refuses a raw Standard Schema and names defineTool', async () => {
    const { toolManager } = page();
    const failed = await rejection(
      toolManager.register({ name: 'raw', inputSchema: Order as never, execute: () => 1 }),
    );
    expect(failed.name).toBe('TypeError');
    expect(failed.message).toContain('defineTool()');
  });

  it('a schema of another Standard Schema version is refused where the tool is defined', () => {
    const future = { '~standard': { version: 2, vendor: 'next', validate: () => ({ value: 1 }) } };
    expect(() =>
      defineTool({ name: 'next', inputSchema: future as never, execute: () => 1 }),
    ).toThrow(expect.objectContaining({ code: 'unsupported_standard_version' }));
    // Also when the definition writes the JSON Schema itself.
    expect(() =>
      defineTool({
        name: 'next',
        naturalLanguageProperties: { description: 'Next.', inputSchema: { type: 'object' } },
        inputSchema: future as never,
        execute: () => 1,
      }),
    ).toThrow(expect.objectContaining({ code: 'unsupported_standard_version' }));
  });
});
