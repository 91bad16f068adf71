import { createHost } from '@toolwire/host';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as NodeWebSocket } from 'ws';
import { latch, until } from '../../../../test-support/wait.js';
import type { StoredPairing } from '../../app/connect/connections.js';
import { TabConnections } from '../../app/connect/connections.js';
import type { TabLinkState } from '../../app/connect/tab-link.js';
import { FakeTabClient, tabTool } from './fake-client.js';

// The background's bookkeeping for "Connect this tab": the pairing kept once for every tab,
// the badge, and the tab's end. A real host; fake tabs.

const ID = 'abcdefghijklmnopabcdefghijklmnop';

/** Every socket the extension opened in the current case. */
let sockets: NodeWebSocket[] = [];

class ExtensionSocket extends NodeWebSocket {
  constructor(url: string | URL) {
    super(url, { origin: `chrome-extension://${ID}` });
    sockets.push(this);
  }
}

/**
 * Once no socket is still opening or closing, how many are open. A link that was cancelled
 * closed its socket (or never opened one); a stray one would still be open.
 */
async function openSockets(): Promise<number> {
  await until(
    () => sockets.every((s) => s.readyState === s.OPEN || s.readyState === s.CLOSED),
    'every socket open or closed',
  );
  return sockets.filter((s) => s.readyState === s.OPEN).length;
}

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setup() {
  sockets = [];
  const host = await createHost({});
  closers.push(() => host.close());
  const clients = new Map<number, FakeTabClient>();
  const badges = new Map<number, TabLinkState | undefined>();
  // Tab 4 is still loading: it is read once the test opens this.
  const loaded = latch();
  let stored: StoredPairing | undefined;
  const connections = new TabConnections({
    tabTools: (tabId) => {
      const client = new FakeTabClient([tabTool(`tab${tabId}.read`)], { tabId });
      if (tabId === 4) client.loading = loaded.wait;
      client.answers.set(`tab${tabId}.read`, () => ({ ok: true, result: tabId }));
      clients.set(tabId, client);
      return client;
    },
    store: {
      load: async () => stored,
      save: async (pairing) => {
        stored = pairing;
      },
    },
    badge: (tabId, state) => badges.set(tabId, state),
    WebSocket: ExtensionSocket as unknown as typeof WebSocket,
    reconnect: false,
  });
  closers.push(() => {
    for (const tabId of clients.keys()) connections.removed(tabId);
  });
  return { host, connections, clients, badges, loaded, stored: () => stored };
}

