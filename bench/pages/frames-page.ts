/**
 * The in-page half of `pnpm bench:frames` (bench/frames.bench.ts drives it).
 *
 * One page serves every frame of the bench: its node of the tree (tools, children, origins)
 * comes from the URL fragment. Each frame installs the polyfill from source, registers its
 * tools, and embeds its children. Beside the polyfill, each frame keeps a bare MessageChannel
 * to its parent made by this file alone, the baseline: an echo port (a message comes back as
 * it is) and a control port that lists tools down the same tree by hand (each frame answers
 * with its own descriptors plus its children's, the same records the bridge carries).
 *
 * The top times everything with performance.now() (cross-origin isolated: 5 us steps), one
 * awaited call at a time, the polyfill and its baseline alternating call by call.
 */
import { install } from '../../packages/polyfill/src/index.js';
import { timerResolutionUs } from '../lib/timer.js';

export interface BenchNode {
  id: string;
  /** Relative to the parent: its origin ('same') or the other loopback name ('cross'). */
  origin?: 'same' | 'cross';
  /** How many tools to register (`<id>.t<i>`, exposed to '*'). */
  tools?: number;
  /** Register `<id>.echo`, which returns its input. */
  echo?: boolean;
  frames?: BenchNode[];
}

export interface BenchInfo {
  id: string;
  crossOriginIsolated: boolean;
  timerResolutionUs: number;
  /** Each direct child: its id and origin. */
  children: { id: string; origin: string }[];
}

/** Per-call times in microseconds, in call order. */
export interface PairTimes {
  polyfillUs: number[];
  baselineUs: number[];
  /** Sanity, checked outside the timed regions: wrong answers, by case. */
  problems: string[];
}

export interface FramesBenchApi {
  info(): BenchInfo;
  /** Polls until `tools.getTools()` lists `count` tools (the tree's handshakes are done). */
  waitForTools(count: number, timeoutMs: number): Promise<number>;
  timeEcho(options: { child: string; calls: number; warmup: number }): Promise<PairTimes>;
  timeListing(options: { expected: number; calls: number; warmup: number }): Promise<PairTimes>;
}

interface Descriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: undefined;
  outputSchema: undefined;
  annotations: undefined;
  origin: string;
  agentExposed: boolean;
  key: number;
  route: number[];
}

/** The ~100 B input of the call benchmarks (docs/performance.md's 100 B rows). */
function input(seq: number) {
  return { seq, query: 'weather in Lisbon', units: 'metric', limit: 10, tags: ['a', 'b'] };
}

const node = JSON.parse(decodeURIComponent(location.hash.slice(1)) || '{"id":"top"}') as BenchNode;
const isTop = window.parent === window;
const { toolManager, tools } = install();

// ---- the baseline: bare channels, this file's own ---------------------------------------------

/** Ports to each child, by its id, once the child's document said it is ready. */
const childEcho = new Map<string, MessagePort>();
const childControl = new Map<string, MessagePort>();
/** The control port to the parent (frames only). */
let parentControl: MessagePort | undefined;
let ownDescriptors: Descriptor[] = [];

function otherOrigin(): string {
  const url = new URL(location.href);
  url.hostname = url.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  return url.origin;
}

/** A child hands its ports over only to its parent, from the parent's origin (docs/style.md 2). */
const expectedParent = location.ancestorOrigins?.[0];
let portsTaken = false;
addEventListener('message', (event: MessageEvent) => {
  if (isTop || portsTaken || event.source !== window.parent) return;
  if (event.origin !== expectedParent) return;
  const data = event.data as { bench?: unknown } | null;
  if (data?.bench !== 'ports' || event.ports.length !== 2) return;
  portsTaken = true;
  const [echo, control] = event.ports as [MessagePort, MessagePort];
  echo.onmessage = (message) => echo.postMessage(message.data);
  control.onmessage = (message) => void serveControl(control, message.data);
  parentControl = control;
  void announceWhenReady();
});

let listSeq = 0;
const listWaiters = new Map<number, (tools: Descriptor[]) => void>();

/** Asks one child's subtree for its descriptors over the bare control port. */
function listChild(port: MessagePort, index: number): Promise<Descriptor[]> {
  const seq = ++listSeq;
  return new Promise((resolve) => {
    listWaiters.set(seq, (found) =>
      resolve(found.map((tool) => ({ ...tool, route: [index, ...tool.route] }))),
    );
    port.postMessage({ list: seq });
  });
}

/** This frame's descriptors plus those of its whole subtree, by hand. */
async function listTree(): Promise<Descriptor[]> {
  const own: Descriptor[] = ownDescriptors.map((tool) => ({ ...tool, route: [] }));
  if (childControl.size === 0) return own;
  const lists = await Promise.all(
    (node.frames ?? []).map((child, index) => {
      const port = childControl.get(child.id);
      return port ? listChild(port, index) : Promise.resolve([]);
    }),
  );
  return own.concat(...lists);
}

async function serveControl(port: MessagePort, data: unknown): Promise<void> {
  const message = data as { list?: number; listed?: number; tools?: Descriptor[] } | null;
  if (typeof message?.list === 'number')
    port.postMessage({ listed: message.list, tools: await listTree() });
}

function onChildControl(data: unknown): void {
  const message = data as { listed?: number; tools?: Descriptor[]; ready?: boolean } | null;
  if (typeof message?.listed !== 'number') return;
  const waiter = listWaiters.get(message.listed);
  listWaiters.delete(message.listed);
  waiter?.(message.tools ?? []);
}

