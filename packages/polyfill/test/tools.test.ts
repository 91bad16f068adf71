import { Window } from 'happy-dom';
import { describe, expect, it, vi } from 'vitest';
import { until } from '../../../test-support/wait.js';
import type { Tool } from '../src/index.js';
import { install, ToolExecutionError } from '../src/index.js';
import { freshInstall, rejection } from './helpers.js';

const numberInput = {
  type: 'object',
  properties: { n: { type: 'number' } },
  required: ['n'],
  additionalProperties: false,
};

describe('tools.callTool', () => {
  it('calls by name or by handle; handles are stable per registration', async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register({
      name: 'double',
      inputSchema: numberInput,
      execute: ({ n }: { n: number }) => n * 2,
    });
    expect(await tools.callTool('double', { n: 21 })).toBe(42);
    const [first] = await tools.getTools();
    const [again] = await tools.getTools();
    expect(first).toBe(again);
    expect(await first?.call({ n: 2 })).toBe(4);
    await toolManager.unregister('double');
    expect((await rejection(first?.call({ n: 2 }) as Promise<unknown>)).name).toBe('NotFoundError');
    await toolManager.register({ name: 'double', execute: () => 'new' });
    // A re-registration is a different tool: the old handle stays dead.
    expect((await rejection(first?.call({ n: 2 }) as Promise<unknown>)).name).toBe('NotFoundError');
    expect((await rejection(tools.callTool('nothing'))).name).toBe('NotFoundError');
  });

  it('passes the signal, the caller origin and reportProgress to execute', async () => {
    const { toolManager, tools } = freshInstall('https://app.example/page');
    const execute = vi.fn(() => 'ok');
    await toolManager.register({ name: 'ctx', execute });
    await tools.callTool('ctx', { a: 1 });
    expect(execute).toHaveBeenCalledWith(
      { a: 1 },
      {
        signal: expect.any(AbortSignal),
        caller: { origin: 'https://app.example' },
        reportProgress: expect.any(Function),
      },
    );
  });

  it('input that fails inputSchema is a DataError with JSON {path, reason, schemaPath} and all failures', async () => {
    const { toolManager, tools } = freshInstall();
    const execute = vi.fn();
    await toolManager.register({ name: 'strict', inputSchema: numberInput, execute });
    const result = await rejection(tools.callTool('strict', { n: 'one', extra: true }));
    expect(result.name).toBe('DataError');
    const first = JSON.parse(result.message);
    expect(Object.keys(first)).toEqual(['path', 'reason', 'schemaPath']);
    expect(result.error.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/extra', schemaPath: '#/additionalProperties' }),
        expect.objectContaining({ path: '/n', schemaPath: '#/properties/n/type' }),
      ]),
    );
    expect(result.error.errors).toHaveLength(2);
    expect(execute).not.toHaveBeenCalled();
  });

  it('a tool that throws gives ToolExecutionError with the lowered cause, distinct from our own errors', async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register({
      name: 'fake',
      execute: () => {
        // Looks exactly like our validation error, but it is the tool's.
        throw new DOMException('{"path":"","reason":"x","schemaPath":""}', 'DataError');
      },
    });
    await toolManager.register({
      name: 'rejects',
      execute: async () => Promise.reject(new RangeError('out of range')),
    });
    const fake = await rejection(tools.callTool('fake', {}));
    expect(fake.error).toBeInstanceOf(ToolExecutionError);
    expect(fake.error.toolName).toBe('fake');
    expect(fake.error.cause).toMatchObject({
      name: 'DataError',
      message: '{"path":"","reason":"x","schemaPath":""}',
    });
    expect(JSON.stringify(fake.error.cause)).not.toContain('stack');
    const rejects = await rejection(tools.callTool('rejects', {}));
    expect(rejects.name).toBe('ToolExecutionError');
    expect(rejects.error.cause).toMatchObject({ name: 'RangeError', message: 'out of range' });
  });

  it('a result that fails outputSchema is an OperationError', async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register({
      name: 'out',
      outputSchema: { type: 'number' },
      execute: () => 'not a number',
    });
    const result = await rejection(tools.callTool('out', {}));
    expect(result.name).toBe('OperationError');
    expect(result.message).toContain('"schemaPath":"#/type"');
  });

  it('the caller signal: pre-aborted, aborted mid-call, timed out', async () => {
    const { toolManager, tools } = freshInstall();
    let toolSignal: AbortSignal | undefined;
    await toolManager.register({
      name: 'slow',
      execute: (_input: unknown, { signal }: { signal: AbortSignal }) => {
        toolSignal = signal;
        return new Promise(() => {});
      },
    });
    const reason = new Error('stop');
    expect(
      (await rejection(tools.callTool('slow', {}, { signal: AbortSignal.abort(reason) }))).error,
    ).toBe(reason);
    const controller = new AbortController();
    const pending = tools.callTool('slow', {}, { signal: controller.signal });
    controller.abort(reason);
    expect((await rejection(pending)).error).toBe(reason);
    // The tool's own signal aborts in a later task than the caller's rejection.
    await until(() => toolSignal?.aborted, "the tool's signal aborted");
    expect(toolSignal?.aborted).toBe(true);
    expect((toolSignal?.reason as DOMException | undefined)?.name).toBe('AbortError');
    const timed = await rejection(tools.callTool('slow', {}, { signal: AbortSignal.timeout(10) }));
    expect(timed.name).toBe('TimeoutError');
  });

  it('fires toolactivated and toolcancel on toolManager', async () => {
    const { toolManager, tools } = freshInstall();
    const events: string[] = [];
    toolManager.addEventListener('toolactivated', (event) =>
      events.push(`activated:${(event as Event & { toolName: string }).toolName}`),
    );
    toolManager.addEventListener('toolcancel', (event) =>
      events.push(`cancel:${(event as Event & { toolName: string }).toolName}`),
    );
    await toolManager.register({ name: 'hang', execute: () => new Promise(() => {}) });
    const controller = new AbortController();
    const pending = tools
      .callTool('hang', {}, { signal: controller.signal })
      .catch(() => events.push('rejected'));
    controller.abort();
    await pending;
    await until(() => events.includes('cancel:hang'), 'toolcancel');
    expect(events).toEqual(['activated:hang', 'rejected', 'cancel:hang']);
  });

  it('fires toolactivated once execute has started (WPT executeTool-abort, Chromium)', async () => {
    const { toolManager, tools } = freshInstall();
    const order: string[] = [];
    toolManager.addEventListener('toolactivated', () => order.push('toolactivated'));
    await toolManager.register({
      name: 'starts',
      execute: () => {
        order.push('execute');
        return 1;
      },
    });
    await tools.callTool('starts', {});
    expect(order).toEqual(['execute', 'toolactivated']);
  });

  it('agentOnly lists only tools with naturalLanguageProperties', async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register({ name: 'internal', execute: () => 1 });
    await toolManager.register({
      name: 'public',
      naturalLanguageProperties: { description: 'For agents.' },
      execute: () => 1,
    });
    expect(
      (await tools.getTools({ agentOnly: true })).map((tool) => [tool.name, tool.agentExposed]),
    ).toEqual([['public', true]]);
    expect((await tools.getTools()).map((tool) => tool.agentExposed)).toEqual([false, true]);
  });

  it('an unknown encoding is a TypeError', async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register({ name: 'x', execute: () => 1 });
    expect((await rejection(tools.callTool('x', {}, { encoding: 'xml' as never }))).name).toBe(
      'TypeError',
    );
  });
});

