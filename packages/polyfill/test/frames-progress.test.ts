/**
 * Progress across frames, at the level of the bridge's calls (frames/calls.ts) over real
 * MessageChannel ports: which reports a frame takes, relays or drops. Three nodes wired as
 * node.ts wires them: a top, a middle frame that runs or relays, and a grandchild under it;
 * plus a raw port the test speaks on as a hostile child. Real Chromium with cross-origin frames:
 * e2e/frames.e2e.ts and e2e/frames-hostile.e2e.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import { Calls } from '../src/frames/calls.js';
import type { FrameNodeDeps, NodeContext } from '../src/frames/context.js';
import { RemoteHandles } from '../src/frames/handles.js';
import { FrameLink } from '../src/frames/link.js';
import type { CallRequest, FrameRequest } from '../src/frames/messages.js';
import { FRAMES_TAG } from '../src/frames/messages.js';
import type { Installation, ToolExecuteContext, ToolProgress } from '../src/index.js';
import { noProgress } from '../src/progress.js';
import { freshInstall } from './helpers.js';

const TOP = 'https://top.example';
const MID = 'https://mid.example';

interface TestNode {
  calls: Calls;
  /** links.childAt(i) */
  children: FrameLink[];
  parent: FrameLink | undefined;
  /** Every call request this node was asked to serve, as it arrived. */
  served: CallRequest[];
}

/** A call the top cannot serve (it has no tools): its answer is a round trip on that port. */
const probe: CallRequest = {
  op: 'call',
  route: [],
  caller: 'https://evil.example',
  via: [],
  callId: 'probe',
  name: 'none',
  key: -1,
  origin: null,
  input: {},
  encoding: 'structured',
};

const open: { close(): void }[] = [];
afterEach(() => {
  for (const port of open.splice(0)) port.close();
});

/** A node over an installation's registry and generic layer, wired as node.ts wires its links. */
function node(origin: string, installation: Installation | undefined): TestNode {
  const state: TestNode = {
    calls: undefined as unknown as Calls,
    children: [],
    parent: undefined,
    served: [],
  };
  const context = {
    origin,
    window: {} as never,
    deps: {
      registry: installation?.registry ?? { get: () => undefined },
      runGeneric: ((...args) =>
        (installation as Installation).tools.runFor(...args)) satisfies FrameNodeDeps['runGeneric'],
      runSpec: () => Promise.reject(new Error('no spec calls here')),
    },
    gate: { allowed: true },
    links: {
      get parent() {
        return state.parent;
      },
      childAt: (index: number) => state.children[index],
    },
  } as unknown as NodeContext;
  state.calls = new Calls(context, new RemoteHandles(() => ({}) as never));
  return state;
}

function handlers(state: TestNode) {
  return {
    request: (request: FrameRequest, link: FrameLink) => {
      if (request.op !== 'call') return Promise.reject(new Error(`unexpected ${request.op}`));
      state.served.push(request);
      return state.calls.answerCall(request, [...request.via, link.origin], link);
    },
    abort: (callId: string) => state.calls.abort(callId),
    progress: (notice: Parameters<Calls['progress']>[0], link: FrameLink) =>
      state.calls.progress(notice, link),
    changed: () => {},
    closed: () => {},
    error: (value: unknown) => Object.assign(new Error(String((value as Error).message)), value),
  };
}

/** Links `child` under `parent` (as child index `parent.children.length`) over a real channel. */
function connect(parent: TestNode, parentOrigin: string, child: TestNode, childOrigin: string) {
  const channel = new MessageChannel();
  open.push(channel.port1, channel.port2);
  parent.children.push(
    new FrameLink(channel.port1 as never, childOrigin, handlers(parent), {
      grant: true,
      allowed: true,
    }),
  );
  child.parent = new FrameLink(channel.port2 as never, parentOrigin, handlers(child), {
    grant: true,
    allowed: true,
  });
}

/** A tool that reports 1, then waits for `step`, reports 2, and answers with `done`. */
async function steppingTool(installation: Installation, name: string) {
  const started = latch<ToolExecuteContext>();
  const step = latch();
  await installation.toolManager.register({
    name,
    exposedTo: ['*'],
    execute: async (_input: unknown, context: ToolExecuteContext) => {
      context.reportProgress(1, 2, 'first');
      started.open(context);
      await step.wait;
      context.reportProgress(2, 2);
      return 'done';
    },
  });
  return { started, step };
}

