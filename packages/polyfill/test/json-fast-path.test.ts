/**
 * The per-call fast path of `callTool(..., {encoding: 'json'})` for a tool without schemas: the
 * JSON check of the input is a walk that builds no paths unless something fails, and the call
 * takes fewer promise hops. These pin what the slow path guaranteed: the same DataError names,
 * paths and reasons, events that still fire, aborts that still reject.
 */
import { describe, expect, it, vi } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { freshInstall, rejection } from './helpers.js';

async function echoInstall() {
  const installation = freshInstall();
  const execute = vi.fn((input: unknown) => input);
  await installation.toolManager.register({ name: 'echo', execute });
  return { ...installation, execute };
}

async function dataErrorOf(input: unknown) {
  const { tools, execute } = await echoInstall();
  const result = await rejection(tools.callTool('echo', input, { encoding: 'json' }));
  expect(execute).not.toHaveBeenCalled();
  expect(result.name).toBe('DataError');
  expect(result.error.errors).toHaveLength(1);
  return JSON.parse(result.message) as { path: string; reason: string; schemaPath: string };
}

describe('callTool json without an inputSchema', () => {
  it('passes JSON input through as given, and lowers the result', async () => {
    const { tools, execute } = await echoInstall();
    const input = { a: [1, 'two', null, true, { b: [] }], c: {}, 'd/e~f': 1.5 };
    expect(await tools.callTool('echo', input, { encoding: 'json' })).toEqual(input);
    expect(execute.mock.calls[0]?.[0]).toBe(input);
    // Shared (not cyclic) references are JSON.
    const shared = { x: 1 };
    expect(
      await tools.callTool('echo', { p: shared, q: [shared, shared] }, { encoding: 'json' }),
    ).toEqual({ p: { x: 1 }, q: [{ x: 1 }, { x: 1 }] });
    expect(await tools.callTool('echo', Object.create(null), { encoding: 'json' })).toEqual({});
  });

  it('refuses what JSON cannot hold with a DataError naming the JSON Pointer path', async () => {
    expect(await dataErrorOf({ a: { b: undefined } })).toEqual({
      path: '/a/b',
      reason: 'a undefined is not JSON',
      schemaPath: '',
    });
    expect(await dataErrorOf({ list: [1, 2, Number.NaN] })).toEqual({
      path: '/list/2',
      reason: 'NaN is not a JSON number',
      schemaPath: '',
    });
    expect(await dataErrorOf({ 'a/b': { 'c~d': () => 1 } })).toEqual({
      path: '/a~1b/c~0d',
      reason: 'a function is not JSON',
      schemaPath: '',
    });
    expect(await dataErrorOf({ when: new Date(0) })).toEqual({
      path: '/when',
      reason: 'is not a plain object',
      schemaPath: '',
    });
    expect((await dataErrorOf({ n: 10n })).reason).toBe('a bigint is not JSON');
    expect((await dataErrorOf(new Array(3).fill(1, 0, 1))).path).toBe('/1');
    expect((await dataErrorOf(Number.POSITIVE_INFINITY)).path).toBe('');
  });

  it('refuses cycles and nesting past 128 levels', async () => {
    const cyclic: Record<string, unknown> = { ok: [1] };
    cyclic.inner = { back: cyclic };
    expect(await dataErrorOf(cyclic)).toEqual({
      path: '/inner/back',
      reason: 'refers back to itself (a cycle)',
      schemaPath: '',
    });
    const deep = (levels: number) => {
      let value: unknown = 1;
      for (let i = 0; i < levels; i++) value = [value];
      return value;
    };
    const { tools } = await echoInstall();
    expect(await tools.callTool('echo', deep(128), { encoding: 'json' })).toEqual(deep(128));
    const tooDeep = await dataErrorOf(deep(129));
    expect(tooDeep.reason).toBe('nests deeper than 128 levels');
    expect(tooDeep.path).toBe(`${'/0'.repeat(128)}`);
  });

  it('fires toolactivated for a listener added after earlier calls', async () => {
    const { tools, toolManager } = await echoInstall();
    await tools.callTool('echo', { n: 1 }, { encoding: 'json' });
    const heard: string[] = [];
    toolManager.addEventListener('toolactivated', (event) =>
      heard.push((event as unknown as { toolName: string }).toolName),
    );
    await tools.callTool('echo', { n: 2 }, { encoding: 'json' });
    expect(heard).toEqual(['echo']);
  });

  it('an aborted call still rejects with the caller reason, and the tool signal aborts', async () => {
    const { tools, toolManager } = freshInstall();
    let toolSignal: AbortSignal | undefined;
    const cancelled = vi.fn();
    toolManager.addEventListener('toolcancel', cancelled);
    await toolManager.register({
      name: 'slow',
      execute: (_input: unknown, { signal }: { signal: AbortSignal }) => {
        toolSignal = signal;
        return new Promise(() => {});
      },
    });
    const pre = await rejection(
      tools.callTool('slow', {}, { encoding: 'json', signal: AbortSignal.abort() }),
    );
    expect(pre.name).toBe('AbortError');
    const controller = new AbortController();
    const pending = tools.callTool(
      'slow',
      { a: 1 },
      { encoding: 'json', signal: controller.signal },
    );
    await until(() => toolSignal, 'execute() ran');
    controller.abort();
    expect((await rejection(pending)).name).toBe('AbortError');
    // The tool's signal aborts, and toolcancel fires, in a later task than the rejection.
    await until(() => cancelled.mock.calls.length, 'toolcancel');
    expect(toolSignal?.aborted).toBe(true);
    expect(cancelled).toHaveBeenCalledTimes(1);
  });
});

