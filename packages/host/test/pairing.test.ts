// Pairing (docs/permissions.md "Pairing and credentials", docs/wire.md "The handshake"):
// single-use codes named by their id, credentials derived on both sides and kept in the host's
// PairingStore, the upgrade check that routes to them, and the session's welcome and
// heartbeats. Every refusal below follows a case that proves the same path succeeds with the
// honest secret.
import type { ToolPolicy, Transport, TransportCloseInfo } from '@toolwire/protocol';
import {
  createLinkedPair,
  createNonce,
  credentialSecret,
  SESSION_CLOSE,
  secretId,
  sessionPing,
  sessionPong,
} from '@toolwire/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { until } from '../../../test-support/wait.js';
import type { Host } from '../src/index.js';
import { createHost, HostSession, MemoryPairingStore } from '../src/index.js';
import {
  authorizeUpgrade,
  nodeHmac,
  PAIRING_IDLE_EXPIRY_MS,
  Pairing,
  socketTransport,
} from '../src/internal.js';
import { FakePage, handshakeUrl, tcpRelay, tool } from './helpers.js';

const A = 'http://a.test';
const B = 'http://b.test';
const any = () => true;
const none = () => false;
const idOf = (secret: string) => secretId(nodeHmac, secret);

/** A Pairing whose clock the test moves. */
function clocked(options: { codeTtlMs?: number; store?: MemoryPairingStore } = {}) {
  const clock = { now: 1_000_000 };
  const pairing = new Pairing({ ...options, now: () => clock.now });
  return { pairing, clock };
}

/** Spends a fresh code of origin A and keeps the credential, as the host does after the proofs. */
function pairOnce(pairing: Pairing, origin = A) {
  const { code } = pairing.createCode({ origin });
  const spent = pairing.redeem(idOf(code), origin, none);
  if (!spent.ok) throw new Error('pairing failed');
  const nonces = { pageNonce: createNonce(), hostNonce: createNonce() };
  const id = pairing.keep({ code: spent.key, kind: spent.kind, origin, ...nonces });
  return { code, id, secret: credentialSecret(nodeHmac, code, nonces) };
}

