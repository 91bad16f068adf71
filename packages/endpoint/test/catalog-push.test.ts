import type { Tool, Tools } from '@toolwire/polyfill';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import type { Session } from '../src/connect.js';
import { connect } from '../src/connect.js';
import { FakeSocket, sockets } from './fake-socket.js';

// Issue 13, part 9: the page's side of "the host's catalog converges". The page reads its tools
// once per change notice and pushes `tool.catalog.changed` after a debounce; the host also asks
// on its own (a call, `toolwire tools`, a poll). Whatever interleaves, the page must end up
// serving its newest tools and the host must end up told about them.

const sessions: Session[] = [];

afterEach(() => {
  for (const session of sessions.splice(0)) session.close();
  vi.useRealTimers();
});

/**
 * The page's generic layer, scripted: `names` is what the page holds now; each getTools() takes
 * its snapshot when called and answers at once, or, if the test set `hold`, once that opens (a
 * frame's listing takes time; the test decides how long).
 */
class ScriptedTools extends EventTarget {
  names: string[];
  reads = 0;
  /** The next read waits for this before it answers (taken by that read). */
  hold: Promise<void> | undefined;
  #handles = new Map<string, Tool>();

  constructor(names: string[]) {
    super();
    this.names = names;
  }

  async getTools(): Promise<Tool[]> {
    this.reads++;
    const snapshot = this.names.map((name) => this.#handle(name));
    const hold = this.hold;
    this.hold = undefined;
    if (hold) await hold;
    return snapshot;
  }

  /** Every handle is the page's own registry tool (what wireInfo reads). */
  sourceOf() {
    return {
      kind: 'registry' as const,
      entry: { policy: 'read', keywords: [], prerequisites: [] },
    };
  }

  /** The page's tools changed: set them, and fire `toolchange` as the polyfill does. */
  change(names: string[]): void {
    this.names = names;
    this.dispatchEvent(new Event('toolchange'));
  }

  #handle(name: string): Tool {
    let handle = this.#handles.get(name);
    if (!handle) {
      handle = {
        name,
        title: '',
        description: `The ${name} tool.`,
        inputSchema: undefined,
        outputSchema: undefined,
        annotations: undefined,
        origin: 'null',
        agentExposed: true,
      } as unknown as Tool;
      this.#handles.set(name, handle);
    }
    return handle;
  }
}

async function openPage(names: string[], catalogChangedDelayMs = 20) {
  const tools = new ScriptedTools(names);
  const before = sockets.length;
  const session = connect({
    url: 'ws://127.0.0.1:9/toolwire?token=t',
    // This host stand-in sends no proof: the handshake has its own tests (pairing.test.ts).
    hostProof: false,
    tools: tools as unknown as Tools,
    builtins: false,
    reconnect: false,
    catalogChangedDelayMs,
    WebSocket: FakeSocket as unknown as typeof WebSocket,
  });
  sessions.push(session);
  await until(() => sockets.length === before + 1);
  const socket = sockets.at(-1) as FakeSocket;
  socket.open();
  return { session, socket, tools };
}

const ids = (session: Session) => session.catalogTools.map((tool) => tool.definition.id).sort();

/** What the page answers a host's `tool.query {detail: "index"}` now: {revision, ids}. */
async function hostQuery(socket: FakeSocket, id: string) {
  socket.onmessage?.({
    data: JSON.stringify({
      type: 'tool.query',
      id,
      sessionId: 's',
      capability: 'tool.exec',
      payload: { detail: 'index' },
    }),
  });
  await until(() => socket.frames('tool.catalog').some((frame) => frame.replyTo === id));
  const answer = socket.frames('tool.catalog').find((frame) => frame.replyTo === id);
  return {
    revision: answer.payload.revision as string,
    ids: (answer.payload.tools as { id: string }[]).map((tool) => tool.id),
  };
}