// ---- setting up this frame --------------------------------------------------------------------

let resolveChildrenReady: () => void = () => {};
const childrenReady = new Promise<void>((resolve) => {
  resolveChildrenReady = resolve;
});
let ownReady = false;

async function announceWhenReady(): Promise<void> {
  await childrenReady;
  while (!ownReady) await new Promise((resolve) => setTimeout(resolve, 5));
  parentControl?.postMessage({ ready: true });
}

async function setUp(): Promise<void> {
  for (let i = 0; i < (node.tools ?? 0); i++) {
    const name = `${node.id}.t${i}`;
    await toolManager.register({ name, exposedTo: ['*'], execute: () => name });
  }
  if (node.echo)
    await toolManager.register({ name: `${node.id}.echo`, exposedTo: ['*'], execute: (x) => x });
  ownDescriptors = [...Array(node.tools ?? 0).keys()].map((i) => ({
    name: `${node.id}.t${i}`,
    title: '',
    description: '',
    inputSchema: undefined,
    outputSchema: undefined,
    annotations: undefined,
    origin: location.origin,
    agentExposed: false,
    key: i,
    route: [],
  }));
  const children = node.frames ?? [];
  let pending = children.length;
  if (pending === 0) resolveChildrenReady();
  for (const child of children) {
    const origin = child.origin === 'cross' ? otherOrigin() : location.origin;
    const iframe = document.createElement('iframe');
    iframe.id = child.id;
    iframe.setAttribute('allow', 'tools');
    // A query per frame: Chromium refuses to load a URL that two ancestors already show.
    iframe.src = `${origin}/bench/pages/frames-bench.html?frame=${encodeURIComponent(child.id)}#${encodeURIComponent(JSON.stringify(child))}`;
    iframe.addEventListener('load', () => {
      const echo = new MessageChannel();
      const control = new MessageChannel();
      control.port1.onmessage = (message) => {
        if ((message.data as { ready?: boolean } | null)?.ready) {
          childEcho.set(child.id, echo.port1);
          childControl.set(child.id, control.port1);
          if (--pending === 0) resolveChildrenReady();
          return;
        }
        onChildControl(message.data);
      };
      iframe.contentWindow?.postMessage({ bench: 'ports' }, origin, [echo.port2, control.port2]);
    });
    document.body.append(iframe);
  }
  ownReady = true;
  if (isTop) {
    await childrenReady;
    (window as any).benchReady = true;
  }
}

// ---- the top's measurements -------------------------------------------------------------------

let echoResolve: ((value: unknown) => void) | undefined;
const onEcho = (message: MessageEvent) => echoResolve?.(message.data);

function bareEcho(port: MessagePort, value: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    echoResolve = resolve;
    port.postMessage(value);
  });
}

const api: FramesBenchApi = {
  info() {
    return {
      id: node.id,
      crossOriginIsolated,
      timerResolutionUs: timerResolutionUs(),
      children: (node.frames ?? []).map((child) => ({
        id: child.id,
        origin: child.origin === 'cross' ? otherOrigin() : location.origin,
      })),
    };
  },

  async waitForTools(count, timeoutMs) {
    const deadline = performance.now() + timeoutMs;
    let found = 0;
    while (performance.now() < deadline) {
      found = (await tools.getTools()).length;
      if (found === count) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return found;
  },

  async timeEcho({ child, calls, warmup }) {
    const port = childEcho.get(child);
    const handle = (await tools.getTools()).find((tool) => tool.name === `${child}.echo`);
    const problems: string[] = [];
    if (!port || !handle) return { polyfillUs: [], baselineUs: [], problems: [`no ${child}`] };
    port.onmessage = onEcho;
    const polyfillUs: number[] = [];
    const baselineUs: number[] = [];
    for (let i = 0; i < warmup + calls; i++) {
      const value = input(i);
      let start = performance.now();
      const bare = (await bareEcho(port, value)) as { seq?: number };
      const bareUs = (performance.now() - start) * 1000;
      start = performance.now();
      const called = (await tools.callTool(handle, value)) as { seq?: number };
      const callUs = (performance.now() - start) * 1000;
      if (bare?.seq !== i) problems.push(`bare echo ${i} came back as ${JSON.stringify(bare)}`);
      if (called?.seq !== i) problems.push(`callTool ${i} came back as ${JSON.stringify(called)}`);
      if (problems.length > 5) break;
      if (i < warmup) continue;
      baselineUs.push(bareUs);
      polyfillUs.push(callUs);
    }
    port.onmessage = null;
    return { polyfillUs, baselineUs, problems };
  },

  async timeListing({ expected, calls, warmup }) {
    const problems: string[] = [];
    const polyfillUs: number[] = [];
    const baselineUs: number[] = [];
    for (let i = 0; i < warmup + calls; i++) {
      let start = performance.now();
      const bare = await listTree();
      const bareUs = (performance.now() - start) * 1000;
      start = performance.now();
      const listed = await tools.getTools();
      const listUs = (performance.now() - start) * 1000;
      if (bare.length !== expected) problems.push(`bare listing ${i}: ${bare.length} tools`);
      if (listed.length !== expected) problems.push(`getTools ${i}: ${listed.length} tools`);
      if (problems.length > 5) break;
      if (i < warmup) continue;
      baselineUs.push(bareUs);
      polyfillUs.push(listUs);
    }
    return { polyfillUs, baselineUs, problems };
  },
};

if (isTop) (window as any).framesBench = api;
void setUp();