describe('Pairing: codes', () => {
  it('a code pairs once; the second use is refused as "already used"', () => {
    const { pairing } = clocked();
    const { code } = pairing.createCode({ origin: A });
    const first = pairing.redeem(idOf(code), A, none);
    expect(first).toEqual({ ok: true, key: code, kind: 'link' });
    expect(pairing.redeem(idOf(code), A, any)).toEqual({
      ok: false,
      reason: expect.stringContaining('already used'),
    });
  });

  it('says "unknown" (not "already used") for a code it never made', () => {
    const { pairing } = clocked();
    const { code } = pairing.createCode();
    expect(pairing.redeem(idOf(code), A, any).ok).toBe(true);
    const other = new Pairing();
    expect(other.redeem(idOf(code), A, any)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^unknown pairing code/),
    });
    expect(pairing.redeem(idOf('made-up'), A, any)).toMatchObject({
      reason: expect.stringMatching(/^unknown pairing code/),
    });
  });

  it('an expired code is refused with "expired", then remembered as used', () => {
    const { pairing, clock } = clocked({ codeTtlMs: 50 });
    const honest = pairing.createCode({ origin: A });
    clock.now += 49;
    expect(pairing.redeem(idOf(honest.code), A, none).ok).toBe(true);
    const late = pairing.createCode({ origin: A });
    expect(late.expiresAt).toBe(clock.now + 50);
    clock.now += 50;
    expect(pairing.redeem(idOf(late.code), A, none)).toEqual({
      ok: false,
      reason: expect.stringContaining('expired'),
    });
    expect(pairing.redeem(idOf(late.code), A, none).ok).toBe(false);
    // A per-code ttl beats the default.
    const long = pairing.createCode({ origin: A, ttlMs: 10_000 });
    clock.now += 5_000;
    expect(pairing.redeem(idOf(long.code), A, none).ok).toBe(true);
  });

  it('a code bound to origin A is refused for B and not spent: A still pairs with it', () => {
    const { pairing } = clocked();
    const { code } = pairing.createCode({ origin: A });
    // `allowed` says yes to everyone: the binding, not the allow-list, refuses B.
    expect(pairing.redeem(idOf(code), B, any)).toEqual({
      ok: false,
      reason: `this pairing code is not for pages of ${B}`,
    });
    expect(pairing.redeem(idOf(code), null, any)).toMatchObject({ ok: false });
    expect(pairing.redeem(idOf(code), A, none).ok).toBe(true);
  });

  it('a code bound to no origin follows the allow-list, and is not spent by a refusal', () => {
    const { pairing } = clocked();
    const { code } = pairing.createCode();
    const seen: (string | null)[] = [];
    const onlyA = (origin: string | null) => {
      seen.push(origin);
      return origin === A;
    };
    expect(pairing.redeem(idOf(code), B, onlyA)).toMatchObject({
      ok: false,
      reason: expect.stringContaining(B),
    });
    expect(pairing.redeem(idOf(code), A, onlyA).ok).toBe(true);
    expect(seen).toEqual([B, A]);
  });

  // CPU-bound (thousands of codes): its bound is far past what a loaded machine needs.
  it('keeps bounded memory: a flood of codes forgets the oldest, spent ones too', () => {
    const { pairing } = clocked();
    const first = pairing.createCode({ origin: A });
    const second = pairing.createCode({ origin: A });
    for (let i = 0; i < 4096; i++) pairing.createCode({ origin: A });
    // The oldest code went when the map passed its cap; the next one is still good.
    expect(pairing.redeem(idOf(first.code), A, none)).toMatchObject({
      reason: expect.stringMatching(/^unknown/),
    });
    expect(pairing.redeem(idOf(second.code), A, none).ok).toBe(true);
    // Spent codes: remembered (as "already used") up to the cap, then the oldest forgotten.
    const spent: string[] = [];
    for (let i = 0; i < 4097; i++) {
      const { code } = pairing.createCode({ origin: A });
      expect(pairing.redeem(idOf(code), A, none).ok).toBe(true);
      spent.push(code);
    }
    expect(pairing.redeem(idOf(spent.at(-1) as string), A, none)).toMatchObject({
      reason: expect.stringContaining('already used'),
    });
    expect(pairing.redeem(idOf(spent[0] as string), A, none)).toMatchObject({
      reason: expect.stringMatching(/^unknown/),
    });
  }, 60_000);

  it('forgets spent codes after an hour', () => {
    const { pairing, clock } = clocked();
    const { code } = pairing.createCode({ origin: A });
    pairing.redeem(idOf(code), A, none);
    clock.now += 59 * 60_000;
    pairing.createCode(); // a sweep
    expect(pairing.redeem(idOf(code), A, none)).toMatchObject({ reason: /already used/ });
    clock.now += 60_000;
    pairing.createCode();
    expect(pairing.redeem(idOf(code), A, none)).toMatchObject({ reason: /^unknown/ });
  });
});

describe('Pairing: credentials', () => {
  it('keep stores the credential both sides derive; resume finds it by id, for its origin only', () => {
    const store = new MemoryPairingStore();
    const { pairing, clock } = clocked({ store });
    const { code, id, secret } = pairOnce(pairing);
    // The page derives the same secret, and names it by the same id.
    expect(id).toBe(idOf(secret));
    expect(store.get(id)).toMatchObject({ id, secret, origin: A, kind: 'link' });
    expect(pairing.resume(id, A)).toEqual({ ok: true, key: secret, kind: 'link', pairingId: id });
    expect(pairing.resume(id, B)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('not known to the host'),
    });
    expect(pairing.resume(id, null).ok).toBe(false);
    // Neither the code nor the secret itself is an id.
    expect(pairing.resume(idOf(code), A).ok).toBe(false);
    expect(pairing.resume(secret, A).ok).toBe(false);
    // A new run with its own store knows nothing; one given the same store resumes the tab.
    expect(new Pairing().resume(id, A).ok).toBe(false);
    expect(new Pairing({ store, now: () => clock.now }).resume(id, A).ok).toBe(true);
  });

  it('a pairing unused for 30 days expires: refused with the reason, then forgotten', () => {
    const store = new MemoryPairingStore();
    const { pairing, clock } = clocked({ store });
    const { id } = pairOnce(pairing);
    clock.now += PAIRING_IDLE_EXPIRY_MS - 1;
    expect(pairing.resume(id, A).ok).toBe(true);
    // Used now: the 30 days start again.
    pairing.touch(id, 'read-only');
    expect(store.get(id)).toMatchObject({ lastSeen: clock.now, guard: 'read-only' });
    clock.now += PAIRING_IDLE_EXPIRY_MS - 1;
    expect(pairing.resume(id, A).ok).toBe(true);
    clock.now += 1;
    expect(pairing.resume(id, A)).toEqual({
      ok: false,
      reason: 'this pairing expired: unused for 30 days; open a new link',
    });
    expect(store.get(id)).toBeUndefined();
  });

  it('revoke forgets a pairing; others stay good', () => {
    const { pairing } = clocked();
    const gone = pairOnce(pairing).id;
    const kept = pairOnce(pairing).id;
    expect(pairing.resume(gone, A).ok).toBe(true);
    expect(pairing.revoke(gone)).toBe(true);
    expect(pairing.revoke(gone)).toBe(false);
    expect(pairing.resume(gone, A).ok).toBe(false);
    expect(pairing.resume(kept, A).ok).toBe(true);
  });
});