describe('progress across frames (calls.ts over real ports)', () => {
  it("a child's reports reach the caller, before the answer; none travel unless asked", async () => {
    const top = node(TOP, undefined);
    const childInstall = freshInstall(`${MID}/`);
    const child = node(MID, childInstall);
    connect(top, TOP, child, MID);
    const tool = await steppingTool(childInstall, 'mid.tool');

    const events: string[] = [];
    const call = top.calls
      .callRemote(
        { route: [0], name: 'mid.tool' },
        {},
        {
          onProgress: (r: ToolProgress) => events.push(`progress ${JSON.stringify(r)}`),
        },
      )
      .then((value) => events.push(`answer ${String(value)}`));
    await tool.started.wait;
    await until(() => events.length === 1, 'the first report arrived');
    tool.step.open();
    await call;
    expect(events).toEqual([
      'progress {"progress":1,"total":2,"message":"first"}',
      'progress {"progress":2,"total":2}',
      'answer done',
    ]);
    expect(child.served.map((request) => request.progress)).toEqual([true]);

    // Without onProgress the request does not ask, and the tool's reports go nowhere.
    const quiet = await steppingTool(childInstall, 'mid.quiet');
    const plain = top.calls.callRemote({ route: [0], name: 'mid.quiet' }, {}, {});
    const context = await quiet.started.wait;
    quiet.step.open();
    expect(await plain).toBe('done');
    expect(child.served.at(-1)?.progress).toBeUndefined();
    expect(context.reportProgress).toBe(noProgress);

    // As tools.callTool does, for tools.of(frame).callTool: a TypeError before anything is sent.
    await expect(
      top.calls.callRemote({ route: [0], name: 'mid.quiet' }, {}, { onProgress: 'yes' as never }),
    ).rejects.toThrow(TypeError);
  });

  it('a frame in between relays a grandchild’s reports up, and the abort down', async () => {
    const top = node(TOP, undefined);
    const mid = node(MID, freshInstall(`${MID}/`));
    const leafInstall = freshInstall('https://leaf.example/');
    const leaf = node('https://leaf.example', leafInstall);
    connect(top, TOP, mid, MID);
    connect(mid, MID, leaf, 'https://leaf.example');
    const tool = await steppingTool(leafInstall, 'leaf.tool');

    const seen: ToolProgress[] = [];
    const controller = new AbortController();
    const call = top.calls.callRemote(
      { route: [0, 0], name: 'leaf.tool' },
      {},
      { signal: controller.signal, onProgress: (r: ToolProgress) => seen.push(r) },
    );
    const context = await tool.started.wait;
    await until(() => seen.length === 1, 'the relayed report arrived');
    expect(seen).toEqual([{ progress: 1, total: 2, message: 'first' }]);
    expect(mid.served[0]?.route).toEqual([0]);
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    await until(() => context.signal.aborted, 'the abort reached the grandchild');
    tool.step.open();
    expect(seen).toHaveLength(1);
  });

  it('drops reports for calls it did not make, from a link the call did not take, and after the answer', async () => {
    const top = node(TOP, undefined);
    const childInstall = freshInstall(`${MID}/`);
    const child = node(MID, childInstall);
    connect(top, TOP, child, MID);
    // A second child the test speaks for: a raw port, as a hostile frame would hold it.
    const raw = new MessageChannel();
    open.push(raw.port1, raw.port2);
    top.children.push(
      new FrameLink(raw.port1 as never, 'https://evil.example', handlers(top), {
        grant: true,
        allowed: true,
      }),
    );
    const answers: unknown[] = [];
    raw.port2.onmessage = (event) => answers.push(event.data);
    const tool = await steppingTool(childInstall, 'mid.tool');

    const seen: ToolProgress[] = [];
    const call = top.calls.callRemote(
      { route: [0], name: 'mid.tool' },
      {},
      {
        onProgress: (r: ToolProgress) => seen.push(r),
      },
    );
    const context = await tool.started.wait;
    await until(() => seen.length === 1, 'the honest first report');
    const callId = child.served[0]?.callId as string;
    // The honest path works (above); now the same call id from the wrong link, and a call id
    // nobody made, each an increase that would otherwise be taken.
    raw.port2.postMessage({ tag: FRAMES_TAG, kind: 'progress', callId, progress: 50 });
    raw.port2.postMessage({ tag: FRAMES_TAG, kind: 'progress', callId: 'made-up', progress: 60 });
    // A request behind them on the same port: its answer shows they were handled.
    raw.port2.postMessage({ tag: FRAMES_TAG, kind: 'req', id: 7, request: probe });
    await until(() => answers.length === 1, 'the raw port was answered');
    expect(seen).toEqual([{ progress: 1, total: 2, message: 'first' }]);

    tool.step.open();
    expect(await call).toBe('done');
    // After the answer: the tool's leaked reportProgress does nothing, and a report the child
    // link sends by hand for the finished call is dropped by the caller.
    context.reportProgress(3, 3);
    child.parent?.progress({ callId, progress: 4 });
    raw.port2.postMessage({ tag: FRAMES_TAG, kind: 'req', id: 8, request: probe });
    await until(() => answers.length === 2, 'the raw port was answered again');
    // The child link's message went on another port: it is handled by the time a round trip
    // on that port has been.
    const again = await steppingTool(childInstall, 'mid.again');
    const second = top.calls.callRemote({ route: [0], name: 'mid.again' }, {}, {});
    await again.started.wait;
    again.step.open();
    await second;
    expect(seen).toEqual([
      { progress: 1, total: 2, message: 'first' },
      { progress: 2, total: 2 },
    ]);
  });
});
