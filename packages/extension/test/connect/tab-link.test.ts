import type { HostSession } from '@toolwire/host';
import { createHost } from '@toolwire/host';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as NodeWebSocket } from 'ws';
import { latch, until } from '../../../../test-support/wait.js';
import { TabLink, type TabLinkState } from '../../app/connect/tab-link.js';
import type { TabCallOptions, TabCallOutcome } from '../../src/types.js';
import { FakeTabClient, tabTool } from './fake-client.js';

// Issue 17 part 2, "Connect this tab to toolwire", below the browser: a fake "tools of tab T"
// client, the adapter, the endpoint's real connect() (ws in Node, as an extension's socket:
// Origin chrome-extension://ID) and a real host. Hostile cases follow the honest ones.

const ID = 'abcdefghijklmnopabcdefghijklmnop';
const EXTENSION = `chrome-extension://${ID}`;

/** ws's WebSocket sending the extension's Origin, as Chromium does for its service worker. */
class ExtensionSocket extends NodeWebSocket {
  constructor(url: string | URL) {
    super(url, { origin: EXTENSION });
  }
}

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const PNG = { mimeType: 'image/png', data: 'iVBORw0KGgo=', width: 1, height: 1 };

function tab() {
  const client = new FakeTabClient([
    tabTool('cart.read', {
      title: 'Read the cart',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    }),
    tabTool('cart.add', { policy: 'write' }),
    tabTool('cart.snapshot', { outputSchema: { webType: 'ImageData' } }),
    tabTool('cart.fail'),
    tabTool('cart.slow'),
  ]);
  client.answers.set('cart.read', (args) => ({ ok: true, result: { items: 2, args } }));
  client.answers.set('cart.add', () => ({ ok: true, result: { added: true } }));
  client.answers.set('cart.snapshot', () => ({ ok: true, result: PNG }));
  client.answers.set('cart.fail', () => ({
    ok: false,
    error: { code: 'tool_execution_exception', message: 'out of stock' },
  }));
  client.answers.set('cart.slow', () => new Promise(() => {}));
  return client;
}

async function setup(maxToolPolicy: 'read' | 'write' = 'write') {
  const host = await createHost({ maxToolPolicy });
  closers.push(() => host.close());
  return host;
}

async function open(
  client: FakeTabClient,
  address: string,
  secret: { pairingCode: string } | { credential: string },
  guard: 'read-only' | 'read-write' = 'read-only',
) {
  const states: TabLinkState[] = [];
  const paired: string[] = [];
  const link = await TabLink.open({
    client,
    address,
    secret,
    guard,
    WebSocket: ExtensionSocket as unknown as typeof WebSocket,
    onPaired: (detail) => paired.push(detail.credential),
    onState: (state) => states.push(state),
  });
  closers.push(() => link.close());
  return { link, states, paired };
}

function pairing(host: Awaited<ReturnType<typeof setup>>) {
  const { url } = host.extensionPairing(ID);
  const parsed = new URL(url);
  const code = parsed.searchParams.get('pair') as string;
  parsed.searchParams.delete('pair');
  return { address: parsed.toString(), code };
}

const ids = (session: HostSession) => session.tools().map((tool) => tool.id);

