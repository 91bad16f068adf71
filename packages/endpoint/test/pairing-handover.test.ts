// @vitest-environment happy-dom

// A new link in a tab that holds a working pairing, and the prompt's guards, without a browser:
// pairWith over a WebSocket stand-in. The new code is traded in a session of its own; the old
// session serves until the host welcomes the new one, and a refused new code leaves the old
// pairing kept and its session open. The prompt shows the link's pairing phrase and ignores
// Connect for its first half second. Each refusal follows the honest case it mirrors.
import type { Tools } from '@toolwire/polyfill';
import { pairingPhrase, SESSION_CLOSE } from '@toolwire/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { until } from '../../../test-support/wait.js';
import type { Session } from '../src/connect.js';
import { connect } from '../src/connect.js';
import { PAIRING_STORAGE_KEY } from '../src/pair-from-link.js';
import type { LinkPairingOptions } from '../src/pairing-flow.js';
import { pairWith } from '../src/pairing-flow.js';
import type { PairingRequest } from '../src/pairing-prompt.js';
import { askToPair } from '../src/pairing-prompt.js';
import { FakeSocket, sockets } from './fake-socket.js';
import { idOf, provenWelcome } from './handshake.js';
import { MemoryStorage } from './memory-storage.js';

const sessions: Session[] = [];
afterEach(() => {
  for (const session of sessions.splice(0)) session.close();
  sockets.length = 0;
  vi.restoreAllMocks();
  vi.useRealTimers();
  document.querySelector('toolwire-pairing')?.remove();
});

function fakeTools() {
  const ran: string[] = [];
  const tools = new EventTarget() as EventTarget & Record<string, unknown>;
  tools.getTools = async () => [
    { name: 'notes.list', title: 'notes.list', description: 'Lists.', origin: location.origin },
  ];
  tools.sourceOf = () => ({
    kind: 'registry',
    entry: { policy: 'read', keywords: [], prerequisites: [] },
  });
  tools.callTool = async (handle: { name: string }) => {
    ran.push(handle.name);
    return { ran: handle.name };
  };
  return { tools: tools as unknown as Tools, ran };
}

const OLD = JSON.stringify({ address: 'ws://127.0.0.1:4545/x', credential: 'OLD', hostRun: 'r' });
const link = (ws: string) => `#toolwire=${encodeURIComponent(ws)}`;

async function nextSocket(count: number): Promise<FakeSocket> {
  await until(() => sockets.length >= count);
  return sockets[count - 1] as FakeSocket;
}

/** A tab whose storage keeps the OLD pairing, at `hash`. */
function tab(hash: string, options: Partial<LinkPairingOptions> & { answer?: boolean } = {}) {
  const { answer = true, ...rest } = options;
  const loc = {
    hash,
    get href() {
      return `https://page.example/app${this.hash}`;
    },
  } as Location;
  const history = {
    state: null,
    replaceState: (_state: unknown, _title: string, url: string) => {
      loc.hash = url.includes('#') ? url.slice(url.indexOf('#')) : '';
    },
  } as unknown as History;
  const storage = new MemoryStorage() as unknown as Storage;
  storage.setItem(PAIRING_STORAGE_KEY, OLD);
  const requests: PairingRequest[] = [];
  const { tools, ran } = fakeTools();
  const run = async (current?: Session) => {
    const session = await pairWith(
      {
        location: loc,
        history,
        storage,
        prompt: async (request) => {
          requests.push(request);
          return answer;
        },
        tools,
        builtins: false,
        reconnect: false,
        WebSocket: FakeSocket as unknown as typeof WebSocket,
        ...rest,
      },
      (options) => {
        const session = connect(options);
        sessions.push(session);
        return session;
      },
      undefined,
      current,
    );
    return session;
  };
  return { loc, storage, requests, ran, tools, run };
}

/** A call on `socket`, answered by the page: resolves the result frame. */
async function callOn(socket: FakeSocket, id: string): Promise<any> {
  // A host calls only once the page proved itself, in its session.open.
  await until(() => socket.frames('session.open').length > 0);
  socket.receive({
    type: 'tool.call',
    id,
    capability: 'tool.exec',
    payload: { toolId: 'notes.list' },
  });
  return until(() => socket.frames('tool.result').find((frame) => frame.replyTo === id));
}

