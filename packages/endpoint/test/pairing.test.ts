// @vitest-environment happy-dom

// The page's side of pairing (issue 13), without a browser: connect() over a WebSocket stand-in
// (code -> credential, refusals stop it, the heartbeat watchdog, the grant, the inflate clamp)
// and pairFromLink with its prompt, storage, location and history injected. Each attack follows
// the honest case that proves the same path works.
import type { Tools } from '@toolwire/polyfill';
import { encodePayload, pairingPhrase, SESSION_CLOSE, sessionPing } from '@toolwire/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { until } from '../../../test-support/wait.js';
import type { PairedDetail, Session } from '../src/connect.js';
import { connect } from '../src/connect.js';
import type { LinkPairingOptions } from '../src/pair-from-link.js';
import {
  linkMayReach,
  PAIRING_STORAGE_KEY,
  pairFromLink,
  parseHosts,
} from '../src/pair-from-link.js';
import type { PairingRequest } from '../src/pairing-prompt.js';
import { askToPair, describeGuard } from '../src/pairing-prompt.js';
import { FakeSocket, sockets } from './fake-socket.js';
import { idOf } from './handshake.js';
import { MemoryStorage } from './memory-storage.js';

/** The first request a host sends once the page proved itself. */
const QUERY = {
  type: 'tool.query',
  id: 'q-1',
  capability: 'tool.exec',
  payload: { detail: 'index' },
};

/** The address a socket dialed, its nonce left out (every socket has a fresh one). */
function dialed(url: string): string {
  const parsed = new URL(url);
  expect(parsed.searchParams.get('nonce')).toMatch(/^[\w-]{22}$/);
  parsed.searchParams.delete('nonce');
  return parsed.toString();
}

const sessions: Session[] = [];

afterEach(() => {
  for (const session of sessions.splice(0)) session.close();
  sockets.length = 0;
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** A page's tools as the polyfill would list them: id -> policy; runs are counted. */
function fakeTools(list: Record<string, 'read' | 'write' | 'critical'> = {}) {
  const ran: string[] = [];
  const tools = new EventTarget() as EventTarget & Record<string, unknown>;
  const handles = Object.keys(list).map((name) => ({
    name,
    title: name,
    description: `The ${name} tool.`,
    origin: location.origin,
  }));
  tools.getTools = async () => handles;
  // Each handle is the page's own registry tool, with the policy the test gives it.
  tools.sourceOf = (handle: { name: string }) => ({
    kind: 'registry',
    entry: { policy: list[handle.name], keywords: [], prerequisites: [] },
  });
  tools.callTool = async (handle: { name: string }) => {
    ran.push(handle.name);
    return { ran: handle.name };
  };
  return { tools: tools as unknown as Tools, ran };
}

const FAST = { initialDelayMs: 1, maxDelayMs: 4 };

/** Retries and heartbeats are time: these tests run them on a fake clock (the watchdog reads Date). */
const fakeClock = () =>
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });

/** Far past every backoff period (each at most FAST.maxDelayMs) and every heartbeat here. */
const A_MINUTE = 60_000;

function start(options: Partial<Parameters<typeof connect>[0]> = {}) {
  const session = connect({
    url: 'ws://127.0.0.1:9/toolwire?pair=CODE-1',
    tools: fakeTools().tools,
    builtins: false,
    reconnect: FAST,
    WebSocket: FakeSocket as unknown as typeof WebSocket,
    ...options,
  });
  sessions.push(session);
  return session;
}

async function nextSocket(count: number): Promise<FakeSocket> {
  await until(() => sockets.length >= count);
  return sockets[count - 1] as FakeSocket;
}

const warnings = () => {
  const spy = vi.spyOn(console, 'warn').mockImplementation(() => {});
  return () => spy.mock.calls.map((args) => String(args[0]));
};

