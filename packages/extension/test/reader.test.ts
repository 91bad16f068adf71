/**
 * The MAIN-world reader (src/main-world/): listing and calling through `window.tools` or
 * `document.modelContext`, form tools told apart, names made unique, errors coded; and the
 * reader and the relay together on one window, through the real handoff.
 */
import { install } from '@toolwire/polyfill';
import { ToolProtocolError } from '@toolwire/protocol';
import { Window } from 'happy-dom';
import { afterEach, describe, expect, it } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import type { RuntimePortLike } from '../src/channel/runtime-port.js';
import { MAX_PROGRESS_MESSAGE } from '../src/channel/sanitize.js';
import { ToolReader } from '../src/main-world/read-tools.js';
import { startInPage } from './in-page.js';

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
    // A tool the polyfill only lists for the browser (its own registerTool, not a form) is the
    // browser's: the bridge checks its arguments, as the page's own endpoint does.
    expect(listed.map((t) => [t.name, t.source])).toEqual([
      ['data.wipe', 'toolwire'],
      ['data.look', 'toolwire'],
      ['own.helper', 'native'],
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

  it('hands callTool an onProgress only when the call asked for progress', async () => {
    const win = page();
    const seen: unknown[] = [];
    fakeTools(win, [], (_tool, _input, options) => {
      seen.push(Object.keys(options).sort());
      options.onProgress?.({ progress: 1 });
      return null;
    });
    const reader = new ToolReader(win);
    const reports: unknown[] = [];
    await reader.call('t', {}, new AbortController().signal, (report) => reports.push(report));
    await reader.call('t', {}, new AbortController().signal);
    expect(seen).toEqual([
      ['encoding', 'onProgress', 'signal'],
      ['encoding', 'signal'],
    ]);
    expect(reports).toEqual([{ progress: 1 }]);
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
        message: '`q` must be a string',
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
      executeTool: async (tool: unknown, input: unknown, options: { signal?: unknown }) =>
        JSON.stringify({ tool: tool === native, input, signal: options.signal === signal }),
    });
    const reader = new ToolReader(win);
    expect(await reader.list()).toMatchObject([
      { name: 'newsletter', source: 'native', inputSchema: { type: 'object' } },
    ]);
    // The caller's signal goes to executeTool; a native tool reports no progress.
    const signal = new AbortController().signal;
    expect(await reader.call('newsletter', { a: 1 }, signal, () => {})).toEqual({
      ok: true,
      result: { tool: true, input: { a: 1 }, signal: true },
    });
  });
});

/**
 * The reader and the relay started on `win` as the extension starts them, with a fake
 * background port: `request` sends it a background request, `sent` is what reached it.
 */
async function startBoth(win: globalThis.Window) {
  const sent: any[] = [];
  let request: (message: unknown) => void = () => {};
  const background: RuntimePortLike = {
    name: 'toolwire-relay',
    postMessage: (message) => sent.push(message),
    disconnect: () => {},
    onMessage: { addListener: (listener) => (request = listener) },
    onDisconnect: { addListener: () => {} },
  };
  const state = await startInPage(win, () => background);
  return { state, sent, request: (message: unknown) => request(message) };
}