describe('a new link beside a working pairing', () => {
  it('honest (a link with a load): the kept pairing is left alone until the new one is welcomed, then replaced', async () => {
    const t = tab(link('ws://127.0.0.1:4545/x?pair=NEWCODE'));
    const running = t.run();
    const fresh = await nextSocket(1);
    expect(fresh.url).toContain(`pair-id=${idOf('NEWCODE')}`);
    expect(fresh.url).not.toContain('NEWCODE'); // named by its id, never sent
    expect(t.requests[0]?.phrase).toBe(pairingPhrase('NEWCODE'));
    fresh.open();
    // Open but not welcomed: the kept pairing is still the kept one.
    expect(t.storage.getItem(PAIRING_STORAGE_KEY)).toBe(OLD);
    const proven = provenWelcome(fresh.url, 'NEWCODE');
    fresh.receive(proven.message);
    // The host's first request follows the page's proof: the pairing is kept then.
    expect((await callOn(fresh, 'c1')).payload).toBeDefined();
    const session = await running;
    expect(session?.status).toBe('open');
    expect(JSON.parse(t.storage.getItem(PAIRING_STORAGE_KEY) as string)).toMatchObject({
      credential: proven.credential,
    });
    expect(sockets).toHaveLength(1); // the kept pairing was never needed
  });

  for (const [why, reason] of [
    ['spent', 'this pairing code was already used; ask for a new link (toolwire pair)'],
    ['foreign', 'this pairing code is not for pages of https://page.example'],
  ]) {
    it(`hostile (${why} code, with a load): refused, the kept pairing stays and reconnects, and serves`, async () => {
      const lines = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const t = tab(link('ws://127.0.0.1:4545/x?pair=SPENT'));
      const running = t.run();
      const fresh = await nextSocket(1);
      expect(fresh.url).toContain(`pair-id=${idOf('SPENT')}`); // the new code was tried
      fresh.open();
      fresh.hostCloses(SESSION_CLOSE.pairingRefused, reason as string);
      const session = await running;
      // The tab goes on with its kept pairing.
      const old = await nextSocket(2);
      expect(old.url).toContain(`credential-id=${idOf('OLD')}`);
      expect(session?.address).toBe('ws://127.0.0.1:4545/x');
      old.open();
      old.receive(provenWelcome(old.url, 'OLD').message);
      await until(() => session?.status === 'open');
      expect(t.storage.getItem(PAIRING_STORAGE_KEY)).toBe(OLD);
      expect((await callOn(old, 'after')).payload).toBeDefined();
      expect(t.ran).toEqual(['notes.list']);
      expect(lines.mock.calls.map((args) => String(args[0]))).toContain(
        'toolwire: the new link did not pair; this tab keeps its pairing with ws://127.0.0.1:4545/x.',
      );
    });
  }

  it('the session the tab runs (a second link in the same document) is the one kept, and closed once the new one pairs', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    // First, a link refused beside the running session.
    const t = tab(link('ws://127.0.0.1:4545/x?pair=BAD'));
    const current = connect({
      url: 'ws://127.0.0.1:4545/x',
      credential: 'OLD',
      tools: t.tools,
      builtins: false,
      reconnect: false,
      WebSocket: FakeSocket as unknown as typeof WebSocket,
    });
    sessions.push(current);
    const running = await nextSocket(1);
    running.open();
    running.receive(provenWelcome(running.url, 'OLD').message);
    expect((await callOn(running, 'before')).payload).toBeDefined();
    const refusedRun = t.run(current);
    const bad = await nextSocket(2); // no resumed copy of the kept pairing: the tab has one
    expect(bad.url).toContain(`pair-id=${idOf('BAD')}`);
    bad.hostCloses(SESSION_CLOSE.pairingRefused, 'unknown pairing code');
    expect(await refusedRun).toBe(current);
    expect(current.status).toBe('open');
    expect(running.closedWith).toBeUndefined();
    expect((await callOn(running, 'after-refusal')).payload).toBeDefined();
    expect(t.storage.getItem(PAIRING_STORAGE_KEY)).toBe(OLD);
    // Then a good one: it replaces the running session.
    t.loc.hash = link('ws://127.0.0.1:4545/x?pair=GOOD');
    const goodRun = t.run(current);
    const good = await nextSocket(3);
    expect(sockets).toHaveLength(3);
    good.open();
    const proven = provenWelcome(good.url, 'GOOD');
    good.receive(proven.message);
    expect((await callOn(good, 'g1')).payload).toBeDefined();
    const next = await goodRun;
    expect(next).not.toBe(current);
    expect(current.status).toBe('closed');
    expect(running.closedWith?.code).toBe(1000);
    expect(t.storage.getItem(PAIRING_STORAGE_KEY)).toContain(proven.credential);
  });

  it('a dismissed prompt keeps the old session; a refused old credential is still forgotten', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const t = tab(link('ws://127.0.0.1:4545/x?pair=NEW'), { answer: false });
    const session = await t.run();
    const old = await nextSocket(1);
    expect(old.url).toContain(`credential-id=${idOf('OLD')}`);
    expect(sockets).toHaveLength(1);
    expect(session?.address).toBe('ws://127.0.0.1:4545/x');
    // The kept pairing's own refusal still forgets it: only its own session may.
    old.open();
    old.hostCloses(SESSION_CLOSE.revoked, 'revoked by the host');
    expect(t.storage.getItem(PAIRING_STORAGE_KEY)).toBeNull();
  });
});