describe('TabConnections', () => {
  it('pairs once with the pasted address, then connects more tabs with the credential', async () => {
    const { host, connections, badges, stored } = await setup();
    // Nothing to connect with yet: the panel asks for the address.
    expect(await connections.connect(1, { guard: 'read-only' })).toMatchObject({
      ok: false,
      code: 'pairing_needed',
    });
    expect(
      await connections.connect(1, {
        guard: 'read-only',
        pairing: 'ws://elsewhere.example/x?pair=a',
      }),
    ).toMatchObject({ ok: false, code: 'pairing_address_invalid' });

    const pairing = host.extensionPairing(ID).url;
    expect(await connections.connect(1, { guard: 'read-only', pairing })).toMatchObject({
      ok: true,
    });
    await until(() => badges.get(1)?.status === 'connected');
    await until(() => stored() !== undefined);
    expect(stored()?.address).toBe(`ws://127.0.0.1:${host.port}/toolwire`);
    expect(await connections.pairedWith()).toBe(stored()?.address);

    expect(await connections.connect(2, { guard: 'read-write' })).toMatchObject({ ok: true });
    await until(() => badges.get(2)?.status === 'connected');
    expect(connections.state(2)?.guard).toBe('read-write');
    await until(() => host.sessions.length === 2);
  });

  it('a tab that goes clears its badge; Disconnect too; a closed tab is forgotten', async () => {
    const { host, connections, clients, badges, stored } = await setup();
    await connections.connect(1, { guard: 'read-only', pairing: host.extensionPairing(ID).url });
    await until(() => stored() !== undefined);
    await connections.connect(2, { guard: 'read-only' });
    await until(() => host.sessions.length === 2);
    clients.get(1)?.go('navigated');
    await until(() => host.sessions.length === 1);
    expect(badges.get(1)).toBeUndefined();
    expect(connections.state(1)).toMatchObject({ status: 'ended', error: { code: 'tab_gone' } });

    connections.disconnect(2);
    await until(() => host.sessions.length === 0);
    expect(badges.get(2)).toBeUndefined();
    connections.removed(2);
    expect(connections.state(2)).toBeUndefined();
  });

  it('connecting a connected tab again replaces its session (a new guard)', async () => {
    const { host, connections, badges, stored } = await setup();
    await connections.connect(1, { guard: 'read-only', pairing: host.extensionPairing(ID).url });
    await until(() => badges.get(1)?.status === 'connected');
    // Kept once the host's first request showed it kept the credential too.
    await until(() => stored() !== undefined);
    const first = host.sessions[0];
    await connections.connect(1, { guard: 'full-access' });
    await until(
      () => badges.get(1)?.guard === 'full-access' && badges.get(1)?.status === 'connected',
    );
    await until(() => host.sessions.length === 1 && host.sessions[0] !== first);
  });

  it('a revoked pairing is forgotten: the next tab needs a new address', async () => {
    const { host, connections, badges, stored } = await setup();
    await connections.connect(1, { guard: 'read-only', pairing: host.extensionPairing(ID).url });
    await until(() => stored() !== undefined && badges.get(1)?.status === 'connected');
    host.revoke(host.sessions[0]?.id as string);
    await until(() => stored() === undefined);
    expect(connections.state(1)).toMatchObject({
      status: 'ended',
      error: { code: 'pairing_revoked' },
    });
    expect(badges.get(1)).toBeUndefined();
    expect(await connections.connect(2, { guard: 'read-only' })).toMatchObject({
      code: 'pairing_needed',
    });
  });

  it('a tab without a relay answers its code and leaves nothing behind', async () => {
    const { host, connections, badges } = await setup();
    const pairing = host.extensionPairing(ID).url;
    const broken = new TabConnections({
      tabTools: (tabId) => {
        const client = new FakeTabClient([], { tabId });
        client.listError = Object.assign(new Error('No toolwire relay answers.'), {
          code: 'no_relay',
        });
        return client;
      },
      store: { load: async () => undefined, save: async () => {} },
      badge: (tabId, state) => badges.set(tabId, state),
    });
    expect(await broken.connect(5, { guard: 'read-only', pairing })).toMatchObject({
      ok: false,
      code: 'no_relay',
    });
    expect(badges.get(5)).toBeUndefined();
    expect(broken.state(5)).toBeUndefined();
    expect(host.sessions).toHaveLength(0);
    // The code was not spent: an honest tab still pairs with it.
    expect(await connections.connect(1, { guard: 'read-only', pairing })).toMatchObject({
      ok: true,
    });
    await until(() => host.sessions.length === 1);
  });

  it('a second Connect, or a Disconnect, while the tab is read leaves no stray session', async () => {
    const { host, connections, clients, badges, loaded, stored } = await setup();
    await connections.connect(1, { guard: 'read-only', pairing: host.extensionPairing(ID).url });
    await until(() => stored() !== undefined && host.sessions.length === 1);
    connections.disconnect(1);
    await until(() => host.sessions.length === 0);

    // Two clicks in a row: one session, with the second guard.
    const [first, second] = await Promise.all([
      connections.connect(2, { guard: 'read-only' }),
      connections.connect(2, { guard: 'full-access' }),
    ]);
    expect(first).toMatchObject({ ok: false, code: 'connect_cancelled' });
    expect(second).toMatchObject({ ok: true });
    await until(() => badges.get(2)?.status === 'connected');
    expect(badges.get(2)?.guard).toBe('full-access');
    // The cancelled click's link, had it been kept, would have opened its socket before the
    // second one's (the same steps, begun first), so by now it would show as open.
    expect(await openSockets()).toBe(1);
    await until(() => host.sessions.length === 1, 'the host has only the connected tab');

    // Disconnect while the tab is still being read: nothing connects.
    const pending = connections.connect(3, { guard: 'read-only' });
    connections.disconnect(3);
    expect(await pending).toMatchObject({ ok: false, code: 'connect_cancelled' });
    expect(connections.state(3)).toBeUndefined();
    expect(badges.get(3)).toBeUndefined();
    expect(clients.has(3)).toBe(false); // cancelled before the tab was asked

    // Disconnect while a loading tab is read: its client is closed, nothing connects.
    const loading = connections.connect(4, { guard: 'read-only' });
    await until(() => clients.has(4));
    connections.disconnect(4);
    // The tab finishes loading only after the Disconnect.
    loaded.open();
    expect(await loading).toMatchObject({ ok: false, code: 'connect_cancelled' });
    expect(clients.get(4)?.closed).toBe(true);
    expect(badges.get(4)).toBeUndefined();
    // Barrier: the tab, loaded now, is connected again. The cancelled link, had it been kept,
    // would have opened its socket before this one's (the same steps, begun first): by the
    // time this one is connected, a stray socket would show as open.
    expect(await connections.connect(4, { guard: 'read-only' })).toMatchObject({ ok: true });
    await until(() => badges.get(4)?.status === 'connected');
    expect(await openSockets()).toBe(2);
    await until(() => host.sessions.length === 2, 'the host has only the connected tabs');
  });
});
