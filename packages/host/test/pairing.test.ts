// Pairing (issue 13): single-use codes, credentials bound to an origin and a host run, the
// upgrade check that routes to them, and the session's welcome and heartbeats. Every refusal
// below follows a case that proves the same path succeeds with the honest secret.
import type { ToolPolicy, Transport, TransportCloseInfo } from '@toolwire/protocol';
import { createLinkedPair, SESSION_CLOSE, sessionPing, sessionPong } from '@toolwire/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { until } from '../../../test-support/wait.js';
import type { Host } from '../src/index.js';
import { createHost, HostSession } from '../src/index.js';
import { authorizeUpgrade, Pairing, socketTransport } from '../src/internal.js';
import { FakePage, tool } from './helpers.js';

const A = 'http://a.test';
const B = 'http://b.test';
const any = () => true;
const none = () => false;

/** A Pairing whose clock the test moves. */
function clocked(options: { codeTtlMs?: number } = {}) {
  const clock = { now: 1_000_000 };
  const pairing = new Pairing({ ...options, now: () => clock.now });
  return { pairing, clock };
}

describe('Pairing: codes', () => {
  it('a code pairs once; the second use is refused as "already used"', () => {
    const { pairing } = clocked();
    const { code } = pairing.createCode({ origin: A });
    const first = pairing.redeem(code, A, none);
    expect(first).toEqual({ ok: true, credential: expect.stringMatching(/^[\w-]{22}$/) });
    expect(pairing.redeem(code, A, any)).toEqual({
      ok: false,
      reason: expect.stringContaining('already used'),
    });
  });

  it('says "unknown" (not "already used") for a code it never made', () => {
    const { pairing } = clocked();
    const { code } = pairing.createCode();
    expect(pairing.redeem(code, A, any).ok).toBe(true);
    const other = new Pairing();
    expect(other.redeem(code, A, any)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^unknown pairing code/),
    });
    expect(pairing.redeem('made-up', A, any)).toMatchObject({
      reason: expect.stringMatching(/^unknown pairing code/),
    });
  });

  it('an expired code is refused with "expired", then remembered as used', () => {
    const { pairing, clock } = clocked({ codeTtlMs: 50 });
    const honest = pairing.createCode({ origin: A });
    clock.now += 49;
    expect(pairing.redeem(honest.code, A, none).ok).toBe(true);
    const late = pairing.createCode({ origin: A });
    expect(late.expiresAt).toBe(clock.now + 50);
    clock.now += 50;
    expect(pairing.redeem(late.code, A, none)).toEqual({
      ok: false,
      reason: expect.stringContaining('expired'),
    });
    expect(pairing.redeem(late.code, A, none).ok).toBe(false);
    // A per-code ttl beats the default.
    const long = pairing.createCode({ origin: A, ttlMs: 10_000 });
    clock.now += 5_000;
    expect(pairing.redeem(long.code, A, none).ok).toBe(true);
  });

  it('a code bound to origin A is refused for B and not spent: A still pairs with it', () => {
    const { pairing } = clocked();
    const { code } = pairing.createCode({ origin: A });
    // `allowed` says yes to everyone: the binding, not the allow-list, refuses B.
    expect(pairing.redeem(code, B, any)).toEqual({
      ok: false,
      reason: `this pairing code is not for pages of ${B}`,
    });
    expect(pairing.redeem(code, null, any)).toMatchObject({ ok: false });
    expect(pairing.redeem(code, A, none).ok).toBe(true);
  });

  it('a code bound to no origin follows the allow-list, and is not spent by a refusal', () => {
    const { pairing } = clocked();
    const { code } = pairing.createCode();
    const seen: (string | null)[] = [];
    const onlyA = (origin: string | null) => {
      seen.push(origin);
      return origin === A;
    };
    expect(pairing.redeem(code, B, onlyA)).toMatchObject({
      ok: false,
      reason: expect.stringContaining(B),
    });
    expect(pairing.redeem(code, A, onlyA).ok).toBe(true);
    expect(seen).toEqual([B, A]);
  });

  // CPU-bound (thousands of codes): its bound is far past what a loaded machine needs.
  it('keeps bounded memory: a flood of codes forgets the oldest, spent ones too', () => {
    const { pairing } = clocked();
    const first = pairing.createCode({ origin: A });
    const second = pairing.createCode({ origin: A });
    for (let i = 0; i < 4096; i++) pairing.createCode({ origin: A });
    // The oldest code went when the map passed its cap; the next one is still good.
    expect(pairing.redeem(first.code, A, none)).toMatchObject({
      reason: expect.stringMatching(/^unknown/),
    });
    expect(pairing.redeem(second.code, A, none).ok).toBe(true);
    // Spent codes: remembered (as "already used") up to the cap, then the oldest forgotten.
    const spent: string[] = [];
    for (let i = 0; i < 4097; i++) {
      const { code } = pairing.createCode({ origin: A });
      expect(pairing.redeem(code, A, none).ok).toBe(true);
      spent.push(code);
    }
    expect(pairing.redeem(spent.at(-1) as string, A, none)).toMatchObject({
      reason: expect.stringContaining('already used'),
    });
    expect(pairing.redeem(spent[0] as string, A, none)).toMatchObject({
      reason: expect.stringMatching(/^unknown/),
    });
  }, 60_000);

  it('forgets spent codes after an hour', () => {
    const { pairing, clock } = clocked();
    const { code } = pairing.createCode({ origin: A });
    pairing.redeem(code, A, none);
    clock.now += 59 * 60_000;
    pairing.createCode(); // a sweep
    expect(pairing.redeem(code, A, none)).toMatchObject({ reason: /already used/ });
    clock.now += 60_000;
    pairing.createCode();
    expect(pairing.redeem(code, A, none)).toMatchObject({ reason: /^unknown/ });
  });
});

