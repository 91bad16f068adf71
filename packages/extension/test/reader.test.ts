/**
 * The MAIN-world reader (src/main-world/): listing and calling through `window.tools` or
 * `document.modelContext`, form tools told apart, names made unique, errors coded; and the
 * reader and the relay together on one window, through the real handoff.
 */
import { install } from '@toolwire/polyfill';
import { ToolProtocolError } from '@toolwire/protocol';
import { Window } from 'happy-dom';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import type { RuntimePortLike } from '../src/channel/runtime-port.js';
import { ToolReader } from '../src/main-world/read-tools.js';
import { startMainWorldReader } from '../src/main-world/reader.js';
import { startRelay } from '../src/relay/relay.js';

const ORIGIN = 'http://localhost:5197';
const windows: Window[] = [];
afterEach(async () => {
  for (const win of windows.splice(0)) await win.happyDOM.close();
});

function page(): globalThis.Window {
  const win = new Window({ url: `${ORIGIN}/page` });
  windows.push(win);
  return win as unknown as globalThis.Window;
}

/** A stand-in for toolwire's `window.tools`. */
function fakeTools(
  win: globalThis.Window,
  list: object[],
  call: (tool: unknown, input: unknown, options: any) => unknown,
) {
  const tools = Object.assign(new (win as any).EventTarget(), {
    getTools: async () => list,
    callTool: async (tool: unknown, input: unknown, options: unknown) => call(tool, input, options),
  });
  (win as any).tools = tools;
  return tools;
}

describe('ToolReader', () => {
  it('lists window.tools, tells form tools apart, names duplicates by origin, and calls by handle as JSON', async () => {
    const win = page();
    win.document.body.innerHTML = '<form toolname="subscribe"></form>';
    const cart = {
      name: 'cart.add',
      title: '',
      description: 'Adds.',
      origin: ORIGIN,
      annotations: { readOnlyHint: true },
    };
    const frameCart = {
      name: 'cart.add',
      title: 'Frame cart',
      description: '',
      origin: 'http://127.0.0.1:5197',
    };
    const form = { name: 'subscribe', title: '', description: 'Subscribes.', origin: ORIGIN };
    const calls: unknown[] = [];
    fakeTools(win, [cart, frameCart, form], (tool, input, options) => {
      calls.push([tool, input, options.encoding]);
      return { ok: 1 };
    });
    const reader = new ToolReader(win);
    const listed = await reader.list();
    expect(listed.map((t) => [t.name, t.source, t.policy, t.origin])).toEqual([
      ['cart.add', 'toolwire', 'read', ORIGIN],
      ['cart.add@http://127.0.0.1:5197', 'toolwire', 'write', 'http://127.0.0.1:5197'],
      ['subscribe', 'declarative', 'write', ORIGIN],
    ]);
    const signal = new AbortController().signal;
    expect(await reader.call('cart.add@http://127.0.0.1:5197', { q: 1 }, signal)).toEqual({
      ok: true,
      result: { ok: 1 },
    });
    expect(calls).toEqual([[frameCart, { q: 1 }, 'json']]);
  });

  it('keeps the policy toolwire holds for a tool, and marks tools not for agents', async () => {
    const win = page();
    const wipe = { name: 'data.wipe', title: '', description: 'Wipes.', origin: ORIGIN };
    const look = { name: 'data.look', title: '', description: '', origin: ORIGIN, annotations: {} };
    const own = { name: 'own.helper', description: '', origin: ORIGIN, agentExposed: false };
    const tools = fakeTools(win, [wipe, look, own], () => null);
    // Honest path without sourceOf: the annotations rule (no hint: write).
    expect((await new ToolReader(win).list()).map((t) => [t.name, t.policy])).toEqual([
      ['data.wipe', 'write'],
      ['data.look', 'write'],
      ['own.helper', 'write'],
    ]);
    // toolwire's window.tools says where each tool lives: a declared policy shows in no
    // annotation, and must not be read as write.
    Object.assign(tools, {
      sourceOf: (tool: unknown) =>
        tool === wipe
          ? { kind: 'registry', entry: { policy: 'critical' } }
          : tool === look
            ? { kind: 'frame', descriptor: { policy: 'read' } }
            : { kind: 'native', declarative: () => false },
    });
    const listed = await new ToolReader(win).list();
    expect(listed.map((t) => [t.name, t.policy, t.agentExposed])).toEqual([
      ['data.wipe', 'critical', undefined],
      ['data.look', 'read', undefined],
      ['own.helper', 'write', false],
    ]);
    // A sourceOf that throws or lies about the policy falls back to the rule.
    Object.assign(tools, { sourceOf: () => ({ entry: { policy: 'root' } }) });
    expect((await new ToolReader(win).list())[0]?.policy).toBe('write');
    Object.assign(tools, {
      sourceOf: () => {
        throw new Error('no');
      },
    });
    expect((await new ToolReader(win).list())[0]?.policy).toBe('write');
  });

  it("codes an error that carries no code by its name (a browser's, another polyfill's)", async () => {
    const win = page();
    fakeTools(win, [], () => {
      throw Object.assign(new Error('bad input'), { name: 'DataError' });
    });
    expect(await new ToolReader(win).call('x', {}, new AbortController().signal)).toEqual({
      ok: false,
      error: {
        code: 'tool_arguments_schema_invalid',
        name: 'DataError',
        message: 'bad input',
        retryable: false,
        details: null,
      },
    });
  });

  it("codes the real polyfill's errors by their properties, as the page's endpoint does", async () => {
    const win = page();
    const { toolManager } = install({ window: win as never });
    const nlp = (readOnly: boolean) => ({
      description: 'd',
      annotations: { readOnlyHint: readOnly },
    });
    await toolManager.register({
      name: 'q',
      naturalLanguageProperties: nlp(true),
      inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      execute: (input: unknown) => input,
    });
    await toolManager.register({
      name: 'boom',
      naturalLanguageProperties: nlp(true),
      execute: () => {
        throw new TypeError('bad');
      },
    });
    for (const [name, readOnly] of [
      ['hangs.read', true],
      ['hangs.write', false],
    ] as const)
      await toolManager.register({
        name,
        naturalLanguageProperties: nlp(readOnly),
        execute: () => new Promise(() => {}),
      });
    const reader = new ToolReader(win);
    await reader.list();
    const open = () => new AbortController().signal;
    // Honest path first.
    expect(await reader.call('q', { q: 'yes' }, open())).toEqual({
      ok: true,
      result: { q: 'yes' },
    });
    expect(await reader.call('q', { q: 1 }, open())).toEqual({
      ok: false,
      error: {
        code: 'tool_arguments_schema_invalid',
        name: 'DataError',
        message: expect.stringMatching(/argumentsSchema: \$\.q /),
        retryable: false,
        details: [expect.objectContaining({ path: '$.q', keyword: 'type' })],
      },
    });
    expect(await reader.call('boom', {}, open())).toEqual({
      ok: false,
      error: {
        code: 'tool_execution_exception',
        name: 'ToolExecutionError',
        message: 'Tool "boom" threw: bad',
        retryable: false,
        details: { name: 'TypeError', message: 'bad' },
      },
    });
    // The call's signal: its reason says deadline or cancel; a deadline is retryable for a read tool.
    const stopped = async (name: string, reason?: unknown) => {
      const controller = new AbortController();
      const outcome = reader.call(name, {}, controller.signal);
      controller.abort(reason);
      return ((await outcome) as { error: { code: string; retryable: boolean } }).error;
    };
    const deadline = () => new ToolProtocolError('tool_execution_timeout', 'Too late.');
    expect(await stopped('hangs.read', deadline())).toMatchObject({
      code: 'tool_execution_timeout',
      retryable: true,
    });
    expect(await stopped('hangs.write', deadline())).toMatchObject({
      code: 'tool_execution_timeout',
      retryable: false,
    });
    expect(await stopped('hangs.read')).toMatchObject({
      code: 'tool_call_cancelled',
      retryable: false,
    });
  });

  it('reads a native document.modelContext when toolwire is not there', async () => {
    const win = page();
    const native = {
      name: 'newsletter',
      description: 'Subscribes.',
      inputSchema: '{"type":"object"}',
      origin: ORIGIN,
    };
    (win.document as any).modelContext = Object.assign(new (win as any).EventTarget(), {
      getTools: async () => [native],
      executeTool: async (tool: unknown, input: unknown) =>
        JSON.stringify({ tool: tool === native, input }),
    });
    const reader = new ToolReader(win);
    expect(await reader.list()).toMatchObject([
      { name: 'newsletter', source: 'native', inputSchema: { type: 'object' } },
    ]);
    expect(await reader.call('newsletter', { a: 1 }, new AbortController().signal)).toEqual({
      ok: true,
      result: { tool: true, input: { a: 1 } },
    });
  });
});