describe('the reader and the relay on one window', () => {
  it('hand the private port over and answer the background through it', async () => {
    const win = page();
    fakeTools(win, [{ name: 't', title: '', description: 'T.', origin: ORIGIN }], () => 'done');
    const { state, sent, request } = await startBoth(win);
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

  it("take a call's input as JSON text and give its result as JSON text; what is not JSON fails coded", async () => {
    const win = page();
    const seen: { input: unknown; wire: unknown }[] = [];
    fakeTools(
      win,
      [{ name: 't', title: '', description: 'T.', origin: ORIGIN }],
      (_t, input, options) => {
        seen.push({ input, wire: options[Symbol.for('toolwire.wireResult')] });
        return (input as { big?: boolean }).big ? { n: 1n } : { echo: input };
      },
    );
    const { sent, request } = await startBoth(win);
    // Honest first: the text is parsed in the MAIN world; the result comes back whole.
    request({ id: 1, op: 'call', name: 't', argsJson: '{"q":"a","list":[1,2]}' });
    // A result JSON cannot hold: the relay says so with a code.
    request({ id: 2, op: 'call', name: 't', argsJson: '{"big":true}' });
    // Input text that is not JSON, or not text: no call runs.
    request({ id: 3, op: 'call', name: 't', argsJson: '{"q":' });
    request({ id: 4, op: 'call', name: 't', argsJson: 5 });
    const answers = () => sent.filter((message) => 'id' in (message as object));
    await until(() => answers().length === 2, 'two answers');
    expect(answers()).toMatchObject([
      { id: 1, outcome: { ok: true, result: { echo: { q: 'a', list: [1, 2] } } } },
      { id: 2, outcome: { ok: false, error: { code: 'response_invalid' } } },
    ]);
    // The reader serializes at once, so it tells the polyfill a JSON result need not be copied.
    expect(seen).toEqual([
      { input: { q: 'a', list: [1, 2] }, wire: true },
      { input: { big: true }, wire: true },
    ]);
  });

  it('cancel the call the background cancels: the tool sees its signal abort', async () => {
    const win = page();
    const started = latch<AbortSignal>();
    fakeTools(win, [], (_tool, _input, options) => {
      const signal: AbortSignal = options.signal;
      started.open(signal);
      // As toolwire's callTool does: rejects with the signal's reason once it aborts.
      return new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
      );
    });
    const { sent, request } = await startBoth(win);
    request({ id: 1, op: 'call', name: 'slow', args: {} });
    const signal = await started.wait;
    expect(signal.aborted).toBe(false);
    request({ id: 1, op: 'abort' });
    await until(() => sent.some((message) => message.id === 1), 'the answer');
    expect(signal.aborted).toBe(true);
    expect(sent.filter((message) => 'id' in message)).toEqual([
      {
        id: 1,
        outcome: {
          ok: false,
          error: {
            code: 'tool_call_cancelled',
            name: 'AbortError',
            message: 'The caller cancelled the call.',
          },
        },
      },
    ]);
  });

  it("pass a tool's progress on, checked and throttled, the last one before the answer", async () => {
    const win = page();
    const go = latch();
    fakeTools(win, [], async (_tool, _input, options) => {
      const report = options.onProgress as ((value: unknown) => void) | undefined;
      if (!report) return 'no progress asked';
      // A burst: the first goes at once, the latest of the rest at the window's end.
      report({ progress: 1, total: 10, message: 'x'.repeat(MAX_PROGRESS_MESSAGE + 1) });
      report({ progress: 2, total: 10 });
      report({ progress: 3, total: 10, message: 'three' });
      // Not moving forward, not a number, a getter that throws: dropped.
      report({ progress: 3 });
      report({ progress: Number.NaN });
      report({
        get progress(): number {
          throw new Error('page code');
        },
      });
      await go.wait;
      report({ progress: 4, total: 10 });
      report({ progress: 5, total: 10, message: 'five' });
      return 'done';
    });
    const { sent, request } = await startBoth(win);
    const reports = () => sent.filter((message) => 'progress' in message);
    request({ id: 1, op: 'call', name: 'slow', args: {}, progress: true });
    await until(() => reports().length === 2, 'the first report and the window end');
    expect(reports()).toEqual([
      { id: 1, progress: { progress: 1, total: 10, message: 'x'.repeat(MAX_PROGRESS_MESSAGE) } },
      { id: 1, progress: { progress: 3, total: 10, message: 'three' } },
    ]);
    go.open();
    await until(() => sent.some((message) => 'outcome' in message), 'the answer');
    const forCall = sent.filter((message) => message.id === 1);
    // 4 went, or was held and replaced by 5, as the window decides; 5 comes last, before the
    // answer, either way.
    expect(forCall.slice(-2)).toEqual([
      { id: 1, progress: { progress: 5, total: 10, message: 'five' } },
      { id: 1, outcome: { ok: true, result: 'done' } },
    ]);
    expect(forCall.length === 4 || forCall[2].progress.progress === 4).toBe(true);
    // A call that did not ask gets no onProgress at all.
    request({ id: 2, op: 'call', name: 'quiet', args: {} });
    await until(() => sent.some((message) => message.id === 2), 'the second answer');
    expect(sent.filter((message) => message.id === 2)).toEqual([
      { id: 2, outcome: { ok: true, result: 'no progress asked' } },
    ]);
  });
});