describe('callTool json for the wire (WIRE_RESULT)', () => {
  const WIRE = { encoding: 'json', [Symbol.for('toolwire.wireResult')]: true } as never;

  async function returning(result: unknown, outputSchema?: Record<string, unknown>) {
    const { toolManager, tools } = freshInstall();
    await toolManager.register({
      name: 'give',
      ...(outputSchema ? { outputSchema } : {}),
      execute: () => result,
    });
    return tools;
  }

  it('hands JSON back as it is, and copies it without the key', async () => {
    const result = { a: [1, 'x', null, false, { b: {} }], 'c/d': -1.5 };
    const tools = await returning(result);
    expect(await tools.callTool('give', {}, WIRE)).toBe(result);
    const copy = await tools.callTool('give', {}, { encoding: 'json' });
    expect(copy).not.toBe(result);
    expect(copy).toEqual(result);
  });

  it('lowers anything that is not JSON as it is, exactly as without the key', async () => {
    const cases: unknown[] = [
      { when: new Date(0) },
      { m: new Map([['k', 1]]) },
      { gone: undefined, kept: 1 },
      { big: 10n },
      'a string',
      undefined,
      { zero: -0 },
    ];
    for (const value of cases) {
      const tools = await returning(value);
      expect(await tools.callTool('give', {}, WIRE)).toEqual(
        await tools.callTool('give', {}, { encoding: 'json' }),
      );
    }
  });

  it('still refuses what lower refuses (OperationError), and still checks outputSchema', async () => {
    const deep = (levels: number) => {
      let value: unknown = 1;
      for (let i = 0; i < levels; i++) value = [value];
      return value;
    };
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const throwing = {
      get boom() {
        throw new Error('no');
      },
    };
    for (const value of [
      { n: Number.NaN },
      [1, undefined],
      new Array(2).fill(1, 0, 1),
      { f: () => 1 },
      cyclic,
      deep(129),
      throwing,
    ]) {
      const tools = await returning(value);
      expect((await rejection(tools.callTool('give', {}, WIRE))).name).toBe('OperationError');
    }
    const tools = await returning(deep(128));
    expect(await tools.callTool('give', {}, WIRE)).toEqual(deep(128));
    const checked = await returning(
      { n: 'x' },
      {
        type: 'object',
        properties: { n: { type: 'number' } },
      },
    );
    const refused = await rejection(checked.callTool('give', {}, WIRE));
    expect(refused.name).toBe('OperationError');
    expect(refused.message).toBe(
      (await rejection(checked.callTool('give', {}, { encoding: 'json' }))).message,
    );
  });
});

describe('the abort listener goes on only for tools that return a promise', () => {
  it('a tool that answers at once leaves the signal alone, and still resolves', async () => {
    const { toolManager, tools } = freshInstall();
    await toolManager.register({ name: 'now', execute: () => 'done' });
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    expect(await tools.callTool('now', {}, { signal: controller.signal })).toBe('done');
    expect(add).not.toHaveBeenCalled();
  });

  it('an abort from a toolactivated listener still rejects with the reason and fires toolcancel', async () => {
    const { toolManager, tools } = freshInstall();
    const execute = vi.fn(() => 'late');
    await toolManager.register({ name: 'now', execute });
    const controller = new AbortController();
    const reason = new Error('changed my mind');
    toolManager.addEventListener('toolactivated', () => controller.abort(reason));
    const cancelled = vi.fn();
    toolManager.addEventListener('toolcancel', cancelled);
    expect((await rejection(tools.callTool('now', {}, { signal: controller.signal }))).error).toBe(
      reason,
    );
    await until(() => cancelled.mock.calls.length, 'toolcancel');
    expect(cancelled).toHaveBeenCalledTimes(1);
  });

  it('an abort inside a synchronous execute wins over its return value and over its throw', async () => {
    const { toolManager, tools } = freshInstall();
    let controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    await toolManager.register({
      name: 'returns',
      execute: (_input: unknown, { signal }: { signal: AbortSignal }) => {
        toolSignal = signal;
        controller.abort();
        return 'value';
      },
    });
    await toolManager.register({
      name: 'throws',
      execute: () => {
        controller.abort();
        throw new Error('after abort');
      },
    });
    expect(
      (await rejection(tools.callTool('returns', {}, { signal: controller.signal }))).name,
    ).toBe('AbortError');
    await until(() => toolSignal?.aborted, "the tool's signal aborted");
    expect(toolSignal?.aborted).toBe(true);
    controller = new AbortController();
    expect(
      (await rejection(tools.callTool('throws', {}, { signal: controller.signal }))).name,
    ).toBe('AbortError');
  });

  it('a promise-returning tool is still cancelled mid-call, its late result ignored', async () => {
    const { toolManager, tools } = freshInstall();
    let finish!: (value: unknown) => void;
    await toolManager.register({
      name: 'later',
      execute: () =>
        new Promise((resolve) => {
          finish = resolve;
        }),
    });
    const controller = new AbortController();
    const pending = tools.callTool('later', {}, { signal: controller.signal, encoding: 'json' });
    await until(() => finish, 'execute() ran');
    controller.abort();
    finish('too late');
    expect((await rejection(pending)).name).toBe('AbortError');
    // And without an abort it resolves; the listener is taken off again.
    const second = new AbortController();
    const remove = vi.spyOn(second.signal, 'removeEventListener');
    const ok = tools.callTool('later', {}, { signal: second.signal });
    finish('fine');
    expect(await ok).toBe('fine');
    expect(remove).toHaveBeenCalledTimes(1);
  });
});