describe('a tab connected through the extension', () => {
  it('lists and calls the tab tools; results, images and codes pass through', async () => {
    const host = await setup();
    const { address, code } = pairing(host);
    const client = tab();
    const { states, paired } = await open(client, address, { pairingCode: code });
    const session = await host.waitForSession();
    expect(session.origin).toBe(EXTENSION);
    await until(() => ids(session).includes('cart.read'));
    // The host is told the tab, not the extension's worker.
    expect(session.info?.page).toEqual({
      url: 'http://shop.test/cart',
      title: 'Shop',
      origin: 'http://shop.test',
    });
    await until(() => paired.length === 1);
    await until(() => states.at(-1)?.status === 'connected');

    // The read-only guard hides the write tool; the others are listed with the tab's origin.
    expect(ids(session).sort()).toEqual(['cart.fail', 'cart.read', 'cart.slow', 'cart.snapshot']);
    const read = session.tools().find((tool) => tool.id === 'cart.read');
    expect(read).toMatchObject({ name: 'Read the cart', origin: 'http://shop.test' });
    const snapshot = session.tools().find((tool) => tool.id === 'cart.snapshot');
    // Expanded for the listing, so the host sees an image result.
    expect(JSON.stringify(snapshot?.resultSchema)).toContain('image/png');

    const called = await session.call('cart.read', { q: 'shoes' });
    expect(called.result).toEqual({ items: 2, args: { q: 'shoes' } });
    // The host's call comes with its signal; the host asked for no progress, nor is the tab.
    expect(client.calls.at(-1)).toEqual({
      name: 'cart.read',
      args: { q: 'shoes' },
      options: { signal: expect.any(AbortSignal) },
    });
    expect((await session.call('cart.snapshot', {})).result).toEqual(PNG);
    await expect(session.call('cart.fail', {})).rejects.toMatchObject({
      code: 'tool_execution_exception',
      message: expect.stringContaining('out of stock'),
    });
    await expect(session.call('cart.add', {})).rejects.toMatchObject({
      code: 'tool_execution_denied',
      details: { deniedBy: 'page-guard', guard: 'read-only' },
    });
    expect(client.calls.some((call) => call.name === 'cart.add')).toBe(false);
  });

  it("the host's cancel aborts the tab call's signal; the tab's progress reaches the host", async () => {
    const host = await setup();
    const { address, code } = pairing(host);
    const client = tab();
    client.tools.push(tabTool('cart.sync'));
    const started = latch<TabCallOptions>();
    client.answers.set('cart.sync', (_args, options) => {
      started.open(options);
      return new Promise<TabCallOutcome>((resolve) =>
        options.signal?.addEventListener('abort', () =>
          resolve({
            ok: false,
            error: { code: 'tool_call_cancelled', message: 'The caller cancelled the call.' },
          }),
        ),
      );
    });
    await open(client, address, { pairingCode: code });
    const session = await host.waitForSession();
    await until(() => ids(session).includes('cart.sync'));

    const controller = new AbortController();
    const reports: unknown[] = [];
    const call = session.call(
      'cart.sync',
      {},
      { signal: controller.signal, onProgress: (report) => reports.push(report) },
    );
    const outcome = call.then(
      () => ({ code: 'resolved' }),
      (error) => error,
    );
    const options = await started.wait;
    // The host asked for progress: the tab client is asked too, and its reports reach the host.
    options.onProgress?.({ progress: 1, total: 4, message: 'syncing' });
    await until(() => reports.length === 1, 'the report at the host');
    expect(reports[0]).toMatchObject({ progress: 1, total: 4, message: 'syncing' });
    expect(options.signal?.aborted).toBe(false);
    controller.abort();
    expect(await outcome).toMatchObject({ code: 'tool_call_cancelled' });
    // session.cancel reached the endpoint, whose bridge aborted the tool's signal.
    await until(() => options.signal?.aborted, "the tab call's signal aborted");
    expect(session.isOpen).toBe(true);
  });

  it('the guard and the grant both apply: read-write runs a write tool only if granted', async () => {
    const granted = await setup('write');
    const a = pairing(granted);
    const client = tab();
    await open(client, a.address, { pairingCode: a.code }, 'read-write');
    const session = await granted.waitForSession();
    await until(() => ids(session).includes('cart.add'));
    expect((await session.call('cart.add', {})).result).toEqual({ added: true });

    const readOnlyHost = await setup('read');
    const b = pairing(readOnlyHost);
    const other = tab();
    await open(other, b.address, { pairingCode: b.code }, 'read-write');
    const limited = await readOnlyHost.waitForSession();
    await until(() => ids(limited).includes('cart.read'));
    await expect(limited.call('cart.add', {})).rejects.toMatchObject({
      code: 'tool_execution_denied',
      details: { deniedBy: 'host-grant', policy: 'write', maxToolPolicy: 'read' },
    });
    expect(other.calls.some((call) => call.name === 'cart.add')).toBe(false);
  });

  it('follows the tab: a change is listed, a second tab reuses the credential', async () => {
    const host = await setup();
    const { address, code } = pairing(host);
    const first = tab();
    const { paired } = await open(first, address, { pairingCode: code });
    const session = await host.waitForSession();
    await until(() => ids(session).includes('cart.read'));
    first.change([...first.tools, tabTool('cart.count')]);
    await until(() => ids(session).includes('cart.count'));

    await until(() => paired.length === 1);
    const second = new FakeTabClient([tabTool('news.read')], { tabId: 8 });
    second.answers.set('news.read', () => ({ ok: true, result: 'today' }));
    await open(second, address, { credential: paired[0] as string });
    await until(() => host.sessions.length === 2);
    const news = host.sessions.find((s) => s !== session) as HostSession;
    await until(() => ids(news).includes('news.read'));
    expect((await news.call('news.read', {})).result).toBe('today');
    expect(session.isOpen).toBe(true);
  });

  it('closing the tab ends its session and fails a pending call with a code, at once', async () => {
    const host = await setup();
    const { address, code } = pairing(host);
    const client = tab();
    const { link, states } = await open(client, address, { pairingCode: code });
    const session = await host.waitForSession();
    await until(() => ids(session).includes('cart.slow'));
    // Honest path: the session answers.
    expect((await session.call('cart.read', {})).result).toMatchObject({ items: 2 });

    const pending = session.call('cart.slow', {});
    let settled = false;
    const outcome = pending.then(
      () => ({ code: 'resolved' }),
      (error) => error,
    );
    void outcome.then(() => {
      settled = true;
    });
    await until(() => client.calls.some((call) => call.name === 'cart.slow'));
    // The tab never answers cart.slow: the call is pending until the tab goes.
    expect(settled).toBe(false);
    client.go('closed');
    const failure = await outcome;
    // At once: failed by the tab's end, not by a deadline (tool_timeout after the host's 20 s,
    // tool_execution_timeout on the page's side), the only other ends this call has.
    expect(['tool_transport_closed', 'tab_gone']).toContain(failure.code);
    await until(() => !session.isOpen);
    expect(link.state).toMatchObject({ status: 'ended', error: { code: 'tab_gone' } });
    expect(states.at(-1)?.status).toBe('ended');
    expect(client.listeners).toBe(0);
  });

  it('navigating ends it too; Disconnect closes the session and the client', async () => {
    const host = await setup();
    const { address, code } = pairing(host);
    const client = tab();
    const { link, paired } = await open(client, address, { pairingCode: code });
    const session = await host.waitForSession();
    await until(() => paired.length === 1);
    link.close();
    await until(() => !session.isOpen);
    expect(client.closed).toBe(true);
    expect(link.state.error?.code).toBe('disconnected');

    const next = tab();
    const again = await open(next, address, { credential: paired[0] as string });
    const reopened = await host.waitForSession({ filter: (s) => s !== session });
    next.go('navigated');
    await until(() => !reopened.isOpen);
    expect(again.link.state.error).toEqual({
      code: 'tab_gone',
      message: 'The tab navigated to another page.',
    });
  });

  it('a tab without a relay is refused before anything connects', async () => {
    const host = await setup();
    const { address, code } = pairing(host);
    const client = tab();
    client.listError = Object.assign(new Error('No toolwire relay answers in this tab.'), {
      code: 'no_relay',
    });
    await expect(
      TabLink.open({ client, address, secret: { pairingCode: code }, guard: 'read-only' }),
    ).rejects.toMatchObject({ code: 'no_relay' });
    expect(host.sessions).toHaveLength(0);
  });

  it('a refused pairing ends the link with its reason and no retry', async () => {
    const host = await setup();
    const { address, code } = pairing(host);
    // Honest: the code pairs once.
    const first = await open(tab(), address, { pairingCode: code });
    await until(() => first.paired.length === 1);
    const refusals: string[] = [];
    const again = await TabLink.open({
      client: tab(),
      address,
      secret: { pairingCode: code },
      guard: 'read-only',
      WebSocket: ExtensionSocket as unknown as typeof WebSocket,
      onRefused: (detail) => refusals.push(detail.reason),
    });
    closers.push(() => again.close());
    await until(() => again.state.status === 'ended');
    expect(again.state.error).toMatchObject({
      code: 'pairing_refused',
      message: expect.stringContaining('already used'),
    });
    expect(refusals).toHaveLength(1);
  });

  it("serves each frame origin as its own session (the pairing's credential), and ends it when the frame's tools go", async () => {
    const host = await setup();
    const { address, code } = pairing(host);
    const FRAME = 'http://maps.test';
    const client = new FakeTabClient([
      tabTool('cart.read'),
      tabTool('map.find', { origin: FRAME, frameId: 4 }),
    ]);
    client.answers.set('cart.read', () => ({ ok: true, result: 'top' }));
    client.answers.set('map.find', () => ({ ok: true, result: 'frame' }));
    await open(client, address, { pairingCode: code });
    const top = await host.waitForSession({
      filter: (s) => s.info?.page.origin === 'http://shop.test',
    });
    const frame = await host.waitForSession({
      timeoutMs: 10_000,
      filter: (s) => s.info?.page.origin === FRAME,
    });
    // Each serves its own origin's tools only, labelled with that origin.
    await until(() => ids(top).length === 1 && ids(frame).length === 1);
    expect([ids(top), ids(frame)]).toEqual([['cart.read'], ['map.find']]);
    expect(frame.origin).toBe(EXTENSION);
    expect(frame.info?.page).toMatchObject({ origin: FRAME, title: 'Shop' });
    expect((await frame.call('map.find', {})).result).toBe('frame');
    expect((await top.call('cart.read', {})).result).toBe('top');
    // The frame navigates away: its session ends; the top's serves on.
    client.change([tabTool('cart.read')]);
    await frame.closed;
    expect(top.isOpen).toBe(true);
    expect((await top.call('cart.read', {})).result).toBe('top');
  });
});
