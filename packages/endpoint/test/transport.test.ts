// The endpoint's session over the in-memory linked pair (issue 14): reconnect, the frame limit,
// heartbeats and pairing, with the host's side played by the test and time by fake timers.
import { readFileSync } from 'node:fs';
import type { Tools } from '@toolwire/polyfill';
import type { SessionWelcomePayload, Transport, TransportCloseInfo } from '@toolwire/protocol';
import { createLinkedPair, SESSION_CLOSE, sessionPing, sessionWelcome } from '@toolwire/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { until, WAIT_BOUND_MS } from '../../../test-support/wait.js';
import type { Connection, ConnectOptions, Connector, Session } from '../src/connect.js';
import { connect } from '../src/connect.js';
import { idOf, provenWelcome } from './handshake.js';

/** Taken before any test fakes the timers: the bound on a wait is real time. */
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

/**
 * `event`, or a failure naming `what` once WAIT_BOUND_MS of real time have passed (a bound on a
 * hang, never the thing tested). Nothing polls, so the fake clock moves only when a test says.
 */
function bounded<T>(event: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof realSetTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => {
    // The bound, on the real clock: the tests' fake one moves only when they advance it.
    timer = realSetTimeout(() => reject(new Error(`never happened: ${what}`)), WAIT_BOUND_MS);
  });
  return Promise.race([event, bound]).finally(() => realClearTimeout(timer));
}

/** The next `type` event `target` dispatches (listen before causing it). */
const next = (target: EventTarget, type: string): Promise<Event> =>
  bounded(
    new Promise((resolve) => target.addEventListener(type, resolve, { once: true })),
    `a ${type} event`,
  );

type Received = { type: string; replyTo?: string; payload?: unknown };

/** The host's end of one connection the page opened. */
interface HostEnd {
  url: URL;
  transport: Transport;
  /** Frames the page sent, decoded. */
  received: Received[];
  closed: TransportCloseInfo | undefined;
  /** The connection opens (what a socket's `open` is to the page). */
  accept(): void;
  send(message: object): void;
  /** The first frame of `type` the page sent (replying to `replyTo`, if given), now or later. */
  frame(type: string, replyTo?: string): Promise<Received>;
  /** The close of this connection, as the host saw it, now or later. */
  closing(): Promise<TransportCloseInfo>;
}

/** A Connector over createLinkedPair: the page's end, with the open signal the test gives. */
function pairConnector(): { connector: Connector; hosts: HostEnd[] } {
  const hosts: HostEnd[] = [];
  const connector: Connector = (url) => {
    const [page, host] = createLinkedPair();
    let open = false;
    const connection: Connection = {
      get isOpen() {
        return open;
      },
      send: (frame) => page.send(frame),
      close: (info) => {
        open = false;
        page.close(info);
      },
    };
    page.onmessage = (frame) => connection.onmessage?.(frame);
    page.onclose = (info) => {
      open = false;
      connection.onclose?.(info);
    };
    /** Checked again on every frame the host receives. */
    const waiting = new Set<() => void>();
    let closed!: (info: TransportCloseInfo) => void;
    const whenClosed = new Promise<TransportCloseInfo>((resolve) => {
      closed = resolve;
    });
    const end: HostEnd = {
      url: new URL(url),
      transport: host,
      received: [],
      closed: undefined,
      accept() {
        open = true;
        connection.onopen?.();
      },
      send: (message) => host.send(JSON.stringify(message)),
      frame(type, replyTo) {
        const found = new Promise<Received>((resolve) => {
          const check = () => {
            const frame = end.received.find(
              (message) =>
                message.type === type && (replyTo === undefined || message.replyTo === replyTo),
            );
            if (!frame) return;
            waiting.delete(check);
            resolve(frame);
          };
          waiting.add(check);
          check();
        });
        return bounded(found, `the host receives ${type}${replyTo ? ` for ${replyTo}` : ''}`);
      },
      closing: () => bounded(whenClosed, 'the connection closes'),
    };
    host.onmessage = (frame) => {
      end.received.push(JSON.parse(frame));
      for (const check of [...waiting]) check();
    };
    host.onclose = (info) => {
      end.closed = info;
      closed(info);
    };
    hosts.push(end);
    return connection;
  };
  return { connector, hosts };
}

/** A page with no tools of its own. */
function emptyTools(): Tools {
  const tools = new EventTarget() as EventTarget & Record<string, unknown>;
  tools.getTools = async () => [];
  tools.sourceOf = () => undefined;
  return tools as unknown as Tools;
}

function welcome(payload: Partial<SessionWelcomePayload> = {}) {
  return sessionWelcome({
    sessionId: 's1',
    hostRun: 'run-1',
    maxToolPolicy: 'read',
    heartbeatIntervalMs: 0,
    ...payload,
  });
}

const sessions: Session[] = [];