describe('the page reading its tools', () => {
  it('a slow read that began before a change never lands after the read of that change', async () => {
    const { session, socket, tools } = await openPage(['a']);
    // Honest path: one change, one read, served, and the host told.
    tools.change(['a', 'b']);
    await until(() => ids(session).join() === 'a,b');
    await until(() => socket.frames('tool.catalog.changed').length === 1);

    // The read for [a, b, c] is slow (a frame answering late: the test holds it); the change
    // to [a, b, c, d] comes meanwhile and its read would be quick. Concurrent reads finish in
    // the wrong order and the page served [a, b, c] for good.
    const slow = latch();
    tools.hold = slow.wait;
    tools.change(['a', 'b', 'c']);
    tools.change(['a', 'b', 'c', 'd']);
    slow.open();
    // The page tells the host once its reads have settled: that push shows what it settled on.
    await until(() => socket.frames('tool.catalog.changed').length === 2);
    expect(ids(session)).toEqual(['a', 'b', 'c', 'd']);
    const served = await hostQuery(socket, 'q1');
    expect(served.ids).toEqual(['a', 'b', 'c', 'd']);
    expect(socket.frames('tool.catalog.changed')[1].payload.revision).toBe(served.revision);
  });

  it('a burst of change notices costs two reads, not one per notice', async () => {
    const { session, tools } = await openPage(['a']);
    await until(() => ids(session).join() === 'a');
    const before = tools.reads;
    // The first read of the burst is slow (the test holds it) while the other notices come.
    const first = latch();
    tools.hold = first.wait;
    const names = ['a'];
    for (let i = 0; i < 500; i++) {
      names.push(`t${String(i).padStart(3, '0')}`);
      tools.change([...names]);
    }
    // While it is held, the other notices start no read of their own.
    expect(tools.reads - before).toBeLessThanOrEqual(1);
    first.open();
    await until(() => ids(session).length === 501);
    expect(ids(session)).toEqual([...names].sort());
    // Barrier: one more change. Its read starts only after every read asked for before it,
    // so once it has landed no read of the burst is still to come.
    tools.change([...names, 'z']);
    await until(() => ids(session).length === 502);
    // Two reads for the burst, one for the barrier.
    expect(tools.reads - before).toBeLessThanOrEqual(3);
  });
});

describe('tool.catalog.changed', () => {
  it('is pushed again for a state the host was told before, once it has seen another', async () => {
    // The push debounce is the subject: the fake clock holds its window open until the test
    // moves it on (reads and host queries are promises, which the fake clock leaves alone).
    // until() moves a fake clock 2 ms a poll; a minute is far more than its polls can add.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const debounceMs = 60_000;
    const { session, socket, tools } = await openPage(['a'], debounceMs);
    const pushes = () => socket.frames('tool.catalog.changed');
    /** The page's tools change to `names`; once read, the push debounce runs out. */
    const changeAndPush = async (names: string[], count: number) => {
      tools.change(names);
      await until(() => ids(session).join() === [...names].sort().join());
      expect(pushes()).toHaveLength(count - 1);
      await vi.advanceTimersByTimeAsync(debounceMs);
      await until(() => pushes().length === count, `push ${count} after [${names.join(', ')}]`);
    };

    // Honest path: a change is pushed with the revision the page then serves.
    await changeAndPush(['a', 'x'], 1);
    const first = pushes()[0].payload.revision;
    expect((await hostQuery(socket, 'q1')).revision).toBe(first);

    await changeAndPush(['a'], 2);
    const told = pushes()[1].payload.revision;

    // Inside the push debounce, the host asks on its own (a call, `toolwire tools`) and
    // caches [a, y]; then the page goes back to [a], the state it pushed last. The host must
    // hear of it, or it keeps listing y until the next registration.
    tools.change(['a', 'y']);
    const seen = await hostQuery(socket, 'q2');
    expect(seen.ids).toEqual(['a', 'y']);
    await changeAndPush(['a'], 3);
    expect(pushes()[2].payload.revision).toBe(told);
    expect((await hostQuery(socket, 'q3')).ids).toEqual(['a']);
  });
});