describe('authorizeUpgrade with pairing ids', () => {
  const TOKEN = 'page-token-0123456789';
  const NONCE = createNonce();
  const policy = (overrides = {}) => ({
    path: '/toolwire',
    token: TOKEN,
    origins: [A],
    redeem: (codeId: string) =>
      codeId === 'good'
        ? { ok: true as const, key: 'the-code', kind: 'link' as const }
        : { ok: false as const, reason: 'no' },
    resume: (pairingId: string, origin: string | null) =>
      pairingId === 'cred' && origin === A
        ? { ok: true as const, key: 'the-secret', kind: 'link' as const, pairingId }
        : { ok: false as const, reason: 'unknown tab' },
    ...overrides,
  });
  const check = (url: string, origin: string | undefined = A, overrides = {}) =>
    authorizeUpgrade({ url, headers: origin ? { origin } : {} }, policy(overrides));

  it('a good code id pairs; a bad one is a socket closed with 4401 and the reason', () => {
    expect(check(`/toolwire?pair-id=good&nonce=${NONCE}`)).toEqual({
      ok: true,
      origin: A,
      via: 'pair',
      pageNonce: NONCE,
      key: 'the-code',
      kind: 'link',
    });
    expect(check(`/toolwire?pair-id=bad&nonce=${NONCE}`)).toEqual({
      ok: false,
      status: 'close',
      closeCode: 4401,
      reason: 'no',
    });
  });

  it('a good credential id resumes; another origin or an unknown one gets 4401', () => {
    expect(check(`/toolwire?credential-id=cred&nonce=${NONCE}`)).toEqual({
      ok: true,
      origin: A,
      via: 'credential',
      pageNonce: NONCE,
      key: 'the-secret',
      kind: 'link',
      pairingId: 'cred',
    });
    expect(check(`/toolwire?credential-id=cred&nonce=${NONCE}`, B)).toMatchObject({
      status: 'close',
      closeCode: 4401,
      reason: 'unknown tab',
    });
    expect(check(`/toolwire?credential-id=other&nonce=${NONCE}`)).toMatchObject({
      status: 'close',
    });
  });

  it('an id without a good nonce is refused 4401 before the code is spent', () => {
    let spent = 0;
    const counting = {
      redeem: () => {
        spent++;
        return { ok: true as const, key: 'k', kind: 'link' as const };
      },
    };
    expect(check(`/toolwire?pair-id=good&nonce=${NONCE}`, A, counting)).toMatchObject({ ok: true });
    expect(spent).toBe(1);
    for (const nonce of ['', '&nonce=short', '&nonce=has%20a%20space%20in%20it%20here']) {
      expect(check(`/toolwire?pair-id=good${nonce}`, A, counting)).toEqual({
        ok: false,
        status: 'close',
        closeCode: 4401,
        reason: 'the page sent no nonce for the handshake',
      });
    }
    expect(spent).toBe(1);
  });

  it('the old forms, carrying the code or the credential itself, are refused 4401: too old', () => {
    expect(check(`/toolwire?pair-id=good&nonce=${NONCE}`)).toMatchObject({ ok: true });
    for (const query of ['pair=good', 'credential=cred', `pair=good&nonce=${NONCE}`]) {
      expect(check(`/toolwire?${query}`), query).toEqual({
        ok: false,
        status: 'close',
        closeCode: 4401,
        reason: expect.stringContaining("this page's toolwire is too old for this host"),
      });
    }
  });

  it('the token path takes a nonce, or none (an older page, another SDK)', () => {
    expect(check(`/toolwire?token=${TOKEN}`)).toEqual({ ok: true, origin: A, via: 'token' });
    expect(check(`/toolwire?token=${TOKEN}&nonce=${NONCE}`)).toEqual({
      ok: true,
      origin: A,
      via: 'token',
      pageNonce: NONCE,
    });
    expect(check(`/toolwire?token=${TOKEN}&nonce=bad`)).toEqual({
      ok: false,
      status: 401,
      reason: 'unreadable nonce',
    });
  });

  it('refuses more than one secret in one request with 401, good ones included', () => {
    expect(check(`/toolwire?token=${TOKEN}`)).toMatchObject({ ok: true, via: 'token' });
    for (const query of [
      `token=${TOKEN}&pair-id=good`,
      'pair-id=good&credential-id=cred',
      `token=${TOKEN}&credential-id=cred`,
      'pair-id=good&pair=good',
      `token=${TOKEN}&credential=cred`,
    ]) {
      expect(check(`/toolwire?${query}&nonce=${NONCE}`), query).toEqual({
        ok: false,
        status: 401,
        reason: 'more than one secret',
      });
    }
  });

  it('a host without pairing refuses code and credential ids with a reason', () => {
    const bare = { redeem: undefined, resume: undefined };
    for (const query of ['pair-id=good', 'credential-id=cred']) {
      expect(check(`/toolwire?${query}&nonce=${NONCE}`, A, bare)).toEqual({
        ok: false,
        status: 'close',
        closeCode: 4401,
        reason: 'this host does not pair',
      });
    }
  });

  it('the path is checked before any secret is spent', () => {
    let spent = 0;
    const counting = {
      redeem: () => {
        spent++;
        return { ok: true as const, key: 'k', kind: 'link' as const };
      },
    };
    expect(check(`/toolwire?pair-id=good&nonce=${NONCE}`, A, counting)).toMatchObject({ ok: true });
    const verdict = check(`/elsewhere?pair-id=good&nonce=${NONCE}`, A, counting);
    expect(verdict).toMatchObject({ ok: false, status: 404 });
    expect(spent).toBe(1);
  });
});

