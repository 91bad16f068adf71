// @vitest-environment happy-dom

// The page's side of the handshake (docs/wire.md "The handshake") over a WebSocket stand-in:
// nothing served, no session.open and no catalog push before a proven welcome; a wrong proof
// closes 4010, keeps the pairing, retries, and warns once per address; `hostProof: false` on the
// token path serves at once; and the HMAC fallback a page without crypto.subtle loads. Each
// hostile case follows the honest one in the same test.
import type { Tools } from '@toolwire/polyfill';
import { createNonce, SESSION_CLOSE, sessionWelcome } from '@toolwire/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { until } from '../../../test-support/wait.js';
import type { Session } from '../src/connect.js';
import { connect } from '../src/connect.js';
import { pageHmac } from '../src/hmac.js';
import { hmacSha256 } from '../src/hmac-fallback.js';
import { FakeSocket, sockets } from './fake-socket.js';
import { idOf, nodeHmac } from './handshake.js';

const sessions: Session[] = [];

afterEach(() => {
  for (const session of sessions.splice(0)) session.close();
  sockets.length = 0;
  vi.restoreAllMocks();
});

/** A page's tools as the polyfill would list them; runs are counted. */
function fakeTools() {
  const ran: string[] = [];
  const tools = new EventTarget() as EventTarget & Record<string, unknown>;
  const handles = [
    { name: 'a.read', title: 'a.read', description: 'Reads.', origin: location.origin },
  ];
  tools.getTools = async () => handles;
  tools.sourceOf = () => ({
    kind: 'registry',
    entry: { policy: 'read', keywords: [], prerequisites: [] },
  });
  tools.callTool = async (handle: { name: string }) => {
    ran.push(handle.name);
    return { ran: handle.name };
  };
  return {
    tools: tools as unknown as Tools,
    ran,
    changed: () => tools.dispatchEvent(new Event('toolchange')),
  };
}

function start(url: string, options: Partial<Parameters<typeof connect>[0]> = {}) {
  const page = fakeTools();
  const session = connect({
    url,
    tools: page.tools,
    builtins: false,
    reconnect: { initialDelayMs: 1, maxDelayMs: 4 },
    catalogChangedDelayMs: 0,
    WebSocket: FakeSocket as unknown as typeof WebSocket,
    ...options,
  });
  sessions.push(session);
  return { session, ...page };
}

async function nextSocket(count: number): Promise<FakeSocket> {
  await until(() => sockets.length >= count);
  return sockets[count - 1] as FakeSocket;
}

const call = (id: string) => ({
  type: 'tool.call',
  id,
  capability: 'tool.exec',
  payload: { toolId: 'a.read' },
});

/** A welcome from whoever answers: no proof, or a proof that is not the host's. */
const forged = (proof?: { nonce: string; mac: string }) =>
  sessionWelcome({
    sessionId: 'squat',
    hostRun: 'squat',
    maxToolPolicy: 'critical',
    heartbeatIntervalMs: 0,
    ...(proof ? { proof } : {}),
  });

const answered = (socket: FakeSocket) =>
  socket.sent.map((frame) => JSON.parse(frame)).filter((m) => typeof m.replyTo === 'string');

