/**
 * The in-page half of `pnpm bench:endpoint` (bench/endpoint.bench.ts drives it).
 *
 * The page installs the polyfill and the endpoint from source (served by Vite), registers one
 * agent tool, `bench.echo`, and opens two WebSockets to the bench's `ws` server, whose base URL
 * is in the fragment:
 *
 * - `<base>/toolwire`: `connect()` (guard 'read-only', no built-ins, no reconnect), which
 *   answers `tool.call` through `createToolBridge`: the path under test;
 * - `<base>/raw`: the baseline, a bare JSON echo made here: every text message is parsed and
 *   `JSON.stringify({id, payload})` goes back. The same JSON work the real path has to do on
 *   this side (one parse, one stringify), nothing more.
 *
 * Both sockets are one small subclass of WebSocket that can note, per message, the time from
 * the message event to the end of the `send()` that answers it (page-side serve time), so a
 * missed ratio can be split into page work and the rest. Noting is off unless the bench turns
 * it on, and the subclass is the same for both sockets.
 *
 * `profile()` times the pieces of the page-side path in loops (JSON.parse, the bridge's
 * `handle`, ajv, lowering, the envelope parse...), on the exact frames the bench sent.
 */

import { gzipSync } from 'fflate';
import { connect } from '../../packages/endpoint/src/index.js';
import { pageValidator } from '../../packages/endpoint/src/validator.js';
import { encodeBase64 } from '../../packages/lowering/src/index.js';
import { install, loadLowering } from '../../packages/polyfill/src/index.js';
import type { ResponseEnvelope } from '../../packages/protocol/src/index.js';
import { decodePayload, encodePayload, parseFrame } from '../../packages/protocol/src/index.js';
import { checkSerializable } from '../../packages/protocol/src/json.js';
import { timerResolutionUs } from '../lib/timer.js';

export interface PageInfo {
  crossOriginIsolated: boolean;
  /** The finest step performance.now() takes, in microseconds. */
  timerResolutionUs: number;
  sessionStatus: string;
  rawOpen: boolean;
  /** The bridge's tool ids. */
  toolIds: string[];
  userAgent: string;
}

export interface ProfileOptions {
  /** A tool.call frame exactly as the host sent it. */
  requestFrame: string;
  /** A baseline frame exactly as the host sent it. */
  rawFrame: string;
  /** The text the echo must give back. */
  text: string;
  iterations: number;
  rounds: number;
  /** Calls timed one at a time after a 1 ms timer each (caches gone cold), per case. */
  coldCalls: number;
}

export interface ProfileResult {
  /** Per piece, microseconds per operation: the median over rounds. */
  perOpUs: Record<string, number>;
  /** Per case, microseconds for one operation after a 1 ms timer: the median over calls. */
  coldUs: { handle: number; baseline: number };
  /** UTF-16 length of the response frame the endpoint would send. */
  responseFrameLength: number;
  wrapped: boolean;
  problems: string[];
}

export interface EndpointBenchApi {
  info(): PageInfo;
  /** Page-side serve times are noted (or not) from now on; `take` returns and clears them. */
  record(on: boolean): void;
  takeServed(): Record<'ours' | 'raw', Served>;
  profile(options: ProfileOptions): Promise<ProfileResult>;
}

// ---- the two sockets ------------------------------------------------------------------------

/** Per answered message, in microseconds: message event to send() called, and send() itself. */
export interface Served {
  beforeSend: number[];
  send: number[];
}

let recording = false;
const served: Record<'ours' | 'raw', Served> = {
  ours: { beforeSend: [], send: [] },
  raw: { beforeSend: [], send: [] },
};

