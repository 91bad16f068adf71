import type { Tool, Tools } from '@toolwire/polyfill';
import { afterEach, describe, expect, it } from 'vitest';
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
});

/**
 * The page's generic layer, scripted: `names` is what the page holds now; each getTools() takes
 * its snapshot when called and answers after `delayMs()` (a frame's listing takes time).
 */
class ScriptedTools extends EventTarget {
  names: string[];
  reads = 0;
  delayMs: () => number = () => 0;
  #handles = new Map<string, Tool>();

  constructor(names: string[]) {
    super();
    this.names = names;
  }

  async getTools(): Promise<Tool[]> {
    this.reads++;
    const snapshot = this.names.map((name) => this.#handle(name));
    const delay = this.delayMs();
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
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

async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function openPage(names: string[], catalogChangedDelayMs = 20) {
  const tools = new ScriptedTools(names);
  const before = sockets.length;
  const session = connect({
    url: 'ws://127.0.0.1:9/toolwire?token=t',
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
    const { session, tools } = await openPage(['a']);
    // Honest path: one change, one read, served.
    tools.change(['a', 'b']);
    await until(() => ids(session).join() === 'a,b');

    // The read for [a, b, c] is slow (a frame answering late); the change to [a, b, c, d]
    // comes 5 ms later and its read would be quick. Concurrent reads finish in the wrong
    // order and the page served [a, b, c] for good.
    let slow = true;
    tools.delayMs = () => (slow ? 60 : 0);
    tools.change(['a', 'b', 'c']);
    await sleep(5);
    slow = false;
    tools.change(['a', 'b', 'c', 'd']);
    await sleep(150);
    expect(ids(session)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a burst of change notices costs two reads, not one per notice', async () => {
    const { session, tools } = await openPage(['a']);
    await until(() => ids(session).join() === 'a');
    const before = tools.reads;
    tools.delayMs = () => 10;
    const names = ['a'];
    for (let i = 0; i < 500; i++) {
      names.push(`t${String(i).padStart(3, '0')}`);
      tools.change([...names]);
    }
    await until(() => ids(session).length === 501);
    await sleep(50);
    expect(tools.reads - before).toBeLessThanOrEqual(2);
    expect(ids(session)).toEqual([...names].sort());
  });
});

describe('tool.catalog.changed', () => {
  it('is pushed again for a state the host was told before, once it has seen another', async () => {
    const { socket, tools } = await openPage(['a'], 200);
    // Honest path: a change is pushed with the revision the page then serves.
    tools.change(['a', 'x']);
    await until(() => socket.frames('tool.catalog.changed').length === 1);
    const first = socket.frames('tool.catalog.changed')[0].payload.revision;
    expect((await hostQuery(socket, 'q1')).revision).toBe(first);

    tools.change(['a']);
    await until(() => socket.frames('tool.catalog.changed').length === 2);
    const told = socket.frames('tool.catalog.changed')[1].payload.revision;

    // Inside the push debounce, the host asks on its own (a call, `toolwire tools`) and
    // caches [a, y]; then the page goes back to [a], the state it pushed last. The host must
    // hear of it, or it keeps listing y until the next registration.
    tools.change(['a', 'y']);
    await sleep(5);
    const seen = await hostQuery(socket, 'q2');
    expect(seen.ids).toEqual(['a', 'y']);
    tools.change(['a']);
    await until(() => socket.frames('tool.catalog.changed').length === 3, 1000);
    expect(socket.frames('tool.catalog.changed')[2].payload.revision).toBe(told);
    expect((await hostQuery(socket, 'q3')).ids).toEqual(['a']);
  });
});