describe('the prompt: the pairing phrase, and Connect armed after half a second', () => {
  const show = (phrase?: string) => {
    const shown = askToPair(document, {
      address: 'ws://127.0.0.1:4545/x',
      guard: 'read-only',
      ...(phrase ? { phrase } : {}),
    });
    const root = (document.querySelector('toolwire-pairing') as HTMLElement)
      .shadowRoot as ShadowRoot;
    const dialog = root.querySelector('[role=dialog]') as HTMLElement;
    const connectButton = root.querySelector('button.connect') as HTMLButtonElement;
    const settled = { value: undefined as boolean | undefined };
    void shown.then((answer) => {
      settled.value = answer;
    });
    return { shown, root, dialog, connectButton, settled };
  };

  it('shows the phrase, and describes the dialog with it', () => {
    const phrase = pairingPhrase('kAb0-_QrStUvWxYz012345');
    const { root, dialog } = show(phrase);
    const ids = (dialog.getAttribute('aria-describedby') as string).split(' ');
    const description = ids.map((id) => root.getElementById(id)?.textContent).join(' ');
    expect(description).toContain(`Check that your terminal shows: ${phrase}`);
  });

  it('ignores Connect for 0.5 s after it shows, then connects', async () => {
    vi.useFakeTimers();
    const { shown, connectButton, settled } = show('baba-baba-baba');
    let clicks = 0;
    connectButton.addEventListener('click', () => clicks++);
    expect(connectButton.getAttribute('aria-disabled')).toBe('true');
    connectButton.click();
    vi.advanceTimersByTime(499);
    connectButton.click(); // Enter or Space on the focused button clicks it the same way
    await Promise.resolve();
    expect(clicks).toBe(2); // both landed on the button
    expect(settled.value).toBeUndefined();
    expect(document.querySelector('toolwire-pairing')).not.toBeNull();
    vi.advanceTimersByTime(1);
    expect(connectButton.hasAttribute('aria-disabled')).toBe(false);
    connectButton.click();
    expect(await shown).toBe(true);
    expect(document.querySelector('toolwire-pairing')).toBeNull();
  });

  it('a tab hidden meanwhile starts the half second again once shown', async () => {
    vi.useFakeTimers();
    let state: DocumentVisibilityState = 'visible';
    vi.spyOn(document, 'visibilityState', 'get').mockImplementation(() => state);
    const { shown, connectButton, settled } = show();
    state = 'hidden';
    document.dispatchEvent(new Event('visibilitychange'));
    vi.advanceTimersByTime(5000);
    connectButton.click();
    await Promise.resolve();
    expect(settled.value).toBeUndefined();
    state = 'visible';
    document.dispatchEvent(new Event('visibilitychange'));
    vi.advanceTimersByTime(300);
    connectButton.click();
    await Promise.resolve();
    expect(settled.value).toBeUndefined();
    vi.advanceTimersByTime(200);
    connectButton.click();
    expect(await shown).toBe(true);
  });
});