// ---- HostSession: the welcome and heartbeats ----------------------------------------------

/** A session over an in-memory pair; `page` is the page's end, recording what it got. */
function linkedSession(
  options: {
    grant?: ToolPolicy;
    heartbeatIntervalMs?: number;
    proof?: { nonce: string; mac: string };
    hostId?: string;
  } = {},
) {
  const [hostEnd, page] = createLinkedPair() as [Transport, Transport];
  const received: any[] = [];
  const closes: TransportCloseInfo[] = [];
  page.onmessage = (frame) => received.push(JSON.parse(frame));
  page.onclose = (info) => closes.push(info);
  const session = new HostSession({
    id: 'session-1',
    transport: hostEnd,
    origin: A,
    grant: options.grant ?? 'read',
    hostRun: 'run-1',
    ...options,
  });
  return { session, page, received, closes };
}

describe('HostSession: welcome', () => {
  it('sends session.welcome before anything else, with the grant and the heartbeat', async () => {
    const { session, received } = linkedSession({ grant: 'write', heartbeatIntervalMs: 5000 });
    await until(() => received.length >= 2);
    expect(received[0]).toMatchObject({
      type: 'session.welcome',
      sessionId: 'session-1',
      payload: {
        sessionId: 'session-1',
        hostRun: 'run-1',
        maxToolPolicy: 'write',
        heartbeatIntervalMs: 5000,
      },
    });
    expect(received[0].payload).not.toHaveProperty('credential');
    expect(received[0].payload).not.toHaveProperty('proof');
    expect(received[1]).toMatchObject({ type: 'tool.query' });
    session.close();
  });

  it('puts the proof and the host id in the welcome when given, and never a credential', async () => {
    const proof = { nonce: createNonce(), mac: 'mac' };
    const { session, received } = linkedSession({ proof, hostId: 'host-1' });
    await until(() => received.length > 0);
    expect(received[0].payload).toMatchObject({ proof, hostId: 'host-1' });
    expect(received[0].payload).not.toHaveProperty('credential');
    session.close();
  });
});