describe('the reader and the relay on one window', () => {
  it('hand the private port over and answer the background through it', async () => {
    const win = page();
    fakeTools(win, [{ name: 't', title: '', description: 'T.', origin: ORIGIN }], () => 'done');
    const sent: unknown[] = [];
    let request: (message: unknown) => void = () => {};
    const background: RuntimePortLike = {
      name: 'toolwire-relay',
      postMessage: (message) => sent.push(message),
      disconnect: () => {},
      onMessage: { addListener: (listener) => (request = listener) },
      onDisconnect: { addListener: () => {} },
    };
    // happy-dom has no MessageChannel: Node's stands in (the page's own, captured by the reader).
    (win as any).MessageChannel = MessageChannel;
    // Nor a postMessage that transfers ports: the browser's, as a queued MessageEvent.
    (win as any).postMessage = (data: unknown, targetOrigin: string, ports: MessagePort[]) => {
      expect(targetOrigin).toBe(ORIGIN);
      // Semantic, not a wait: window.postMessage queues a task to dispatch the event.
      setTimeout(() =>
        win.dispatchEvent(
          new (win as any).MessageEvent('message', { data, origin: ORIGIN, source: win, ports }),
        ),
      );
    };
    const state = startRelay({ win, connect: () => background });
    startMainWorldReader(win);
    await until(() => state.accepted, 'the relay accepted the handoff');
    request({ id: 1, op: 'list' });
    request({ id: 2, op: 'call', name: 't', args: {} });
    // Answers, beside change notices (the document loading).
    const answers = () => sent.filter((message) => 'id' in (message as object));
    await until(() => answers().length === 2, 'both answers');
    for (const message of sent)
      if (!('id' in (message as object))) expect(message).toEqual({ event: 'changed' });
    expect(answers()).toEqual([
      {
        id: 1,
        outcome: {
          ok: true,
          result: [
            { name: 't', description: 'T.', origin: ORIGIN, source: 'toolwire', policy: 'write' },
          ],
        },
      },
      { id: 2, outcome: { ok: true, result: 'done' } },
    ]);
    expect(state.refused).toBe(0);
  });
});
