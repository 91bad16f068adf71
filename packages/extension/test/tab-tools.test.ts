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

  it("refuses relays from other extensions or no tab; a frame's relay is not the top's", async () => {
    const frame = connect(2, { frameId: 3 });
    const other = connect(2, { id: 'someone-else' });
    const noTab = connect(2, { tab: undefined });
    const badFrame = connect(2, { frameId: -1 });
    expect([frame.disconnected, other.disconnected, noTab.disconnected]).toEqual([
      false,
      true,
      true,
    ]);
    expect(badFrame.disconnected).toBe(true);
    // No top relay comes within the wait: a frame's does not stand in for it.
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

  it('frames mode: lists each frame by its browser-given origin, routes calls to that frame, and drops claims', async () => {
    const top = connect(20, { url: 'https://top.example/' });
    // The top's window.tools already coalesces one tool of the ads frame.
    const frame = connect(20, {
      frameId: 5,
      url: 'https://ads.example/f',
      origin: 'https://ads.example',
    });
    const other = connect(20, {
      frameId: 7,
      url: 'https://maps.example/m',
      origin: 'https://maps.example',
    });
    // The default client is the top document's only, as before.
    const plain = tabTools(20);
    const plainListing = plain.list();
    await until(() => top.sent.length === 1, 'the plain list');
    top.reply({
      id: 1,
      outcome: { ok: true, result: [{ ...TOOL, origin: 'https://top.example' }] },
    });
    expect(await plainListing).toEqual([{ ...TOOL, origin: 'https://top.example' }]);
    expect(frame.sent).toEqual([]);

    const client = tabTools(20, { frames: true });
    const listing = client.list();
    await until(() => top.sent.length === 2, 'the top list');
    top.reply({
      id: 2,
      outcome: {
        ok: true,
        result: [
          { ...TOOL, origin: 'https://top.example' },
          { ...TOOL, name: 'ad.show', origin: 'https://ads.example' },
        ],
      },
    });
    await until(() => frame.sent.length === 1 && other.sent.length === 1, 'the frames list');
    frame.reply({
      id: frame.sent[0].id,
      outcome: {
        ok: true,
        result: [
          // Coalesced by the top already: not listed twice.
          { ...TOOL, name: 'ad.show', origin: 'https://ads.example' },
          // The same name as the top's tool: named with its origin.
          { ...TOOL, origin: 'https://ads.example' },
          // A claim of another frame's origin: dropped.
          { ...TOOL, name: 'map.find', origin: 'https://maps.example' },
        ],
      },
    });
    other.reply({
      id: other.sent[0].id,
      outcome: {
        ok: true,
        result: [{ ...TOOL, name: 'map.find', origin: 'https://maps.example' }],
      },
    });
    const tools = await listing;
    expect(tools.map((tool) => [tool.name, tool.origin, tool.frameId])).toEqual([
      ['t', 'https://top.example', 0],
      ['ad.show', 'https://ads.example', 0],
      ['t@https://ads.example', 'https://ads.example', 5],
      ['map.find', 'https://maps.example', 7],
    ]);
    // Each call runs in the frame that listed the tool, by the name that frame knows it by.
    const call = client.call('t@https://ads.example', { a: 1 });
    await until(() => frame.sent.length === 2, 'the call in the frame');
    expect(frame.sent[1]).toMatchObject({ op: 'call', name: 't', args: { a: 1 } });
    expect(other.sent).toHaveLength(1);
    // The other frame cannot answer it: only the frame's own port settles its request.
    other.reply({ id: frame.sent[1].id, outcome: { ok: true, result: 'forged' } });
    frame.reply({ id: frame.sent[1].id, outcome: { ok: true, result: 'ads' } });
    expect(await call).toEqual({ ok: true, result: 'ads' });
    const mapCall = client.call('map.find', {});
    await until(() => other.sent.length === 2, 'the call in the maps frame');
    other.reply({ id: other.sent[1].id, outcome: { ok: true, result: 'maps' } });
    expect(await mapCall).toEqual({ ok: true, result: 'maps' });

    // The maps frame navigates away: its tools go, the others stay, the client lives on.
    const changes: string[][] = [];
    client.onChange((next) => changes.push(next.map((tool) => tool.name)));
    other.drop();
    await until(() => top.sent.length === 3, 'the list after the frame went');
    top.reply({
      id: 3,
      outcome: { ok: true, result: [{ ...TOOL, origin: 'https://top.example' }] },
    });
    await until(() => frame.sent.length === 3, 'the ads frame listed again');
    frame.reply({
      id: frame.sent[2].id,
      outcome: { ok: true, result: [{ ...TOOL, name: 'ad.show', origin: 'https://ads.example' }] },
    });
    await until(() => changes.length === 1, 'the change');
    expect(changes[0]).toEqual(['t', 'ad.show']);
  });
});