describe('HostSession: heartbeats', () => {
  it('answers a ping with a pong that replies to it', async () => {
    const { session, page, received } = linkedSession();
    const ping = sessionPing(null);
    page.send(JSON.stringify(ping));
    await until(() => received.some((m) => m.type === 'session.pong'));
    expect(received.find((m) => m.type === 'session.pong')).toMatchObject({ replyTo: ping.id });
    session.close();
  });

  // Time is the subject: fake timers (and a fake Date, which the heartbeat reads) over the
  // in-memory pair, whose frames go by microtask, so every step is the clock the test moves.
  it('a page that answers stays; one silent for three intervals is closed, its calls failed', async () => {
    vi.useFakeTimers();
    try {
      const interval = 40;
      // The honest page: it answers every ping, so it outlives many intervals.
      const alive = linkedSession({ heartbeatIntervalMs: interval });
      alive.page.onmessage = (frame) => {
        const message = JSON.parse(frame);
        alive.received.push(message);
        if (message.type === 'session.ping') {
          alive.page.send(JSON.stringify(sessionPong(message)));
        }
      };
      // The silent one: it never says a word after the socket opened.
      const silent = linkedSession({ heartbeatIntervalMs: interval });
      const pending = silent.session.request('tool.call', { toolId: 'x' }).catch((e) => e);
      // Just short of three intervals: both open, the silent one pinged.
      await vi.advanceTimersByTimeAsync(3 * interval - 1);
      expect(silent.session.isOpen).toBe(true);
      expect(silent.received.filter((m) => m.type === 'session.ping').length).toBeGreaterThan(0);
      // Within two more intervals (the beat that notices), the silent one is closed.
      await vi.advanceTimersByTimeAsync(2 * interval);
      expect(silent.session.isOpen).toBe(false);
      expect(await silent.session.closed).toEqual({
        code: SESSION_CLOSE.silent,
        reason: `the page stopped answering for ${3 * interval} ms`,
      });
      expect(await pending).toMatchObject({ code: 'tool_transport_closed' });
      expect(silent.closes).toHaveLength(1);
      expect(silent.closes[0]?.code).toBe(SESSION_CLOSE.silent);
      expect(alive.session.isOpen).toBe(true);
      expect(alive.received.filter((m) => m.type === 'session.ping').length).toBeGreaterThan(2);
      alive.session.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('a stall of the host itself does not close a page whose answer waits unread', async () => {
    // Real sockets: the page answers a ping at once, then this process stalls past three
    // intervals before it has read the answer. The heartbeat timer runs first when the loop
    // resumes; the page answered, so the session must stay open.
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const accepted = new Promise<WebSocket>((resolve) => server.once('connection', resolve));
    const pageSocket = new WebSocket(
      `ws://127.0.0.1:${(server.address() as { port: number }).port}`,
    );
    const hostSocket = await accepted;
    await new Promise<void>((resolve) => {
      if (pageSocket.readyState === WebSocket.OPEN) resolve();
      else pageSocket.once('open', () => resolve());
    });
    const interval = 30;
    const session = new HostSession({
      id: 'session-stall',
      transport: socketTransport(hostSocket),
      origin: A,
      grant: 'read',
      hostRun: 'run-1',
      heartbeatIntervalMs: interval,
    });
    let stalls = 0;
    const stalled = new Promise<void>((resolve) => {
      pageSocket.on('message', (data) => {
        const message = JSON.parse(String(data));
        if (message.type !== 'session.ping') return;
        pageSocket.send(JSON.stringify(sessionPong(message)));
        if (stalls++ > 0) return;
        // The stall is the scenario, not a wait: the longer it lasts, the surer the timer runs
        // before the read.
        const stallEnds = Date.now() + 6 * interval;
        while (Date.now() < stallEnds) {
          // busy: the answer sits in this process's socket buffer
        }
        resolve();
      });
    });
    await stalled;
    // Two more pings answered after the stall: the session outlived the beat that ran first.
    await until(() => stalls >= 3 || !session.isOpen);
    expect(session.isOpen).toBe(true);
    session.close();
    pageSocket.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('heartbeatIntervalMs 0 sends no ping and closes nothing', async () => {
    vi.useFakeTimers();
    try {
      const { session, received } = linkedSession({ heartbeatIntervalMs: 0 });
      // An hour of silence, run at once: no timer may ping or close.
      await vi.advanceTimersByTimeAsync(60 * 60_000);
      expect(received.filter((m) => m.type === 'session.ping')).toEqual([]);
      expect(received[0].payload.heartbeatIntervalMs).toBe(0);
      expect(session.isOpen).toBe(true);
      session.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

// ---- A real host over real sockets --------------------------------------------------------

describe('a real host pairs, resumes and revokes', () => {
  let host: Host | undefined;
  const pages: FakePage[] = [];

  afterEach(async () => {
    for (const page of pages.splice(0)) page.socket.terminate();
    await host?.close();
    host = undefined;
  });

  const base = () => host?.address as string;
  const address = (query: string) => `${base()}?${query}`;
  const dial = async (secret: Parameters<typeof FakePage.dial>[1], options = {}) => {
    const page = await FakePage.dial(base(), secret, { origin: A, ...options });
    pages.push(page);
    return page;
  };

  /** A raw socket's close code and reason (refusals come as a socket closed at once). */
  const closeOf = (url: string, origin: string) =>
    new Promise<{ code: number; reason: string }>((resolve, reject) => {
      const socket = new WebSocket(url, { origin });
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
      socket.on('error', reject);
    });

  it('pair-id and both proofs; the derived credential resumes by id; a spent code is refused', async () => {
    const lines: string[] = [];
    const store = new MemoryPairingStore();
    // No origin allowed: pairing by a link bound to A does not need the allow-list.
    host = await createHost({
      log: (line) => lines.push(line),
      heartbeatIntervalMs: 0,
      pairingStore: store,
      hostId: 'host-id-1',
    });
    const link = host.pairingLink(`${A}/app`);
    expect(link.origin).toBe(A);
    const code = new URL(
      new URLSearchParams(new URL(link.url).hash.slice(1)).get('toolwire') ?? '',
    ).searchParams.get('pair') as string;
    expect(code).toBe(link.code);
    const page = await dial({ code }, { tools: [tool('a.b')] });
    const session = await host.waitForSession();
    expect(session.paired).toBe(true);
    expect(session.tools().map((t) => t.id)).toEqual(['a.b']);
    const welcome = page.received[0];
    expect(welcome.type).toBe('session.welcome');
    expect(welcome.payload).toMatchObject({ hostRun: host.hostRun, hostId: 'host-id-1' });
    expect(welcome.payload).not.toHaveProperty('credential');
    expect(page.hostProven).toBe(true);
    // Both sides derived the same credential; the host keeps it under its id.
    const credential = page.credential as string;
    expect(credential).toMatch(/^[\w-]{43}$/);
    expect(session.pairingId).toBe(idOf(credential));
    expect(store.list()).toEqual([
      expect.objectContaining({
        id: idOf(credential),
        secret: credential,
        origin: A,
        kind: 'link',
      }),
    ]);
    // The spent code: refused with the reason a page shows; the credential works, by its id.
    expect(await closeOf(handshakeUrl(base(), { code }).url, A)).toEqual({
      code: 4401,
      reason: expect.stringContaining('already used'),
    });
    const again = await dial({ credential });
    const resumed = await host.waitForSession({ filter: (s) => s.info?.key === again.key });
    expect(again.hostProven).toBe(true);
    expect(resumed.paired).toBe(false);
    expect(resumed.pairingId).toBe(idOf(credential));
    // The credential is the tab's, not any origin's.
    expect(await closeOf(handshakeUrl(base(), { credential }).url, B)).toMatchObject({
      code: 4401,
    });
    // Nothing secret in the log.
    for (const secret of [code, credential, host.token]) {
      expect(lines.join('\n')).not.toContain(secret);
    }
    expect(lines.join('\n')).toContain(', pairing');
    expect(lines.join('\n')).toContain('paired before');
  });

  it('the old ?pair= and ?credential= are refused 4401 (too old), and spend nothing', async () => {
    const store = new MemoryPairingStore();
    host = await createHost({ heartbeatIntervalMs: 0, pairingStore: store });
    // Honest first: a code by its id pairs.
    const honest = await dial({ code: host.pairingLink(`${A}/`).code });
    await host.waitForSession();
    const credential = honest.credential as string;
    expect(credential).toEqual(expect.any(String));
    const { code } = host.pairingLink(`${A}/`);
    for (const query of [`pair=${code}`, `credential=${credential}`]) {
      expect(await closeOf(address(query), A)).toEqual({
        code: 4401,
        reason: expect.stringContaining("this page's toolwire is too old for this host"),
      });
    }
    // The code was not spent by the refusal.
    const later = await dial({ code });
    await until(() => store.list().length === 2);
    expect(store.get(idOf(later.credential as string))).toBeDefined();
  });

  it('a wrong or missing page proof closes 4401: no request sent, no pairing kept', async () => {
    const store = new MemoryPairingStore();
    host = await createHost({ heartbeatIntervalMs: 0, pairingStore: store });
    // Honest first: the right proof opens the session, and the host queries the page.
    const honest = await dial({ code: host.pairingLink(`${A}/`).code });
    await until(() => honest.requests('tool.query').length > 0);
    expect(store.list()).toHaveLength(1);
    for (const [what, proof] of [
      ['wrong', () => 'x'.repeat(43)],
      ['missing', () => undefined],
    ] as const) {
      const liar = await dial(
        { code: host.pairingLink(`${A}/`).code },
        { handshake: { proof } as never },
      );
      expect(await liar.closed, what).toEqual({
        code: 4401,
        reason:
          what === 'wrong'
            ? 'the page did not prove it holds the pairing'
            : 'the page sent no proof that it holds the pairing',
      });
      expect(liar.received.map((m) => m.type)).toEqual(['session.welcome']);
    }
    expect(store.list()).toHaveLength(1);
  });

  it('the token path: a page with a nonce gets the proof, one without is served as before', async () => {
    host = await createHost({ heartbeatIntervalMs: 0, origins: [A] });
    const proving = await dial({ token: host.token });
    await until(() => proving.requests('tool.query').length > 0);
    expect(proving.hostProven).toBe(true);
    // A wrong proof on the token path is refused as well.
    const liar = await dial({ token: host.token }, { handshake: { proof: () => 'x'.repeat(43) } });
    expect((await liar.closed).code).toBe(4401);
    // No nonce: no proof in the welcome, and the host queries at once, as other SDKs expect.
    const older = await FakePage.connect(host.url, { origin: A });
    pages.push(older);
    await until(() => older.requests('tool.query').length > 0);
    expect(older.received[0].payload).not.toHaveProperty('proof');
  });

  it('the proof binds the port: a relay on another port gets a proof the page refuses', async () => {
    host = await createHost({ heartbeatIntervalMs: 0 });
    // Honest first, straight to the host.
    const direct = await dial({ code: host.pairingLink(`${A}/`).code });
    await until(() => direct.requests('tool.query').length > 0);
    expect(direct.hostProven).toBe(true);
    const relay = tcpRelay(host.port);
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const relayPort = (relay.server.address() as { port: number }).port;
      const viaRelay = `ws://127.0.0.1:${relayPort}/toolwire`;
      const page = await FakePage.dial(
        viaRelay,
        { code: host.pairingLink(`${A}/`).code },
        { origin: A },
      );
      pages.push(page);
      // The page dialed the relay's port: the host's proof names its own, so it fails here,
      // and the host refuses the page's proof over the relay's port in turn.
      expect((await page.closed).code).toBe(4401);
      expect(page.hostProven).toBe(false);
      expect(page.received.map((m) => m.type)).toEqual(['session.welcome']);
    } finally {
      for (const socket of relay.sockets) socket.destroy();
      await new Promise<void>((resolve) => relay.server.close(() => resolve()));
    }
  });

  it('forwardedPorts: a tunnel the host was told of is proven for its port; another is not', async () => {
    // The tunnel listens first; the host learns its port, as `ssh -L` before `toolwire host`.
    let target = 0;
    const tunnel = tcpRelay(() => target);
    await new Promise<void>((resolve) => tunnel.server.listen(0, '127.0.0.1', () => resolve()));
    const tunnelPort = (tunnel.server.address() as { port: number }).port;
    host = await createHost({ heartbeatIntervalMs: 0, forwardedPorts: [tunnelPort] });
    target = host.port;
    const other = tcpRelay(host.port);
    await new Promise<void>((resolve) => other.server.listen(0, '127.0.0.1', () => resolve()));
    try {
      // Honest: through the named tunnel, both proofs hold and the host queries.
      const through = await FakePage.dial(
        `ws://127.0.0.1:${tunnelPort}/toolwire`,
        { code: host.pairingLink(`${A}/`).code },
        { origin: A },
      );
      pages.push(through);
      await until(() => through.requests('tool.query').length > 0);
      expect(through.hostProven).toBe(true);
      // A relay on a port the host was not told of still fails the binding.
      const otherPort = (other.server.address() as { port: number }).port;
      const relayed = await FakePage.dial(
        `ws://127.0.0.1:${otherPort}/toolwire`,
        { code: host.pairingLink(`${A}/`).code },
        { origin: A },
      );
      pages.push(relayed);
      expect((await relayed.closed).code).toBe(4401);
      expect(relayed.hostProven).toBe(false);
    } finally {
      for (const relay of [tunnel, other]) {
        for (const socket of relay.sockets) socket.destroy();
        await new Promise<void>((resolve) => relay.server.close(() => resolve()));
      }
    }
  });

  it('revoke closes the session with 4403 and the credential stops working', async () => {
    host = await createHost({ heartbeatIntervalMs: 0 });
    const page = await dial({ code: host.pairingLink(`${A}/`).code });
    const session = await host.waitForSession();
    const credential = page.credential as string;
    expect(host.revoke('no-such-session')).toBe(false);
    expect(host.revoke(session.id)).toBe(true);
    expect(await page.closed).toEqual({ code: 4403, reason: 'revoked by the host' });
    expect(await closeOf(handshakeUrl(base(), { credential }).url, A)).toEqual({
      code: 4401,
      reason: expect.stringContaining('not known to the host'),
    });
    expect(host.sessions).toEqual([]);
  });

  it('revoke ends the pairing: every session holding it closes, others stay', async () => {
    host = await createHost({ heartbeatIntervalMs: 0 });
    const pair = async () => {
      const page = await dial({ code: host?.pairingLink(`${A}/`).code as string });
      await until(() => page.requests('tool.query').length > 0);
      return page;
    };
    const first = await pair();
    const credential = first.credential as string;
    // A second tab holding the same credential (a duplicated tab keeps its sessionStorage).
    const twin = await dial({ credential });
    const other = await pair();
    await until(() => host?.sessions.filter((s) => s.pairingId).length === 3);
    const session = host.sessions.find((s) => s.pairingId === idOf(credential)) as HostSession;
    expect(host.revoke(session.id)).toBe(true);
    for (const page of [first, twin]) {
      expect(await page.closed).toEqual({ code: 4403, reason: 'revoked by the host' });
    }
    expect(host.sessions.map((s) => s.pairingId)).toEqual([idOf(other.credential as string)]);
  });

  it('a host restarted on the same port with the same store resumes the tab; a new store does not', async () => {
    const store = new MemoryPairingStore();
    host = await createHost({ heartbeatIntervalMs: 0, pairingStore: store });
    const port = host.port;
    const page = await dial({ code: host.pairingLink(`${A}/`).code });
    await host.waitForSession();
    const credential = page.credential as string;
    await host.close();
    host = await createHost({ port, heartbeatIntervalMs: 0, pairingStore: store });
    const resumed = await dial({ credential });
    await until(() => resumed.requests('tool.query').length > 0);
    expect(resumed.hostProven).toBe(true);
    await host.close();
    host = await createHost({ port, heartbeatIntervalMs: 0 });
    expect(await closeOf(handshakeUrl(base(), { credential }).url, A)).toEqual({
      code: 4401,
      reason: expect.stringContaining('not known to the host'),
    });
  });

  it('a refusal quoting a long non-ASCII Origin is clipped to fit the close frame; the host lives on', async () => {
    host = await createHost({ heartbeatIntervalMs: 0 });
    const { code } = host.pairingLink(`${A}/`);
    // Any client may send any Origin; latin1 bytes become two UTF-8 bytes each in the reason.
    const refused = await closeOf(
      handshakeUrl(base(), { code }).url,
      `http://${'\u00e9'.repeat(100)}`,
    );
    expect(refused.code).toBe(4401);
    expect(refused.reason).toMatch(/^this pairing code is not for pages of http:\/\/é+$/);
    expect(Buffer.byteLength(refused.reason)).toBeLessThanOrEqual(123);
    // Not spent, and the host still answers: the owner pairs with the same code.
    const page = await dial({ code });
    await until(() => page.credential !== undefined);
  });

  it('an unbound code (createPairingCode) pairs only an allowed origin', async () => {
    host = await createHost({ origins: [A], heartbeatIntervalMs: 0 });
    const { code } = host.createPairingCode();
    expect(await closeOf(handshakeUrl(base(), { code }).url, B)).toMatchObject({
      code: 4401,
      reason: expect.stringContaining(`not for pages of ${B}`),
    });
    const page = await dial({ code });
    await until(() => page.credential !== undefined);
  });
});
