/**
 * `tabTools(tabId)` in the background (src/background/): relays accepted only from this
 * extension's top frames, calls answered through the relay, and `tab_gone` for pending calls
 * when the tab's document goes (navigated) or the tab closes, with `onGone` once. A fake
 * `chrome` stands in for the browser.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { until } from '../../../test-support/wait.js';
import type { RuntimePortLike } from '../src/channel/runtime-port.js';
import { MAX_PROGRESS_MESSAGE } from '../src/channel/sanitize.js';

type Listener<T extends unknown[]> = (...args: T) => void;

class FakePort implements RuntimePortLike {
  sent: any[] = [];
  disconnected = false;
  #message: Listener<[unknown]>[] = [];
  #disconnect: Listener<[]>[] = [];
  constructor(
    readonly name: string,
    readonly sender: object,
  ) {}
  postMessage(message: unknown): void {
    this.sent.push(message);
  }
  disconnect(): void {
    this.disconnected = true;
  }
  onMessage = { addListener: (listener: Listener<[unknown]>) => this.#message.push(listener) };
  onDisconnect = { addListener: (listener: Listener<[]>) => this.#disconnect.push(listener) };
  /** The relay answers. */
  reply(message: unknown): void {
    for (const listener of this.#message) listener(message);
  }
  /** The document unloads. */
  drop(): void {
    for (const listener of this.#disconnect) listener();
  }
}

const connectListeners: Listener<[FakePort]>[] = [];
const removedListeners: Listener<[number]>[] = [];
const updatedListeners: Listener<[number, { title?: string; url?: string }]>[] = [];
const openTabs = new Set<number>();
(globalThis as any).chrome = {
  runtime: {
    id: 'ext',
    onConnect: { addListener: (listener: Listener<[FakePort]>) => connectListeners.push(listener) },
  },
  tabs: {
    get: (tabId: number) =>
      openTabs.has(tabId) ? Promise.resolve({}) : Promise.reject(new Error('gone')),
    onRemoved: { addListener: (listener: Listener<[number]>) => removedListeners.push(listener) },
    onUpdated: {
      addListener: (listener: Listener<[number, { title?: string; url?: string }]>) =>
        updatedListeners.push(listener),
    },
  },
};

let tabTools: typeof import('../src/background/tab-tools.js').tabTools;
beforeAll(async () => {
  ({ tabTools } = await import('../src/background/tab-tools.js'));
  // As the background does at its top level: relays are accepted from the start, whichever
  // case runs first (a relay that connects before any tabTools() call is not lost).
  const { listenForRelays } = await import('../src/background/relays.js');
  listenForRelays();
});
afterEach(() => {
  vi.useRealTimers();
});

function connect(tabId: number, sender: object = {}): FakePort {
  openTabs.add(tabId);
  const port = new FakePort('toolwire-relay', {
    id: 'ext',
    frameId: 0,
    url: `https://app.example/t${tabId}`,
    tab: { id: tabId, title: `Tab ${tabId}` },
    ...sender,
  });
  for (const listener of connectListeners) listener(port);
  return port;
}

const TOOL = { name: 't', description: 'T.', origin: 'https://app.example', source: 'toolwire' };

describe('tabTools', () => {
  it("lists and calls through the tab's relay, which connected before or after", async () => {
    // A loading tab: its relay connects while the client still waits for one.
    vi.useFakeTimers();
    const client = tabTools(1, { waitMs: 1000 });
    await vi.advanceTimersByTimeAsync(999);
    const port = connect(1);
    vi.useRealTimers();
    const listing = client.list();
    await until(() => port.sent.length === 1, 'the list request');
    expect(port.sent).toEqual([{ id: 1, op: 'list' }]);
    port.reply({ id: 1, outcome: { ok: true, result: [TOOL, { name: 'bad' }] } });
    expect(await listing).toEqual([TOOL]);
    expect(client.tab).toEqual({
      tabId: 1,
      title: 'Tab 1',
      url: 'https://app.example/t1',
      origin: 'https://app.example',
    });
    // The title and URL follow the document; a URL of another origin is not this document's.
    for (const listener of updatedListeners)
      listener(1, { title: 'Loaded', url: 'https://app.example/t1#x' });
    for (const listener of updatedListeners) listener(1, { url: 'https://evil.example/' });
    expect(client.tab).toMatchObject({ title: 'Loaded', url: 'https://app.example/t1#x' });
    const call = client.call('t', { a: 1 });
    await until(() => port.sent.length === 2, 'the call request');
    expect(port.sent[1]).toEqual({ id: 2, op: 'call', name: 't', args: { a: 1 } });
    port.reply({ id: 2, outcome: { ok: true, result: { b: 2 } } });
    expect(await call).toEqual({ ok: true, result: { b: 2 } });
  });

  it('refuses relays from frames, other extensions or no tab', async () => {
    const frame = connect(2, { frameId: 3 });
    const other = connect(2, { id: 'someone-else' });
    expect([frame.disconnected, other.disconnected]).toEqual([true, true]);
    // No relay comes within the wait.
    vi.useFakeTimers();
    const listing = expect(tabTools(2, { waitMs: 30 }).list()).rejects.toMatchObject({
      code: 'no_relay',
    });
    const calling = tabTools(2, { waitMs: 30 }).call('t', {});
    await vi.advanceTimersByTimeAsync(30);
    await listing;
    expect(await calling).toMatchObject({ ok: false, error: { code: 'no_relay' } });
  });

  it('fails pending calls with tab_gone when the document goes, and fires onGone once', async () => {
    const port = connect(3);
    const client = tabTools(3);
    const reasons: string[] = [];
    client.onGone((reason) => reasons.push(reason));
    const call = client.call('t', {});
    await until(() => port.sent.length === 1, 'the call reached the relay');
    port.drop();
    expect(await call).toMatchObject({ ok: false, error: { code: 'tab_gone' } });
    await until(() => reasons.length > 0, 'onGone');
    await expect(client.list()).rejects.toMatchObject({ code: 'tab_gone' });
    expect(reasons).toEqual(['navigated']);

    const next = connect(3);
    const closing = tabTools(3);
    const closed: string[] = [];
    closing.onGone((reason) => closed.push(reason));
    const pending = closing.call('t', {});
    await until(() => next.sent.length === 1, 'the call reached the relay');
    openTabs.delete(3);
    for (const listener of removedListeners) listener(3);
    next.drop();
    expect(await pending).toMatchObject({ ok: false, error: { code: 'tab_gone' } });
    await until(() => closed.length > 0, 'onGone');
    await expect(closing.list()).rejects.toMatchObject({ code: 'tab_gone' });
    expect(closed).toEqual(['closed']);
  });

  it('re-lists on a change notice, and close() ends only this client', async () => {
    const port = connect(4);
    const client = tabTools(4);
    const seen: unknown[] = [];
    client.onChange((tools) => seen.push(tools));
    // Bound to the tab's relay (its identity shows), so it hears the change notice.
    await until(() => client.tab.title === 'Tab 4', 'the client bound to the relay');
    port.reply({ event: 'changed' });
    await until(() => port.sent.length === 1, 'the re-list request');
    const request = port.sent.at(-1);
    expect(request).toMatchObject({ op: 'list' });
    port.reply({ id: request.id, outcome: { ok: true, result: [TOOL] } });
    await until(() => seen.length > 0, 'the new list');
    expect(seen).toEqual([[TOOL]]);
    const reasons: string[] = [];
    client.onGone((reason) => reasons.push(reason));
    client.close();
    expect(reasons).toEqual(['disconnected']);
    expect(port.disconnected).toBe(false);
    expect(await client.call('t', {})).toMatchObject({ ok: false, error: { code: 'tab_gone' } });
  });

  it('cancels a call: the relay is told, and the call resolves at once with tool_call_cancelled', async () => {
    const port = connect(5);
    const client = tabTools(5);
    // Honest path first: a call that is not cancelled gets its answer.
    const answered = client.call('t', {}, { signal: new AbortController().signal });
    await until(() => port.sent.length === 1, 'the first call');
    port.reply({ id: port.sent[0].id, outcome: { ok: true, result: 1 } });
    expect(await answered).toEqual({ ok: true, result: 1 });

    const controller = new AbortController();
    const call = client.call('t', { a: 1 }, { signal: controller.signal });
    await until(() => port.sent.length === 2, 'the second call');
    const { id } = port.sent[1];
    controller.abort();
    expect(await call).toEqual({
      ok: false,
      error: {
        code: 'tool_call_cancelled',
        name: 'AbortError',
        message: 'The caller cancelled the call.',
      },
    });
    expect(port.sent[2]).toEqual({ id, op: 'abort' });
    // The tab's late answer to the cancelled call is dropped; the client goes on.
    port.reply({ id, outcome: { ok: true, result: 'late' } });
    // A signal aborted before the call: no request at all.
    const before = new AbortController();
    before.abort();
    expect(await client.call('t', {}, { signal: before.signal })).toMatchObject({
      ok: false,
      error: { code: 'tool_call_cancelled' },
    });
    expect(port.sent).toHaveLength(3);
  });

  it('cancels in the tab the calls of a client that is closed', async () => {
    const port = connect(6);
    const client = tabTools(6);
    const call = client.call('t', {});
    await until(() => port.sent.length === 1, 'the call');
    client.close();
    expect(await call).toMatchObject({ ok: false, error: { code: 'tab_gone' } });
    expect(port.sent[1]).toEqual({ id: port.sent[0].id, op: 'abort' });
  });

  it('asks for progress only with onProgress, and passes on checked reports of that call only', async () => {
    const port = connect(8);
    const client = tabTools(8);
    const reports: unknown[] = [];
    const call = client.call('t', {}, { onProgress: (report) => reports.push(report) });
    await until(() => port.sent.length === 1, 'the call');
    expect(port.sent[0]).toMatchObject({ op: 'call', name: 't', progress: true });
    const quiet = client.call('t', {});
    await until(() => port.sent.length === 2, 'the call without onProgress');
    expect('progress' in port.sent[1]).toBe(false);
    const listing = client.list();
    await until(() => port.sent.length === 3, 'the list');
    const [asked, plain, list] = port.sent as { id: number }[];

    // Honest reports first.
    port.reply({ id: asked?.id, progress: { progress: 1, total: 2, message: 'half' } });
    // The relay runs in the page's renderer: its reports are checked again. Not moving
    // forward, not a number, for a call that did not ask, for a list, for no call.
    port.reply({ id: asked?.id, progress: { progress: 1 } });
    port.reply({ id: asked?.id, progress: { progress: 'two' } });
    port.reply({ id: asked?.id, progress: null });
    port.reply({ id: plain?.id, progress: { progress: 5 } });
    port.reply({ id: list?.id, progress: { progress: 5 } });
    port.reply({ id: 999, progress: { progress: 5 } });
    port.reply({ id: asked?.id, progress: { progress: 2, total: 2, message: 'm'.repeat(5000) } });
    port.reply({ id: asked?.id, outcome: { ok: true, result: 'done' } });
    port.reply({ id: asked?.id, progress: { progress: 3 } });
    port.reply({ id: plain?.id, outcome: { ok: true, result: 'quiet' } });
    port.reply({ id: list?.id, outcome: { ok: true, result: [] } });
    expect(await call).toEqual({ ok: true, result: 'done' });
    expect(await quiet).toEqual({ ok: true, result: 'quiet' });
    expect(await listing).toEqual([]);
    expect(reports).toEqual([
      { progress: 1, total: 2, message: 'half' },
      { progress: 2, total: 2, message: 'm'.repeat(MAX_PROGRESS_MESSAGE) },
    ]);
  });
});