describe('the page serves only a host that proved itself', () => {
  it('a wrong proof closes 4010: nothing served, no session.open, no push; the pairing is kept', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { session, ran, changed } = start('ws://127.0.0.1:9/toolwire?pair=CODE-1');
    const states: string[] = [];
    session.addEventListener('close', (e) => states.push(String((e as CustomEvent).detail.code)));

    // Honest first: the proven welcome, then a call is served.
    const honest = await nextSocket(1);
    honest.open();
    expect(honest.frames('session.open')).toEqual([]);
    honest.welcomeProven('CODE-1');
    await until(() => honest.frames('session.open').length === 1);
    honest.receive(call('honest-1'));
    await until(() => answered(honest).length === 1);
    expect(ran).toEqual(['a.read']);
    // The drop of a proven socket: retried with the derived credential's id.
    honest.hostCloses(1006);

    // A squatter: a call before any welcome, a forged welcome, a call after it, a change.
    const squat = await nextSocket(2);
    expect(squat.url).toContain('credential-id=');
    squat.open();
    squat.receive(call('early'));
    changed();
    squat.receive(forged());
    squat.receive(call('late'));
    await until(() => squat.closedWith !== undefined);
    expect(squat.closedWith?.code).toBe(SESSION_CLOSE.hostUnproven);
    expect(squat.sent).toEqual([]);
    expect(ran).toEqual(['a.read']);
    expect(states).toContain('4010');
    // Not refused: it tries again (the real host may come back), and a wrong MAC fails the same.
    const again = await nextSocket(3);
    again.open();
    again.receive(forged({ nonce: createNonce(), mac: 'A'.repeat(43) }));
    await until(() => again.closedWith !== undefined);
    expect(again.closedWith?.code).toBe(4010);
    expect(again.sent).toEqual([]);
    expect(session.status).not.toBe('closed');
    // One console line for the address, not one per retry.
    const lines = warn.mock.calls.map((args) => String(args[0]));
    expect(lines.filter((line) => line.includes('not serving it'))).toEqual([
      "toolwire: ws://127.0.0.1:9/toolwire is not this tab's host (no proof); not serving it.",
    ]);
    // The real host back: the same credential resumes, and serves.
    const back = await nextSocket(4);
    back.open();
    const credential = new URL(back.url).searchParams.get('credential-id');
    expect(credential).toBe(new URL(squat.url).searchParams.get('credential-id'));
  });

  it('the token path proves by default; hostProof: false serves at once and sends no nonce', async () => {
    // Honest first: a proving page served after the host's proof.
    const proving = start('ws://127.0.0.1:9/toolwire?token=T');
    const first = await nextSocket(1);
    expect(new URL(first.url).searchParams.get('nonce')).toMatch(/^[\w-]{22}$/);
    first.open();
    first.receive(call('early'));
    first.welcomeProven('T');
    await until(() => first.frames('session.open').length === 1);
    first.receive(call('after'));
    await until(() => answered(first).length === 1);
    expect(answered(first)[0].replyTo).toBe('after');
    expect(proving.ran).toEqual(['a.read']);
    proving.session.close();
    // The opt-out, for a host of the protocol that sends no proof.
    const plain = start('ws://127.0.0.1:9/toolwire?token=T', { hostProof: false });
    const socket = await nextSocket(2);
    expect(new URL(socket.url).searchParams.has('nonce')).toBe(false);
    socket.open();
    await until(() => socket.frames('session.open').length === 1);
    socket.receive(call('at-once'));
    await until(() => answered(socket).length === 1);
    expect(plain.ran).toEqual(['a.read']);
    // It does not reach a pairing code: that socket still asks for the proof.
    const paired = start('ws://127.0.0.1:9/toolwire?pair=CODE-2', { hostProof: false });
    const pairing = await nextSocket(3);
    expect(pairing.url).toContain('nonce=');
    pairing.open();
    pairing.receive(forged());
    await until(() => pairing.closedWith !== undefined);
    expect(pairing.closedWith?.code).toBe(4010);
    expect(paired.ran).toEqual([]);
  });
});

describe('HMAC without crypto.subtle', () => {
  it('the fallback gives the same MACs as WebCrypto and node:crypto', async () => {
    const key = 'clé ✓';
    const message = 'toolwire id';
    expect(hmacSha256(key, message)).toEqual(nodeHmac(key, message));
    const web = await pageHmac();
    expect(await web(key, message)).toEqual(nodeHmac(key, message));
  });

  it('a page that is not a secure context (no crypto.subtle) pairs through the fallback', async () => {
    const subtle = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(crypto), 'subtle');
    Object.defineProperty(crypto, 'subtle', { value: undefined, configurable: true });
    try {
      expect(crypto.subtle).toBeUndefined();
      const { session } = start('ws://127.0.0.1:9/toolwire?pair=CODE-3');
      const paired: string[] = [];
      session.addEventListener('paired', (e) => paired.push((e as CustomEvent).detail.credential));
      const socket = await nextSocket(1);
      // The id on the wire came from the fallback.
      expect(new URL(socket.url).searchParams.get('pair-id')).toBe(idOf('CODE-3'));
      socket.open();
      const welcome = socket.welcomeProven('CODE-3');
      await until(() => socket.frames('session.open').length === 1);
      expect(socket.frames('session.open')[0].payload.proof).toBe(welcome.pageProof);
      socket.receive(call('c-1'));
      await until(() => paired.length === 1);
      expect(paired).toEqual([welcome.credential]);
      // A forged welcome is refused the same way there.
      socket.hostCloses(1006);
      const squat = await nextSocket(2);
      squat.open();
      squat.receive(forged({ nonce: createNonce(), mac: 'A'.repeat(43) }));
      await until(() => squat.closedWith !== undefined);
      expect(squat.closedWith?.code).toBe(4010);
      expect(squat.sent).toEqual([]);
    } finally {
      delete (crypto as { subtle?: unknown }).subtle;
      if (subtle && !crypto.subtle) Object.defineProperty(crypto, 'subtle', subtle);
    }
    expect(crypto.subtle).toBeDefined();
  });
});