describe('connect(): pairing code, then credential', () => {
  it('names ?pair= by its id, derives the credential from a proven welcome, and reconnects with its id', async () => {
    const session = start();
    const paired: unknown[] = [];
    session.addEventListener('paired', (event) => paired.push((event as CustomEvent).detail));
    const first = await nextSocket(1);
    expect(dialed(first.url)).toBe(`ws://127.0.0.1:9/toolwire?pair-id=${idOf('CODE-1')}`);
    expect(session.address).toBe('ws://127.0.0.1:9/toolwire');
    first.open();
    const welcome = first.welcomeProven('CODE-1', { maxToolPolicy: 'write', hostId: 'h-1' });
    // The host keeps the credential once session.open checked out, then sends its first request:
    // only then is the tab paired (it keeps the credential).
    await until(() => first.frames('session.open').length === 1);
    expect(paired).toEqual([]);
    first.receive(QUERY);
    await until(() => paired.length === 1);
    expect(paired).toEqual([
      {
        address: 'ws://127.0.0.1:9/toolwire',
        credential: welcome.credential,
        hostRun: 'run-1',
        hostId: 'h-1',
      },
    ]);
    expect(session.grant).toBe('write');
    await until(() => first.frames('session.open').length === 1);
    expect(first.frames('session.open')[0].payload.proof).toBe(welcome.pageProof);
    // A drop: the page reconnects, now with the credential's id.
    first.hostCloses(1006);
    const second = await nextSocket(2);
    expect(dialed(second.url)).toBe(
      `ws://127.0.0.1:9/toolwire?credential-id=${idOf(welcome.credential)}`,
    );
    expect(session.grant).toBeUndefined();
    // A resumed socket proves with the credential; nothing is paired again.
    second.open();
    second.welcomeProven(welcome.credential);
    await until(() => second.frames('session.open').length === 1);
    expect(session.grant).toBe('read');
    expect(paired).toHaveLength(1);
  });

  it('a token socket proves with the token, and derives nothing from it', async () => {
    const session = start({ url: 'ws://127.0.0.1:9/toolwire?token=TOKEN' });
    const paired: unknown[] = [];
    session.addEventListener('paired', (event) => paired.push(event));
    const first = await nextSocket(1);
    expect(dialed(first.url)).toBe('ws://127.0.0.1:9/toolwire?token=TOKEN');
    first.open();
    const welcome = first.welcomeProven('TOKEN');
    await until(() => first.frames('session.open').length === 1);
    expect(first.frames('session.open')[0].payload.proof).toBe(welcome.pageProof);
    first.hostCloses(1006);
    const second = await nextSocket(2);
    expect(dialed(second.url)).toBe('ws://127.0.0.1:9/toolwire?token=TOKEN');
    expect(paired).toEqual([]);
  });

  for (const [code, word] of [
    [SESSION_CLOSE.pairingRefused, 'refused'],
    [SESSION_CLOSE.revoked, 'revoked'],
  ] as const) {
    it(`${code} stops retrying, with one console line saying why`, async () => {
      fakeClock();
      const lines = warnings();
      const session = start();
      const refused: unknown[] = [];
      session.addEventListener('refused', (event) => refused.push((event as CustomEvent).detail));
      const first = await nextSocket(1);
      first.open();
      // The honest path first: an ordinary drop is retried.
      first.hostCloses(1006);
      await vi.advanceTimersByTimeAsync(FAST.maxDelayMs);
      expect(sockets).toHaveLength(2);
      const second = sockets[1] as FakeSocket;
      second.open();
      second.hostCloses(code, 'this pairing code was already used; ask for a new link');
      await vi.advanceTimersByTimeAsync(A_MINUTE);
      expect(sockets).toHaveLength(2);
      expect(session.status).toBe('closed');
      expect(refused).toEqual([
        {
          code,
          reason: 'this pairing code was already used; ask for a new link',
          revoked: code === SESSION_CLOSE.revoked,
        },
      ]);
      expect(lines()).toEqual([
        `toolwire: the host at ws://127.0.0.1:9/toolwire ${word} this tab's pairing: this pairing code was already used; ask for a new link.`,
      ]);
      // Not even the page coming back online reconnects it.
      window.dispatchEvent(new Event('online'));
      await vi.advanceTimersByTimeAsync(A_MINUTE);
      expect(sockets).toHaveLength(2);
    });
  }
});