/** WebSocket, noting message-to-send() times when recording. Same class for both ends. */
function timedSocket(kind: 'ours' | 'raw'): typeof WebSocket {
  return class TimedSocket extends WebSocket {
    #receivedAt = 0;
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      // Added before anyone sets onmessage, so it runs first.
      this.addEventListener('message', () => {
        if (recording) this.#receivedAt = performance.now();
      });
    }
    override send(data: string | ArrayBufferLike | Blob | ArrayBufferView): void {
      const start = recording ? performance.now() : 0;
      super.send(data as string);
      if (recording) {
        const end = performance.now();
        served[kind].beforeSend.push((start - this.#receivedAt) * 1000);
        served[kind].send.push((end - start) * 1000);
      }
    }
  };
}

const base = decodeURIComponent(location.hash.slice(1));
const { toolManager, tools } = install();

await toolManager.register({
  name: 'bench.echo',
  naturalLanguageProperties: { description: 'Echo', annotations: { readOnlyHint: true } },
  execute: (input: unknown) => input,
});

const session = connect({
  url: `${base}/toolwire`,
  guard: 'read-only',
  builtins: false,
  reconnect: false,
  WebSocket: timedSocket('ours'),
});

const RawSocket = timedSocket('raw');
const raw = new RawSocket(`${base}/raw`);
let rawOpen = false;
raw.onopen = () => {
  rawOpen = true;
};
raw.onclose = () => {
  rawOpen = false;
};
raw.onmessage = (event: MessageEvent) => {
  const message = JSON.parse(event.data as string) as { id: unknown; payload: unknown };
  raw.send(JSON.stringify({ id: message.id, payload: message.payload }));
};

// ---- profile: the pieces of the page-side path -----------------------------------------------

/** Keeps results observable, so no loop body can be dropped as dead code. */
let sink: unknown;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

type Loop = (n: number) => unknown | Promise<unknown>;

async function profile(options: ProfileOptions): Promise<ProfileResult> {
  const { requestFrame, rawFrame, text, iterations, rounds } = options;
  const problems: string[] = [];
  const request = JSON.parse(requestFrame) as {
    payload: { toolId: string; arguments: Record<string, unknown> };
  };
  const args = request.payload.arguments;
  const bridgeTool = session.catalogTools.find((tool) => tool.definition.id === 'bench.echo');
  if (!bridgeTool) throw new Error('bench.echo is not in the bridge catalog');
  const { argumentsSchema, resultSchema } = bridgeTool.definition;
  const handle = (await tools.getTools({ agentOnly: true })).find((t) => t.name === 'bench.echo');
  if (!handle) throw new Error('bench.echo is not listed');
  const validator = pageValidator();
  const { lower } = await loadLowering();
  const result = { text };
  const outcome = {
    toolId: 'bench.echo',
    success: true,
    message: null,
    result,
    evidence: null,
  };
  const envelope = (await session.handle(requestFrame)) as ResponseEnvelope;
  const responseFrame = JSON.stringify(envelope);
  const decoded = decodePayload(envelope.payload) as { result?: { text?: unknown } };
  if (decoded.result?.text !== text) problems.push('session.handle did not echo the text');
  const wrapped = Boolean(
    (envelope.payload as { $ansightEncoding?: unknown } | null)?.$ansightEncoding,
  );
  const peekTarget = new EventTarget();

  const loops: Record<string, Loop> = {
    'baseline: JSON.parse + JSON.stringify({id, payload})': (n) => {
      for (let i = 0; i < n; i++) {
        const message = JSON.parse(rawFrame) as { id: unknown; payload: unknown };
        sink = JSON.stringify({ id: message.id, payload: message.payload });
      }
      return sink;
    },
    'JSON.parse(request frame)': (n) => {
      for (let i = 0; i < n; i++) sink = JSON.parse(requestFrame);
      return sink;
    },
    'parseFrame (JSON.parse + depth walk)': (n) => {
      for (let i = 0; i < n; i++) sink = parseFrame(requestFrame, { maxDepth: 136 });
      return sink;
    },
    'Session extras: peek JSON.parse (< 4 KiB frames) + 2 CustomEvents': (n) => {
      for (let i = 0; i < n; i++) {
        if (requestFrame.length < 4096) sink = JSON.parse(requestFrame);
        peekTarget.dispatchEvent(new CustomEvent('request', { detail: sink }));
        peekTarget.dispatchEvent(new CustomEvent('response', { detail: sink }));
      }
      return sink;
    },
    'Session.handle, whole (bridge.handle, then the envelope parsed)': async (n) => {
      for (let i = 0; i < n; i++) sink = await session.handle(requestFrame);
      return sink;
    },
    'ajv: compile lookup + check, args and result': async (n) => {
      for (let i = 0; i < n; i++) {
        const checkArgs = await validator.compile(argumentsSchema);
        const checkResult = await validator.compile(resultSchema);
        sink = checkArgs(args).valid && checkResult(result).valid;
      }
      return sink;
    },
    'callTool json, whole (lift + execute + lower)': async (n) => {
      for (let i = 0; i < n; i++) sink = await tools.callTool(handle, args, { encoding: 'json' });
      return sink;
    },
    'liftPlain: JSON.parse(JSON.stringify(args))': (n) => {
      for (let i = 0; i < n; i++) sink = JSON.parse(JSON.stringify(args));
      return sink;
    },
    'lower(result)': async (n) => {
      for (let i = 0; i < n; i++) sink = await lower(result);
      return sink;
    },
    'checkSerializable(result)': (n) => {
      for (let i = 0; i < n; i++) checkSerializable(result, 128);
      return sink;
    },
    'encodePayload(outcome) (walk + stringify [+ gzip])': (n) => {
      for (let i = 0; i < n; i++) sink = encodePayload(outcome, { maxDepth: 136 });
      return sink;
    },
    "JSON.parse(response frame) (the envelope Session.handle and 'response' give)": (n) => {
      for (let i = 0; i < n; i++) sink = JSON.parse(responseFrame);
      return sink;
    },
  };

  // When the response is wrapped: its pieces, and native gzip on the same bytes for comparison.
  if (wrapped) {
    const json = JSON.stringify(outcome);
    const bytes = new TextEncoder().encode(json);
    const gzipped = gzipSync(bytes, { level: 1, mtime: 0 });
    Object.assign(loops, {
      'wrap: TextEncoder.encode(result JSON)': (n: number) => {
        for (let i = 0; i < n; i++) sink = new TextEncoder().encode(json);
        return sink;
      },
      'wrap: fflate gzipSync level 1 (what encodePayload uses)': (n: number) => {
        for (let i = 0; i < n; i++) sink = gzipSync(bytes, { level: 1, mtime: 0 });
        return sink;
      },
      'wrap: encodeBase64(gzip bytes)': (n: number) => {
        for (let i = 0; i < n; i++) sink = encodeBase64(gzipped);
        return sink;
      },
      'alternative: native CompressionStream gzip, same bytes': async (n: number) => {
        for (let i = 0; i < n; i++) {
          const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'));
          sink = await new Response(stream).arrayBuffer();
        }
        return sink;
      },
    } satisfies Record<string, Loop>);
  }

  const samples: Record<string, number[]> = {};
  for (const name of Object.keys(loops)) samples[name] = [];
  // One warm-up round, then `rounds` timed rounds, pieces interleaved round by round.
  for (let round = 0; round <= rounds; round++) {
    for (const [name, loop] of Object.entries(loops)) {
      const start = performance.now();
      const pending = loop(iterations);
      if (pending instanceof Promise) await pending;
      const elapsed = performance.now() - start;
      if (round > 0) samples[name]?.push((elapsed * 1000) / iterations);
    }
  }
  const perOpUs: Record<string, number> = {};
  for (const [name, values] of Object.entries(samples)) perOpUs[name] = median(values);

  // The same work one call at a time, each after a 1 ms timer (as on the socket, where the
  // page idles between calls while Node and the browser process run): not hot in a loop.
  const cold = { handle: [] as number[], baseline: [] as number[] };
  const pause = () => new Promise((resolve) => setTimeout(resolve, 1));
  for (let i = 0; i < options.coldCalls; i++) {
    await pause();
    let start = performance.now();
    sink = await session.handle(requestFrame);
    cold.handle.push((performance.now() - start) * 1000);
    await pause();
    start = performance.now();
    const message = JSON.parse(rawFrame) as { id: unknown; payload: unknown };
    sink = JSON.stringify({ id: message.id, payload: message.payload });
    cold.baseline.push((performance.now() - start) * 1000);
  }
  const coldUs = { handle: median(cold.handle), baseline: median(cold.baseline) };
  return { perOpUs, coldUs, responseFrameLength: responseFrame.length, wrapped, problems };
}

// ---- the API the bench drives ------------------------------------------------------------------

const api: EndpointBenchApi = {
  info: () => ({
    crossOriginIsolated,
    timerResolutionUs: timerResolutionUs(),
    sessionStatus: session.status,
    rawOpen,
    toolIds: session.catalogTools.map((tool) => tool.definition.id),
    userAgent: navigator.userAgent,
  }),
  record(on) {
    recording = on;
  },
  takeServed() {
    const take = (times: Served): Served => ({
      beforeSend: times.beforeSend.splice(0),
      send: times.send.splice(0),
    });
    return { ours: take(served.ours), raw: take(served.raw) };
  },
  profile,
};
(window as unknown as { endpointBench: EndpointBenchApi }).endpointBench = api;
(document.getElementById('status') as HTMLElement).textContent = 'ready';