/**
 * A stand-in for a browser's own document.modelContext (the native layer's input): tools
 * registered natively, listed by getTools() and run by executeTool.
 */
function nativeContext(origin: string, listing?: () => Promise<unknown[]>) {
  const executed: { name: string; input: unknown }[] = [];
  const registered = [
    { name: 'native.only', description: 'Native.', origin },
    { name: 'both', description: 'Native too.', origin },
  ];
  const context = Object.assign(new EventTarget(), {
    registerTool: async () => undefined,
    getTools: listing ?? (async () => registered),
    executeTool: async (tool: { name: string }, input: unknown) => {
      executed.push({ name: tool.name, input });
      return JSON.stringify({ native: tool.name, input });
    },
  });
  return { context, executed };
}

function installOnNative(context: EventTarget) {
  const win = new Window({ url: 'https://app.example/' });
  Object.defineProperty(win.document, 'modelContext', { value: context, configurable: true });
  return install({ window: win as unknown as never });
}

describe('tools.callTool by name, across what getTools() lists', () => {
  it('a name with no tool here reaches the native tool getTools() lists; this document keeps its own', async () => {
    const { context, executed } = nativeContext('https://app.example');
    const { toolManager, tools } = installOnNative(context);
    await toolManager.register({ name: 'both', execute: () => 'own' });
    const listed = await tools.getTools();
    expect(listed.map((tool) => tool.name)).toEqual(['both', 'both', 'native.only']);
    // The handle path first: the native tool is callable at all.
    const handle = listed.find((tool) => tool.name === 'native.only') as Tool;
    expect(await tools.callTool(handle, { a: 1 })).toEqual({
      native: 'native.only',
      input: { a: 1 },
    });
    expect(await tools.callTool('native.only', { a: 2 })).toEqual({
      native: 'native.only',
      input: { a: 2 },
    });
    // This document's own registration wins over a native tool of the same name.
    expect(await tools.callTool('both', {})).toBe('own');
    expect(executed).toEqual([
      { name: 'native.only', input: { a: 1 } },
      { name: 'native.only', input: { a: 2 } },
    ]);
    expect((await rejection(tools.callTool('missing'))).name).toBe('NotFoundError');
  });

  it('the caller signal aborts the lookup: pre-aborted, or while the listing waits', async () => {
    let listings = 0;
    const { context, executed } = nativeContext('https://app.example', () => {
      listings++;
      return new Promise(() => {});
    });
    const { tools } = installOnNative(context);
    const reason = new Error('stop');
    expect(
      (await rejection(tools.callTool('native.only', {}, { signal: AbortSignal.abort(reason) })))
        .error,
    ).toBe(reason);
    expect(listings).toBe(0);
    const controller = new AbortController();
    const pending = tools.callTool('native.only', {}, { signal: controller.signal });
    await until(() => listings > 0, 'the listing was asked for');
    // The listing was asked for and hangs: only the abort can settle the call.
    expect(listings).toBe(1);
    controller.abort(reason);
    expect((await rejection(pending)).error).toBe(reason);
    expect(executed).toEqual([]);
  });
});
