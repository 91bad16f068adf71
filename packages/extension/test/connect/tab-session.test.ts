import type { HostSession } from '@toolwire/host';
import { createHost } from '@toolwire/host';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as NodeWebSocket } from 'ws';
import { until } from '../../../../test-support/wait.js';
import { type DirectSessions, TabLink, type TabLinkState } from '../../app/connect/tab-link.js';
import { startTabSession } from '../../app/connect/tab-session.js';
import type { RelayReply, RelayRequest } from '../../src/channel/messages.js';
import type { LocalRelay } from '../../src/relay/relay.js';
import { FakeTabClient, tabTool } from './fake-client.js';

// The tab's own session (app/connect/tab-session.ts) below the browser: the worker's TabLink
// spends the code, then hands the tab a delegate of the extension's pairing; the tab's session
// (the real script, over a stand-in for the relay's local requests) dials the real host from the
// page's origin, and the worker's session for the tab ends. When the tab's socket does not get
// in, the worker serves the tab as before.

const ID = 'abcdefghijklmnopabcdefghijklmnop';
const EXTENSION = `chrome-extension://${ID}`;
const SHOP = 'http://shop.test';

/** A ws WebSocket with a fixed Origin, as Chromium sets it for the socket's context. */
const socketFrom = (origin: string) =>
  class extends NodeWebSocket {
    constructor(url: string | URL) {
      super(url, { origin });
    }
  } as unknown as typeof WebSocket;

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** The relay's local requests, answered by the fake tab (the MAIN world's reader, in a tab). */
function localRelay(client: FakeTabClient): LocalRelay {
  const listeners = new Set<(reply: RelayReply) => void>();
  const reply = (message: RelayReply) => {
    for (const listener of listeners) listener(message);
  };
  return {
    accepted: true,
    request(message: RelayRequest) {
      if (message.op === 'list')
        void client
          .list()
          .then((tools) => reply({ id: message.id, outcome: { ok: true, result: tools } }));
      else if (message.op === 'call')
        void client
          .call(message.name, message.args)
          .then((outcome) => reply({ id: message.id, outcome }));
    },
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The worker's DirectSessions, with the tab's script run here, its socket from `origin`. */
function direct(client: FakeTabClient, origin: string): DirectSessions {
  const tab = startTabSession(localRelay(client), { WebSocket: socketFrom(origin) });
  let id: number | undefined;
  return {
    async start(request) {
      const answer = await tab.start(request);
      if (answer.ok) id = answer.id;
      return answer;
    },
    stop: () => tab.stop(id),
    onEnded: () => () => {},
  };
}

async function setup(socketOrigin: string) {
  const host = await createHost({ maxToolPolicy: 'write' });
  closers.push(() => host.close());
  const { url } = host.extensionPairing(ID);
  const parsed = new URL(url);
  const code = parsed.searchParams.get('pair') as string;
  parsed.searchParams.delete('pair');
  const client = new FakeTabClient([tabTool('cart.read')], { origin: SHOP });
  client.answers.set('cart.read', (args) => ({ ok: true, result: { items: 2, args } }));
  const states: TabLinkState[] = [];
  const link = await TabLink.open({
    client,
    address: parsed.toString(),
    secret: { pairingCode: code },
    guard: 'read-only',
    WebSocket: socketFrom(EXTENSION),
    direct: direct(client, socketOrigin),
    onState: (state) => states.push(state),
  });
  closers.push(() => link.close());
  return { host, states, link };
}

const live = (host: Awaited<ReturnType<typeof setup>>['host']): HostSession[] =>
  host.sessions.filter((session) => session.info !== null);

describe("a tab's own session", () => {
  it("takes over from the worker once the code is spent: one session, the page's origin", async () => {
    const { host, states, link } = await setup(SHOP);
    await until(() => link.state.path === 'direct', 'the direct path');
    await until(() => live(host).length === 1 && live(host)[0]?.origin === SHOP, 'one session');
    const [session] = live(host) as [HostSession];
    expect(session.delegated).toBe(true);
    expect(session.info?.page.origin).toBe(SHOP);
    await until(() => session.tools().length === 1);
    expect((await session.call('cart.read', { q: 'a' })).result).toEqual({
      items: 2,
      args: { q: 'a' },
    });
    expect(states.at(-1)).toMatchObject({ status: 'connected', path: 'direct' });
    // The worker's own session for the tab (the code's) is gone.
    expect(host.sessions.some((one) => one.origin === EXTENSION)).toBe(false);
    link.close();
    await until(() => host.sessions.length === 0, 'the tab session closed');
  });

  it("is refused when its socket's Origin is not the page's, and the worker serves the tab", async () => {
    // The delegate was derived for shop.test; a socket from another origin gets another key.
    const { host, states, link } = await setup('http://evil.test');
    await until(() => link.state.path === 'worker' && link.state.status === 'connected');
    // The worker's session stays the tab's only one, and serves it.
    await until(() => live(host).length === 1);
    const [session] = live(host) as [HostSession];
    expect(session.origin).toBe(EXTENSION);
    expect(session.delegated).toBe(false);
    await until(() => session.tools().length === 1);
    expect((await session.call('cart.read', {})).result).toEqual({ items: 2, args: {} });
    expect(states.some((state) => state.path === 'direct')).toBe(false);
  });
});