describe('connect(): heartbeats', () => {
  it('answers pings; drops a host silent for three intervals and reconnects', async () => {
    fakeClock();
    const session = start();
    const closes: { code: number; willRetry: boolean }[] = [];
    session.addEventListener('close', (event) => closes.push((event as CustomEvent).detail));
    const first = await nextSocket(1);
    first.open();
    first.welcomeProven('CODE-1', { heartbeatIntervalMs: 20 });
    await until(() => first.frames('session.open').length === 1);
    // The honest host: it pings every 10 ms, and the page stays.
    const pings: string[] = [];
    for (let i = 0; i < 10; i++) {
      const ping = sessionPing('s1');
      pings.push(ping.id);
      first.receive(ping);
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(first.closedWith).toBeUndefined();
    const pongs = first.frames('session.pong');
    expect(pongs.map((pong) => pong.replyTo)).toEqual(pings);
    // Now silence: 50 ms of it, less than three intervals, and the page stays.
    await vi.advanceTimersByTimeAsync(40);
    expect(first.closedWith).toBeUndefined();
    // Within a few intervals the page closes with 4008 and opens a new socket.
    await vi.advanceTimersByTimeAsync(160);
    expect(sockets).toHaveLength(2);
    const second = sockets[1] as FakeSocket;
    expect(first.closedWith).toEqual({
      code: SESSION_CLOSE.silent,
      reason: 'the host stopped answering',
    });
    expect(closes).toEqual([
      { code: SESSION_CLOSE.silent, reason: 'the host stopped answering', willRetry: true },
    ]);
    // No welcome came on the second socket yet: the code was spent, the credential is next.
    expect(dialed(second.url)).toContain('credential-id=');
  });

  it('a welcome without a heartbeat starts no watchdog', async () => {
    fakeClock();
    start();
    const first = await nextSocket(1);
    first.open();
    first.welcomeProven('CODE-1', { heartbeatIntervalMs: 0 });
    await until(() => first.frames('session.open').length === 1);
    await vi.advanceTimersByTimeAsync(A_MINUTE);
    expect(first.closedWith).toBeUndefined();
    expect(sockets).toHaveLength(1);
  });
});

describe("connect(): the host's grant and the frame limit", () => {
  const call = (toolId: string, id = `call-${toolId}`) => ({
    type: 'tool.call',
    id,
    capability: 'tool.exec',
    payload: { toolId },
  });

  it('runs nothing above the welcome grant, whatever the page guard allows', async () => {
    const { tools, ran } = fakeTools({
      'a.read': 'read',
      'a.write': 'write',
      'a.crit': 'critical',
    });
    const session = start({ tools, guard: 'full-access' });
    const paired: string[] = [];
    session.addEventListener('paired', (event) =>
      paired.push((event as CustomEvent<PairedDetail>).detail.credential),
    );
    const socket = await nextSocket(1);
    socket.open();
    socket.welcomeProven('CODE-1', { maxToolPolicy: 'read' });
    await until(() => socket.frames('session.open').length === 1);
    socket.receive(call('a.read'));
    socket.receive(call('a.write'));
    socket.receive(call('a.crit'));
    await until(
      () => socket.frames('tool.result').length + socket.frames('tool.error').length === 3,
    );
    expect(socket.frames('tool.result').map((r) => r.replyTo)).toEqual(['call-a.read']);
    expect(
      socket.frames('tool.error').map((e) => [e.replyTo, e.payload.code, e.payload.details]),
    ).toEqual([
      [
        'call-a.write',
        'tool_execution_denied',
        { deniedBy: 'host-grant', policy: 'write', maxToolPolicy: 'read' },
      ],
      [
        'call-a.crit',
        'tool_execution_denied',
        { deniedBy: 'host-grant', policy: 'critical', maxToolPolicy: 'read' },
      ],
    ]);
    expect(ran).toEqual(['a.read']);
    // A critical grant lets the page's full-access guard decide (a new socket, a new welcome).
    socket.hostCloses(1006);
    const next = await nextSocket(2);
    next.open();
    expect(next.url).toContain('credential-id=');
    next.welcomeProven(paired[0] as string, { maxToolPolicy: 'critical' });
    await until(() => session.grant === 'critical');
    next.receive(call('a.crit', 'again'));
    await until(() => ran.length === 2);
    expect(ran).toEqual(['a.read', 'a.crit']);
  });

  it('inflates nothing beyond maxMessageBytes, even when maxInflatedBytes says more', async () => {
    const session = start({
      tools: fakeTools({ 'a.read': 'read' }).tools,
      limits: { maxMessageBytes: 4000, maxInflatedBytes: 10_000_000 },
    });
    const wrapped = (length: number) =>
      encodePayload(
        { toolId: 'a.read', arguments: { text: 'a'.repeat(length) } },
        { thresholdBytes: 1 },
      ).payload;
    const message = (length: number) => ({
      type: 'tool.call',
      id: `big-${length}`,
      capability: 'tool.exec',
      payload: wrapped(length),
    });
    await nextSocket(1); // the page's tools are read
    // Under the frame limit once inflated: decoded and run.
    const small = await session.handle(message(1000));
    expect(small).toMatchObject({ type: 'tool.result' });
    // A small frame that inflates past it: refused with the clamped limit.
    const frame = JSON.stringify(message(20_000));
    expect(frame.length).toBeLessThan(4000);
    const big = await session.handle(frame);
    expect(big).toMatchObject({
      type: 'tool.error',
      payload: { code: 'tool_payload_too_large', details: { maxInflatedBytes: 4000 } },
    });
  });
});

// ---- pairFromLink --------------------------------------------------------------------------

/** A tab at `hash` with its storage, history and prompt; `run` pairs it from its link. */
function tab(hash: string, options: Partial<LinkPairingOptions> & { answer?: boolean } = {}) {
  const { answer = true, ...rest } = options;
  const events: string[] = [];
  const loc = {
    hash,
    pathname: '/app',
    search: '?q=1',
    get href() {
      return `https://page.example${this.pathname}${this.search}${this.hash}`;
    },
  } as Location;
  const history = {
    state: { mine: 1 },
    replaceState: vi.fn((state: unknown, _title: string, url: string) => {
      events.push(`replaceState ${url}`);
      expect(state).toEqual({ mine: 1 });
      loc.hash = url.includes('#') ? url.slice(url.indexOf('#')) : '';
    }),
  } as unknown as History;
  const storage = new MemoryStorage() as unknown as Storage;
  const requests: PairingRequest[] = [];
  const prompt = vi.fn(async (request: PairingRequest) => {
    events.push(`prompt ${request.address}`);
    requests.push(request);
    return answer;
  });
  const run = async () => {
    const session = await pairFromLink({
      location: loc,
      history,
      storage,
      prompt,
      tools: fakeTools().tools,
      builtins: false,
      reconnect: false,
      WebSocket: FakeSocket as unknown as typeof WebSocket,
      ...rest,
    });
    if (session) sessions.push(session);
    return session;
  };
  return { loc, history, storage, prompt, requests, events, run };
}

const link = (ws: string, extra = '') => `#${extra}toolwire=${encodeURIComponent(ws)}`;

describe('pairFromLink: where a link may connect', () => {
  it('loopback names pair after the prompt; the socket carries the code', async () => {
    for (const name of ['localhost', '127.0.0.1', '[::1]', 'LOCALHOST']) {
      sockets.length = 0;
      const t = tab(link(`ws://${name}:4545/toolwire?pair=CODE`));
      const session = await t.run();
      expect(session, name).toBeDefined();
      const address = `ws://${name.toLowerCase()}:4545/toolwire`;
      expect(t.requests).toEqual([{ address, guard: 'read-only', phrase: pairingPhrase('CODE') }]);
      const socket = await nextSocket(1);
      expect(dialed(socket.url)).toBe(`${address}?pair-id=${idOf('CODE')}`);
    }
  });

  it('refuses other hosts, look-alikes included, with one console line and no prompt', async () => {
    // The honest path first: the same code on loopback reaches a socket.
    const honest = tab(link('ws://127.0.0.1:4545/x?pair=abc'));
    expect(await honest.run()).toBeDefined();
    await nextSocket(1);
    for (const address of [
      'ws://evil.example/x?pair=abc',
      'ws://127.0.0.1@evil.example/x?pair=abc',
      'ws://localhost.evil.example/x?pair=abc',
      'ws://127.0.0.1.nip.io/x?pair=abc',
      'wss://evil.example/x?pair=abc',
      'ws://0.0.0.0:4545/x?pair=abc',
      'ws://localhost./x?pair=abc',
    ]) {
      const lines = warnings();
      const t = tab(link(address));
      expect(await t.run(), address).toBeUndefined();
      expect(t.prompt).not.toHaveBeenCalled();
      expect(lines(), address).toEqual([
        expect.stringMatching(/^toolwire: not connecting to .*data-toolwire-hosts/),
      ]);
      vi.restoreAllMocks();
    }
    expect(sockets).toHaveLength(1);
  });

  it('a host the page allows (data-toolwire-hosts) pairs; by name, or by name and port', async () => {
    expect(parseHosts(' Evil.example, other.test:8080\tthird ')).toEqual([
      'evil.example',
      'other.test:8080',
      'third',
    ]);
    const t = tab(link('ws://evil.example/x?pair=abc'), { hosts: ['evil.example'] });
    expect(await t.run()).toBeDefined();
    expect(dialed((await nextSocket(1)).url)).toBe(`ws://evil.example/x?pair-id=${idOf('abc')}`);
    const at = (url: string) => new URL(url);
    expect(linkMayReach(at('ws://other.test:8080/'), ['other.test:8080'])).toBe(true);
    expect(linkMayReach(at('ws://other.test:9090/'), ['other.test:8080'])).toBe(false);
    expect(linkMayReach(at('ws://other.test/'), ['other.test:80'])).toBe(true);
    expect(linkMayReach(at('wss://other.test/'), ['other.test:443'])).toBe(true);
    expect(linkMayReach(at('ws://sub.evil.example/'), ['evil.example'])).toBe(false);
  });

  it('refuses a token link, a credential link, a link with no code, and non-ws schemes', async () => {
    const honest = tab(link('ws://127.0.0.1:4545/x?pair=abc'));
    expect(await honest.run()).toBeDefined();
    await nextSocket(1);
    for (const [address, why] of [
      ['ws://127.0.0.1:4545/x?token=LONG-LIVED', 'long-lived token'],
      ['ws://127.0.0.1:4545/x?pair=abc&token=LONG-LIVED', 'long-lived token'],
      ['ws://127.0.0.1:4545/x?credential=STOLEN', 'long-lived token'],
      ['ws://127.0.0.1:4545/x', 'no pairing code'],
      ['http://127.0.0.1:4545/x?pair=abc', 'not a WebSocket address (http:)'],
      ['javascript:alert(1)//?pair=abc', 'not a WebSocket address'],
      ['not a url', 'not a WebSocket address'],
    ]) {
      const lines = warnings();
      const t = tab(link(address as string));
      expect(await t.run(), address).toBeUndefined();
      expect(t.prompt).not.toHaveBeenCalled();
      expect(lines(), address).toHaveLength(1);
      expect(lines()[0], address).toContain(why);
      // Refused or not, the link left the address bar.
      expect(t.loc.hash, address).toBe('');
      vi.restoreAllMocks();
    }
    expect(sockets).toHaveLength(1);
  });
});

describe('pairFromLink: the fragment, the guard and the prompt', () => {
  it('removes the link from the address bar before it asks, keeping the rest', async () => {
    const t = tab(link('ws://127.0.0.1:4545/x?pair=abc', 'tab=2&'), { answer: false });
    await t.run();
    expect(t.events).toEqual([
      'replaceState https://page.example/app?q=1#tab=2',
      'prompt ws://127.0.0.1:4545/x',
    ]);
  });

  it("the guard is the page's: a toolwire-guard in the link neither shows nor applies", async () => {
    const t = tab(`${link('ws://127.0.0.1:4545/x?pair=abc')}&toolwire-guard=full-access`, {
      guard: 'read-only',
    });
    const { tools, ran } = fakeTools({ 'a.write': 'write' });
    const session = await tab(t.loc.hash, { tools }).run();
    expect(session).toBeDefined();
    const socket = await nextSocket(1);
    socket.open();
    socket.welcomeProven('abc', { maxToolPolicy: 'critical' });
    await until(() => socket.frames('session.open').length === 1);
    socket.receive({
      type: 'tool.call',
      id: 'w',
      capability: 'tool.exec',
      payload: { toolId: 'a.write' },
    });
    await until(() => socket.frames('tool.error').length === 1);
    expect(socket.frames('tool.error')[0].payload).toMatchObject({
      code: 'tool_execution_denied',
      details: { deniedBy: 'page-guard', policy: 'write', maxPolicy: 'read' },
    });
    expect(ran).toEqual([]);
    // The prompt names the page's guard.
    await t.run();
    expect(t.requests.map((r) => r.guard)).toEqual(['read-only']);
    expect(t.loc.hash).toBe('');
    const open = socket.frames('session.open')[0];
    expect(open.payload.guard).toMatchObject({ preset: 'read-only', maxPolicy: 'read' });
  });

  it('refuses a link inside a frame (its embedder could cover the prompt), after stripping it', async () => {
    // The honest path: the same link in a top-level document asks.
    const top = tab(link('ws://127.0.0.1:4545/x?pair=abc'));
    expect(await top.run()).toBeDefined();
    const lines = warnings();
    const framed = vi.spyOn(globalThis, 'top', 'get').mockReturnValue({} as Window);
    const t = tab(link('ws://127.0.0.1:4545/x?pair=abc'));
    expect(await t.run()).toBeUndefined();
    framed.mockRestore();
    expect(t.prompt).not.toHaveBeenCalled();
    expect(t.loc.hash).toBe('');
    expect(lines()).toEqual([
      'toolwire: not pairing from a link inside a frame (another page could cover the prompt); open the link in its own tab.',
    ]);
    expect(await nextSocket(1)).toBeDefined();
    expect(sockets).toHaveLength(1);
  });

  it('"Not now" connects nothing and says so once', async () => {
    const lines = warnings();
    const t = tab(link('ws://127.0.0.1:4545/x?pair=abc'), { answer: false });
    expect(await t.run()).toBeUndefined();
    expect(t.prompt).toHaveBeenCalledTimes(1);
    expect(sockets).toHaveLength(0);
    expect(lines()).toEqual(['toolwire: pairing with 127.0.0.1:4545 dismissed.']);
    expect(t.storage.getItem(PAIRING_STORAGE_KEY)).toBeNull();
  });

  it('describes each guard in words', () => {
    expect(describeGuard('read-only')).toMatch(/change nothing/);
    expect(describeGuard('full-access')).toMatch(/critical/);
    expect(describeGuard('up to write tools')).toBe('up to write tools');
  });
});

describe('pairFromLink: the tab keeps its credential', () => {
  it('stores the credential once paired; a reload reconnects with it and asks nothing', async () => {
    const t = tab(link('ws://127.0.0.1:4545/x?pair=abc'));
    await t.run();
    const socket = await nextSocket(1);
    socket.open();
    const welcome = socket.welcomeProven('abc', { hostId: 'h-1' });
    await until(() => socket.frames('session.open').length === 1);
    socket.receive(QUERY);
    await until(() => t.storage.getItem(PAIRING_STORAGE_KEY));
    expect(JSON.parse(t.storage.getItem(PAIRING_STORAGE_KEY) as string)).toEqual({
      address: 'ws://127.0.0.1:4545/x',
      credential: welcome.credential,
      hostRun: 'run-1',
      hostId: 'h-1',
    });
    // The reload: no link in the address bar, the same storage.
    const reload = tab('', { storage: t.storage });
    expect(await reload.run()).toBeDefined();
    expect(reload.prompt).not.toHaveBeenCalled();
    expect(reload.history.replaceState).not.toHaveBeenCalled();
    const again = await nextSocket(2);
    expect(dialed(again.url)).toBe(
      `ws://127.0.0.1:4545/x?credential-id=${idOf(welcome.credential)}`,
    );
    expect(again.url).not.toContain(welcome.credential);
    // A new tab (its own, empty storage) connects to nothing.
    const fresh = tab('');
    expect(await fresh.run()).toBeUndefined();
    expect(sockets).toHaveLength(2);
  });

  it('forgets a credential the host refuses or revokes', async () => {
    for (const code of [SESSION_CLOSE.pairingRefused, SESSION_CLOSE.revoked]) {
      sockets.length = 0;
      const lines = warnings();
      const storage = new MemoryStorage() as unknown as Storage;
      storage.setItem(
        PAIRING_STORAGE_KEY,
        JSON.stringify({ address: 'ws://127.0.0.1:4545/x', credential: 'OLD', hostRun: 'r' }),
      );
      const t = tab('', { storage });
      await t.run();
      const socket = await nextSocket(1);
      expect(socket.url).toContain(`credential-id=${idOf('OLD')}`);
      socket.open();
      socket.hostCloses(code, 'not known');
      expect(storage.getItem(PAIRING_STORAGE_KEY)).toBeNull();
      expect(lines()).toHaveLength(1);
      expect(await tab('', { storage }).run()).toBeUndefined();
      expect(sockets).toHaveLength(1);
      vi.restoreAllMocks();
    }
  });

  it('does not reconnect a stored pairing to a host the page no longer allows', async () => {
    const lines = warnings();
    const storage = new MemoryStorage() as unknown as Storage;
    const stored = { address: 'ws://evil.example/x', credential: 'C', hostRun: 'r' };
    storage.setItem(PAIRING_STORAGE_KEY, JSON.stringify(stored));
    // The honest path: while the page allows it, it reconnects.
    expect(await tab('', { storage, hosts: ['evil.example'] }).run()).toBeDefined();
    expect(dialed((await nextSocket(1)).url)).toBe(
      `ws://evil.example/x?credential-id=${idOf('C')}`,
    );
    expect(await tab('', { storage }).run()).toBeUndefined();
    expect(sockets).toHaveLength(1);
    expect(lines()).toEqual([
      'toolwire: not reconnecting to evil.example: the page no longer allows that host.',
    ]);
    expect(storage.getItem(PAIRING_STORAGE_KEY)).toBeNull();
    // Junk in storage is as good as nothing.
    storage.setItem(PAIRING_STORAGE_KEY, '{"address":1');
    expect(await tab('', { storage }).run()).toBeUndefined();
  });
});

describe('the prompt (askToPair)', () => {
  it('is a labelled, described dialog; Connect says yes, Escape and Not now say no', async () => {
    const request = { address: 'ws://127.0.0.1:4545/x<b>bold</b>', guard: 'read-write' };
    const outcomes: boolean[] = [];
    for (const answer of ['connect', 'not now', 'escape']) {
      const before = document.createElement('button');
      document.body.append(before);
      before.focus();
      if (answer === 'connect') vi.useFakeTimers();
      const shown = askToPair(document, request);
      const host = document.querySelector('toolwire-pairing') as HTMLElement;
      const root = host.shadowRoot as ShadowRoot;
      const dialog = root.querySelector('[role=dialog]') as HTMLElement;
      expect(
        root.getElementById(dialog.getAttribute('aria-labelledby') as string)?.textContent,
      ).toBe('Connect this tab to toolwire?');
      const text = root.getElementById(dialog.getAttribute('aria-describedby') as string);
      expect(text?.textContent).toContain(request.address);
      expect(text?.textContent).toContain(describeGuard('read-write'));
      // The address is text, never markup.
      expect(root.querySelector('b')).toBeNull();
      const [notNow, connectButton] = [...root.querySelectorAll('button')];
      // Connect answers once the prompt has shown for half a second (pairing-handover.test.ts).
      if (answer === 'connect') {
        vi.advanceTimersByTime(500);
        vi.useRealTimers();
        connectButton?.click();
      } else if (answer === 'not now') notNow?.click();
      else dialog.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
      outcomes.push(await shown);
      expect(document.querySelector('toolwire-pairing')).toBeNull();
      expect(document.activeElement).toBe(before);
      before.remove();
    }
    expect(outcomes).toEqual([true, false, false]);
  });
});