describe('Pairing: credentials', () => {
  it('resume accepts the credential for its origin only; another run knows none', () => {
    const { pairing } = clocked();
    const { code } = pairing.createCode({ origin: A });
    const result = pairing.redeem(code, A, none);
    if (!result.ok) throw new Error('pairing failed');
    expect(pairing.resume(result.credential, A)).toEqual({
      ok: true,
      credential: result.credential,
    });
    expect(pairing.resume(result.credential, B)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('not known to the host'),
    });
    expect(pairing.resume(result.credential, null).ok).toBe(false);
    // The code itself is no credential.
    expect(pairing.resume(code, A).ok).toBe(false);
    const restarted = new Pairing();
    expect(restarted.hostRun).not.toBe(pairing.hostRun);
    expect(restarted.resume(result.credential, A)).toMatchObject({
      reason: expect.stringContaining('not known to the host'),
    });
  });

  it('revoke forgets a credential; others stay good', () => {
    const { pairing } = clocked();
    const credentials = [0, 1].map(() => {
      const result = pairing.redeem(pairing.createCode({ origin: A }).code, A, none);
      if (!result.ok) throw new Error('pairing failed');
      return result.credential;
    });
    const [gone, kept] = credentials as [string, string];
    expect(pairing.resume(gone, A).ok).toBe(true);
    expect(pairing.revoke(gone)).toBe(true);
    expect(pairing.revoke(gone)).toBe(false);
    expect(pairing.resume(gone, A).ok).toBe(false);
    expect(pairing.resume(kept, A).ok).toBe(true);
  });
});

describe('authorizeUpgrade with pairing secrets', () => {
  const TOKEN = 'page-token-0123456789';
  const policy = (overrides = {}) => ({
    path: '/toolwire',
    token: TOKEN,
    origins: [A],
    redeem: (code: string) =>
      code === 'good'
        ? { ok: true as const, credential: 'cred' }
        : { ok: false as const, reason: 'no' },
    resume: (credential: string, origin: string | null) =>
      credential === 'cred' && origin === A
        ? { ok: true as const, credential }
        : { ok: false as const, reason: 'unknown tab' },
    ...overrides,
  });
  const check = (url: string, origin: string | undefined = A, overrides = {}) =>
    authorizeUpgrade({ url, headers: origin ? { origin } : {} }, policy(overrides));

  it('a good code pairs; a bad one is a socket closed with 4401 and the reason', () => {
    expect(check('/toolwire?pair=good')).toEqual({
      ok: true,
      origin: A,
      via: 'pair',
      credential: 'cred',
    });
    expect(check('/toolwire?pair=bad')).toEqual({
      ok: false,
      status: 'close',
      closeCode: 4401,
      reason: 'no',
    });
  });

  it('a good credential resumes; another origin or an unknown one gets 4401', () => {
    expect(check('/toolwire?credential=cred')).toEqual({
      ok: true,
      origin: A,
      via: 'credential',
      credential: 'cred',
    });
    expect(check('/toolwire?credential=cred', B)).toMatchObject({
      status: 'close',
      closeCode: 4401,
      reason: 'unknown tab',
    });
    expect(check('/toolwire?credential=other')).toMatchObject({ status: 'close' });
  });

  it('refuses more than one secret in one request with 401, good ones included', () => {
    expect(check(`/toolwire?token=${TOKEN}`)).toMatchObject({ ok: true, via: 'token' });
    for (const query of [
      `token=${TOKEN}&pair=good`,
      'pair=good&credential=cred',
      `token=${TOKEN}&credential=cred`,
      'pair=good&pair=good',
    ]) {
      const verdict = check(`/toolwire?${query}`);
      // Two of the same name count once (URLSearchParams.get reads the first); the rest refuse.
      if (query === 'pair=good&pair=good') expect(verdict).toMatchObject({ ok: true });
      else
        expect(verdict, query).toEqual({ ok: false, status: 401, reason: 'more than one secret' });
    }
  });

  it('a host without pairing refuses codes and credentials with a reason', () => {
    const bare = { redeem: undefined, resume: undefined };
    for (const query of ['pair=good', 'credential=cred']) {
      expect(check(`/toolwire?${query}`, A, bare)).toEqual({
        ok: false,
        status: 'close',
        closeCode: 4401,
        reason: 'this host does not pair',
      });
    }
  });

  it('the path is checked before any secret is spent', () => {
    let spent = 0;
    const verdict = check('/elsewhere?pair=good', A, {
      redeem: () => {
        spent++;
        return { ok: true, credential: 'cred' };
      },
    });
    expect(verdict).toMatchObject({ ok: false, status: 404 });
    expect(spent).toBe(0);
  });
});