afterEach(() => {
  for (const session of sessions.splice(0)) session.close();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/**
 * A session over the pair, its first connection made (the page's first read of its tools, which
 * may load a chunk for real, is done by then: timers are faked only once the connection exists).
 */
async function start(options: Partial<ConnectOptions> = {}) {
  const { connector, hosts } = pairConnector();
  const session = connect({
    url: 'ws://127.0.0.1:9/toolwire?token=t',
    // This host stand-in sends no proof: the handshake has its own tests (pairing.test.ts).
    hostProof: false,
    tools: emptyTools(),
    builtins: false,
    // Jitter at its floor: each delay is exactly half the exponential one.
    reconnect: { initialDelayMs: 1000, maxDelayMs: 4000 },
    connector,
    ...options,
  });
  sessions.push(session);
  await until(() => hosts.length === 1, 'the first connection');
  vi.useFakeTimers();
  vi.spyOn(Math, 'random').mockReturnValue(0);
  const closes: { code: number; reason: string; willRetry: boolean }[] = [];
  session.addEventListener('close', (event) => closes.push((event as CustomEvent).detail));
  return { session, hosts, closes };
}

const types = (host: HostEnd | undefined) => host?.received.map((message) => message.type);

describe('the endpoint over a Transport', () => {
  it('reconnects after the host closes, backing off until a connection opens', async () => {
    const { session, hosts, closes } = await start();
    hosts[0]?.accept();
    await hosts[0]?.frame('session.open');
    expect(session.status).toBe('open');
    expect(types(hosts[0])).toEqual(['session.open']);
    // The version it reports is its package.json's, stamped in at build (no typed copy).
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(hosts[0]?.received[0]?.payload).toMatchObject({
      sdk: { name: 'toolwire-web', version: manifest.version },
    });

    let closed = next(session, 'close');
    hosts[0]?.transport.close({ code: 1001, reason: 'going away' });
    await closed;
    expect(closes).toEqual([{ code: 1001, reason: 'going away', willRetry: true }]);
    expect(session.status).toBe('connecting');
    await vi.advanceTimersByTimeAsync(499);
    expect(hosts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(hosts).toHaveLength(2);

    // Never opened: the next delay doubles.
    closed = next(session, 'close');
    hosts[1]?.transport.close({ code: 1006 });
    await closed;
    await vi.advanceTimersByTimeAsync(999);
    expect(hosts).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(hosts).toHaveLength(3);
    expect(hosts[2]?.url.searchParams.get('token')).toBe('t');

    // An open connection starts the backoff over, and says session.open again.
    hosts[2]?.accept();
    await hosts[2]?.frame('session.open');
    expect(types(hosts[2])).toEqual(['session.open']);
    closed = next(session, 'close');
    hosts[2]?.transport.close({ code: 1001 });
    await closed;
    await vi.advanceTimersByTimeAsync(500);
    expect(hosts).toHaveLength(4);
  });

  it.each([
    [SESSION_CLOSE.pairingRefused, false],
    [SESSION_CLOSE.revoked, true],
  ])('never reconnects after %i', async (code, revoked) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { session, hosts, closes } = await start();
    const refusals: unknown[] = [];
    session.addEventListener('refused', (event) => refusals.push((event as CustomEvent).detail));
    // Honest path: an ordinary drop is retried.
    let closed = next(session, 'close');
    hosts[0]?.accept();
    hosts[0]?.transport.close({ code: 1001 });
    await closed;
    await vi.advanceTimersByTimeAsync(500);
    expect(hosts).toHaveLength(2);

    closed = next(session, 'close');
    hosts[1]?.accept();
    hosts[1]?.transport.close({ code, reason: 'no' });
    await closed;
    expect(closes.at(-1)).toEqual({ code, reason: 'no', willRetry: false });
    expect(refusals).toEqual([{ code, reason: 'no', revoked }]);
    expect(session.status).toBe('closed');
    expect(warn).toHaveBeenCalledWith(
      `toolwire: the host at ws://127.0.0.1:9/toolwire ${revoked ? 'revoked' : 'refused'} this tab's pairing: no.`,
    );
    await vi.advanceTimersByTimeAsync(60_000);
    expect(hosts).toHaveLength(2);
  });

  it('closes with 4009 on a frame over maxMessageBytes, counted in UTF-8', async () => {
    const { session, hosts, closes } = await start({ limits: { maxMessageBytes: 200 } });
    const host = hosts[0] as HostEnd;
    host.accept();
    await host.frame('session.open');
    const ping = (pad: string) => ({ type: 'session.ping', id: `p-${pad}` });
    const size = (message: object) => new TextEncoder().encode(JSON.stringify(message)).byteLength;
    // Honest path: a frame of exactly the limit is read (and answered).
    const fits = ping(`${'é'.repeat(Math.floor((200 - size(ping(''))) / 2))}x`);
    expect(size(fits)).toBe(200);
    host.send(fits);
    await host.frame('session.pong', fits.id);
    expect(host.received.at(-1)).toMatchObject({ type: 'session.pong', replyTo: fits.id });
    expect(host.closed).toBeUndefined();

    // Fewer than 200 UTF-16 units, but 201 bytes on the wire.
    const over = ping(`${'é'.repeat(Math.floor((200 - size(ping(''))) / 2))}xx`);
    expect(JSON.stringify(over).length).toBeLessThan(200);
    expect(size(over)).toBe(201);
    const answered = host.received.length;
    const closed = next(session, 'close');
    host.send(over);
    await closed;
    await host.closing();
    expect(host.received).toHaveLength(answered);
    expect(host.closed).toEqual({ code: 4009, reason: 'message too big' });
    expect(closes).toEqual([{ code: 4009, reason: 'message too big', willRetry: true }]);
  });

  it('answers pings with pongs; a ping without an id is not a ping', async () => {
    const { hosts } = await start();
    const host = hosts[0] as HostEnd;
    host.accept();
    await host.frame('session.open');
    const ping = sessionPing('s1');
    host.send(ping);
    await host.frame('session.pong', ping.id);
    const pongs = () => host.received.filter((message) => message.type === 'session.pong');
    expect(pongs()).toEqual([expect.objectContaining({ type: 'session.pong', replyTo: ping.id })]);
    host.send({ type: 'session.ping', id: 7 });
    // Barrier: an honest ping after it, on the same ordered connection. Once its pong is back,
    // the page has read the one before.
    const after = sessionPing('s1');
    host.send(after);
    await host.frame('session.pong', after.id);
    expect(pongs().map((pong) => pong.replyTo)).toEqual([ping.id, after.id]);
  });

  it('drops a host silent for three heartbeat intervals, and reconnects', async () => {
    const { session, hosts, closes } = await start();
    const host = hosts[0] as HostEnd;
    const welcomed = next(session, 'welcome');
    host.accept();
    host.send(welcome({ heartbeatIntervalMs: 1000 }));
    await welcomed;
    // Honest path: a host that keeps talking (its pings, every 900 ms) is kept.
    for (let i = 0; i < 10; i++) {
      host.send(sessionPing('s1'));
      await vi.advanceTimersByTimeAsync(900);
    }
    expect(host.closed).toBeUndefined();
    expect(host.received.filter((message) => message.type === 'session.pong')).toHaveLength(10);

    // Silence: heard last at 8100 ms (after the welcome); the check at 11000 finds 2900 ms,
    // the one at 12000 finds 3900 ms.
    await vi.advanceTimersByTimeAsync(2099);
    expect(host.closed).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1000);
    const silent = { code: SESSION_CLOSE.silent, reason: 'the host stopped answering' };
    expect(await host.closing()).toEqual(silent);
    expect(closes).toEqual([{ ...silent, willRetry: true }]);
    await vi.advanceTimersByTimeAsync(500);
    expect(hosts).toHaveLength(2);
  });

  it('spends the pairing code for the derived credential on the next connection', async () => {
    const { session, hosts } = await start({ url: 'ws://127.0.0.1:9/toolwire?pair=CODE-1' });
    const paired: unknown[] = [];
    session.addEventListener('paired', (event) => paired.push((event as CustomEvent).detail));
    // Honest path: until a proven welcome, the code is not spent. It is named by its id only.
    expect(hosts[0]?.url.searchParams.get('pair-id')).toBe(idOf('CODE-1'));
    expect(hosts[0]?.url.toString()).not.toContain('CODE-1');
    let closed = next(session, 'close');
    hosts[0]?.accept();
    hosts[0]?.transport.close({ code: 1006 });
    await closed;
    await vi.advanceTimersByTimeAsync(500);
    expect(hosts[1]?.url.searchParams.get('pair-id')).toBe(idOf('CODE-1'));
    // A fresh nonce for every socket.
    expect(hosts[1]?.url.searchParams.get('nonce')).not.toBe(
      hosts[0]?.url.searchParams.get('nonce'),
    );

    const credited = next(session, 'paired');
    hosts[1]?.accept();
    const welcome = provenWelcome(hosts[1]?.url as URL, 'CODE-1', { hostId: 'host-1' });
    hosts[1]?.send(welcome.message);
    // Paired once the host's first request shows it kept the credential.
    await hosts[1]?.frame('session.open');
    hosts[1]?.send({ type: 'tool.query', id: 'q-1', capability: 'tool.exec', payload: {} });
    await credited;
    expect(paired).toEqual([
      {
        address: 'ws://127.0.0.1:9/toolwire',
        credential: welcome.credential,
        hostRun: 'run-1',
        hostId: 'host-1',
      },
    ]);
    expect((await hosts[1]?.frame('session.open'))?.payload).toMatchObject({
      proof: welcome.pageProof,
    });
    closed = next(session, 'close');
    hosts[1]?.transport.close({ code: 1001 });
    await closed;
    await vi.advanceTimersByTimeAsync(500);
    const url = hosts[2]?.url;
    expect(url?.searchParams.get('credential-id')).toBe(idOf(welcome.credential));
    expect(url?.searchParams.has('pair-id')).toBe(false);
    expect(url?.toString()).not.toContain(welcome.credential);
  });
});
