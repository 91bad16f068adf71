import { createHmac } from 'node:crypto';
import { createHost } from '@toolwire/host';
import { createNonce, secretId } from '@toolwire/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as NodeWebSocket } from 'ws';
import { until } from '../../../../test-support/wait.js';
import type { StoredPairing } from '../../app/connect/connections.js';
import { TabConnections } from '../../app/connect/connections.js';
import type { TabLinkState } from '../../app/connect/tab-link.js';
import { FakeTabClient, tabTool } from './fake-client.js';

// A pasted address for a tab whose link works: the new code is tried in a session of its own;
// the old one serves until the host welcomes the new one. A refused new code (spent, or made for
// another extension) ends only the new attempt: the old session stays open and serving, the
// kept pairing stays, and the panel hears why. A real host; fake tabs.

const ID = 'abcdefghijklmnopabcdefghijklmnop';
const OTHER_ID = 'ponmlkjihgfedcbaponmlkjihgfedcba';

class ExtensionSocket extends NodeWebSocket {
  constructor(url: string | URL) {
    super(url, { origin: `chrome-extension://${ID}` });
  }
}

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setup() {
  const host = await createHost({});
  closers.push(() => host.close());
  const badges = new Map<number, TabLinkState | undefined>();
  const notices: { tabId: number; code: string; message: string }[] = [];
  let stored: StoredPairing | undefined;
  const connections = new TabConnections({
    tabTools: (tabId) => {
      const client = new FakeTabClient([tabTool(`tab${tabId}.read`)], { tabId });
      client.answers.set(`tab${tabId}.read`, () => ({ ok: true, result: tabId }));
      return client;
    },
    store: {
      load: async () => stored,
      save: async (pairing) => {
        stored = pairing;
      },
    },
    badge: (tabId, state) => badges.set(tabId, state),
    onNotice: (tabId, notice) => notices.push({ tabId, ...notice }),
    WebSocket: ExtensionSocket as unknown as typeof WebSocket,
    reconnect: false,
  });
  closers.push(() => connections.removed(1));
  return { host, connections, badges, notices, stored: () => stored };
}

/** Spends `address`'s code as the extension would, on a socket of its own. */
const nodeHmac = (key: string, message: string): Uint8Array =>
  new Uint8Array(createHmac('sha256', key).update(message).digest());

async function spend(address: string): Promise<void> {
  // Named by its id, as every client of this host names a code (the code itself never travels).
  const url = new URL(address);
  const code = url.searchParams.get('pair') as string;
  url.searchParams.delete('pair');
  url.searchParams.set('pair-id', secretId(nodeHmac, code));
  url.searchParams.set('nonce', createNonce());
  const socket = new ExtensionSocket(url.toString());
  await new Promise<void>((resolve, reject) => {
    socket.on('message', (data) => {
      if (String(data).includes('session.welcome')) resolve();
    });
    socket.on('close', (code, reason) => reject(new Error(`${code} ${reason}`)));
  });
  socket.terminate();
}

async function isOpen(closed: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('open');
  return (await Promise.race([closed, Promise.resolve(marker)])) === marker;
}

describe('a pasted address beside a live link', () => {
  it('honest: the new one takes over once welcomed; the old session ends then', async () => {
    const { host, connections, badges, notices, stored } = await setup();
    await connections.connect(1, { guard: 'read-only', pairing: host.extensionPairing(ID).url });
    await until(() => badges.get(1)?.status === 'connected' && stored() !== undefined);
    const first = host.sessions[0];
    const before = stored();
    expect((await first?.call('tab1.read'))?.result).toBe(1);

    const answer = await connections.connect(1, {
      guard: 'read-write',
      pairing: host.extensionPairing(ID).url,
    });
    expect(answer.ok).toBe(true);
    await until(() => host.sessions.length === 1 && host.sessions[0] !== first);
    expect((await first?.closed)?.code).toBe(1000);
    await until(() => badges.get(1)?.guard === 'read-write');
    expect(connections.state(1)).toMatchObject({ status: 'connected', guard: 'read-write' });
    expect(stored()?.credential).not.toBe(before?.credential);
    expect((await host.sessions[0]?.call('tab1.read'))?.result).toBe(1);
    expect(notices).toEqual([]);
  });

  for (const kind of ['spent', 'foreign'] as const) {
    it(`hostile (${kind} code): refused; the old session serves on and the pairing stays`, async () => {
      const { host, connections, badges, notices, stored } = await setup();
      // The honest path first: the tab connects and serves.
      await connections.connect(1, {
        guard: 'read-only',
        pairing: host.extensionPairing(ID).url,
      });
      await until(() => badges.get(1)?.status === 'connected' && stored() !== undefined);
      const first = host.sessions[0];
      expect((await first?.call('tab1.read'))?.result).toBe(1);
      const before = stored();

      let bad: string;
      if (kind === 'spent') {
        bad = host.extensionPairing(ID).url;
        await spend(bad); // it was a good code: it paired a socket once
      } else {
        bad = host.extensionPairing(OTHER_ID).url;
      }
      const seen = host.sessions.length;
      expect((await connections.connect(1, { guard: 'full-access', pairing: bad })).ok).toBe(true);
      await until(() => notices.length === 1, 'the refusal reaches the panel');
      expect(notices[0]).toMatchObject({
        tabId: 1,
        code: 'pairing_refused',
        message: expect.stringMatching(
          kind === 'spent'
            ? /already used.*keeps its connection/
            : /not for .*keeps its connection/,
        ),
      });
      expect(await isOpen(first?.closed as Promise<unknown>)).toBe(true);
      expect(host.sessions).toContain(first);
      expect(host.sessions.length).toBeLessThanOrEqual(seen);
      expect((await first?.call('tab1.read'))?.result).toBe(1);
      expect(stored()).toEqual(before);
      expect(connections.state(1)).toMatchObject({ status: 'connected', guard: 'read-only' });
      expect(badges.get(1)?.status).toBe('connected');
      // Its pairing still connects: Connect without an address uses it.
      expect(await connections.pairedWith()).toBe(before?.address);
    });
  }

  it('Disconnect while a new address is tried ends both; nothing takes over later', async () => {
    const { host, connections, badges } = await setup();
    await connections.connect(1, { guard: 'read-only', pairing: host.extensionPairing(ID).url });
    await until(() => badges.get(1)?.status === 'connected');
    const trying = connections.connect(1, {
      guard: 'read-write',
      pairing: host.extensionPairing(ID).url,
    });
    connections.disconnect(1);
    await trying;
    await until(() => host.sessions.length === 0);
    expect(badges.get(1)).toBeUndefined();
  });
});