// ---- HostSession: the welcome and heartbeats ----------------------------------------------

/** A session over an in-memory pair; `page` is the page's end, recording what it got. */
function linkedSession(
  options: {
    grant?: ToolPolicy;
    heartbeatIntervalMs?: number;
    credential?: string;
    sendCredential?: boolean;
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
    expect(received[1]).toMatchObject({ type: 'tool.query' });
    session.close();
  });

  it('gives the credential only on a socket that paired with a code', async () => {
    const paired = linkedSession({ credential: 'cred-1', sendCredential: true });
    const resumed = linkedSession({ credential: 'cred-1', sendCredential: false });
    await until(() => paired.received.length > 0 && resumed.received.length > 0);
    expect(paired.session.paired).toBe(true);
    expect(paired.received[0].payload.credential).toBe('cred-1');
    expect(resumed.session.paired).toBe(false);
    expect(resumed.session.credential).toBe('cred-1');
    expect(resumed.received[0].payload).not.toHaveProperty('credential');
    // sendCredential without a credential sends none.
    const odd = linkedSession({ sendCredential: true });
    await until(() => odd.received.length > 0);
    expect(odd.received[0].payload).not.toHaveProperty('credential');
    for (const { session } of [paired, resumed, odd]) session.close();
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

  const address = (query: string) => `ws://127.0.0.1:${host?.port}/toolwire?${query}`;

  /** A raw socket's close code and reason (refusals come as a socket closed at once). */
  const closeOf = (url: string, origin: string) =>
    new Promise<{ code: number; reason: string }>((resolve, reject) => {
      const socket = new WebSocket(url, { origin });
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
      socket.on('error', reject);
    });

  it('code -> credential in the welcome; the credential reconnects; spent code refused', async () => {
    const lines: string[] = [];
    // No origin allowed: pairing by a link bound to A does not need the allow-list.
    host = await createHost({ log: (line) => lines.push(line), heartbeatIntervalMs: 0 });
    const link = host.pairingLink(`${A}/app`);
    expect(link.origin).toBe(A);
    const code = new URL(
      new URLSearchParams(new URL(link.url).hash.slice(1)).get('toolwire') ?? '',
    ).searchParams.get('pair') as string;
    expect(code).toBe(link.code);
    const page = await FakePage.connect(address(`pair=${code}`), {
      origin: A,
      tools: [tool('a.b')],
    });
    pages.push(page);
    const session = await host.waitForSession();
    expect(session.paired).toBe(true);
    const welcome = page.received[0];
    expect(welcome.type).toBe('session.welcome');
    expect(welcome.payload.hostRun).toBe(host.hostRun);
    const credential = welcome.payload.credential as string;
    expect(credential).toMatch(/^[\w-]{22}$/);
    expect(credential).not.toBe(code);
    // The spent code: refused with the reason a page shows; the credential works.
    expect(await closeOf(address(`pair=${code}`), A)).toEqual({
      code: 4401,
      reason: expect.stringContaining('already used'),
    });
    const again = await FakePage.connect(address(`credential=${credential}`), { origin: A });
    pages.push(again);
    const resumed = await host.waitForSession({ filter: (s) => s.info?.key === again.key });
    expect(resumed.paired).toBe(false);
    expect(resumed.credential).toBe(credential);
    expect(again.received[0].payload).not.toHaveProperty('credential');
    // The credential is the tab's, not any origin's.
    expect(await closeOf(address(`credential=${credential}`), B)).toMatchObject({ code: 4401 });
    // Nothing secret in the log.
    for (const secret of [code, credential, host.token]) {
      expect(lines.join('\n')).not.toContain(secret);
    }
    expect(lines.join('\n')).toContain('newly paired');
    expect(lines.join('\n')).toContain('paired before');
  });

  it('revoke closes the session with 4403 and the credential stops working', async () => {
    host = await createHost({ heartbeatIntervalMs: 0 });
    const { code } = host.pairingLink(`${A}/`);
    const page = await FakePage.connect(address(`pair=${code}`), { origin: A });
    pages.push(page);
    const session = await host.waitForSession();
    const credential = page.received[0].payload.credential as string;
    expect(host.revoke('no-such-session')).toBe(false);
    expect(host.revoke(session.id)).toBe(true);
    expect(await page.closed).toEqual({ code: 4403, reason: 'revoked by the host' });
    expect(await closeOf(address(`credential=${credential}`), A)).toEqual({
      code: 4401,
      reason: expect.stringContaining('not known to the host'),
    });
    expect(host.sessions).toEqual([]);
  });

  it('revoke ends the pairing: every session holding its credential closes, others stay', async () => {
    host = await createHost({ heartbeatIntervalMs: 0 });
    const pair = async () => {
      const page = await FakePage.connect(address(`pair=${host?.pairingLink(`${A}/`).code}`), {
        origin: A,
      });
      pages.push(page);
      await until(() => page.received.length > 0);
      return page;
    };
    const first = await pair();
    const credential = first.received[0].payload.credential as string;
    // A second tab holding the same credential (a duplicated tab keeps its sessionStorage).
    const twin = await FakePage.connect(address(`credential=${credential}`), { origin: A });
    pages.push(twin);
    const other = await pair();
    await until(() => host?.sessions.length === 3);
    const session = host.sessions.find((s) => s.credential === credential) as HostSession;
    expect(host.revoke(session.id)).toBe(true);
    for (const page of [first, twin]) {
      expect(await page.closed).toEqual({ code: 4403, reason: 'revoked by the host' });
    }
    expect(host.sessions.map((s) => s.credential)).toEqual([other.received[0].payload.credential]);
  });

  it('a host restarted on the same port does not know the old credential', async () => {
    host = await createHost({ heartbeatIntervalMs: 0 });
    const port = host.port;
    const page = await FakePage.connect(address(`pair=${host.pairingLink(`${A}/`).code}`), {
      origin: A,
    });
    pages.push(page);
    await host.waitForSession();
    const credential = page.received[0].payload.credential as string;
    await host.close();
    host = await createHost({ port, heartbeatIntervalMs: 0 });
    expect(await closeOf(address(`credential=${credential}`), A)).toEqual({
      code: 4401,
      reason: expect.stringContaining('not known to the host'),
    });
  });

  it('a refusal quoting a long non-ASCII Origin is clipped to fit the close frame; the host lives on', async () => {
    host = await createHost({ heartbeatIntervalMs: 0 });
    const { code } = host.pairingLink(`${A}/`);
    // Any client may send any Origin; latin1 bytes become two UTF-8 bytes each in the reason.
    const refused = await closeOf(address(`pair=${code}`), `http://${'\u00e9'.repeat(100)}`);
    expect(refused.code).toBe(4401);
    expect(refused.reason).toMatch(/^this pairing code is not for pages of http:\/\/é+$/);
    expect(Buffer.byteLength(refused.reason)).toBeLessThanOrEqual(123);
    // Not spent, and the host still answers: the owner pairs with the same code.
    const page = await FakePage.connect(address(`pair=${code}`), { origin: A });
    pages.push(page);
    await until(() => page.received.length > 0);
    expect(page.received[0].payload.credential).toEqual(expect.any(String));
  });

  it('an unbound code (createPairingCode) pairs only an allowed origin', async () => {
    host = await createHost({ origins: [A], heartbeatIntervalMs: 0 });
    const { code } = host.createPairingCode();
    expect(await closeOf(address(`pair=${code}`), B)).toMatchObject({
      code: 4401,
      reason: expect.stringContaining(`not for pages of ${B}`),
    });
    const page = await FakePage.connect(address(`pair=${code}`), { origin: A });
    pages.push(page);
    await until(() => page.received.length > 0);
    expect(page.received[0].payload.credential).toEqual(expect.any(String));
  });
});
