/**
 * The `/mcp` fast path (http.ts): one shape of request, the one every tool call takes, is
 * answered by this module instead of the SDK's `StreamableHTTPServerTransport`, whose Node
 * adapter turns each POST into a web `Request`, a `ReadableStream` and a `Response` and parses
 * the body again (some 150 us a call on this box). Everything else stays the SDK's.
 *
 * 1. The hot shape: a POST on a session this host holds (so the SDK transport initialized it
 *    and gave it its id), `Content-Type: application/json`, an `Accept` naming both
 *    `application/json` and `text/event-stream`, an `MCP-Protocol-Version` the SDK supports or
 *    none (the SDK checks the header against its supported list, not against the version the
 *    session negotiated), and a body that is one JSON-RPC request (`jsonrpc`, `id`, `method`,
 *    optional object `params`, nothing else), not `initialize`, whose id is not in flight on
 *    this path already. Anything else (a batch, a notification, a response, a wrong header, a
 *    body the SDK's schema might read otherwise) is left to the SDK, which answers as it does.
 * 2. The answer is the SDK's on the wire: 200, the same headers (lowercase, in its order, with
 *    the session id), and each message related to the request (its progress, a request
 *    of the server's for it, then its response) as an SSE `event: message` with no event id
 *    (the SDK writes ids only with an event store, and the host gives it none). The response
 *    ends the stream. An SSE comment keeps the stream alive every 15 s as the SDK's does. One
 *    difference: the SDK sends the headers at once, this path with the first message, or alone
 *    once the call has waited HEADERS_AFTER_MS to twice that without one (one timer a session,
 *    ticking only while calls wait, serves them all; no timer work per call): a call answered
 *    sooner goes out in one write (headers, frame, end), a slower one gets its headers a few
 *    milliseconds in, long before any client would give up waiting for them. The framing
 *    follows from that, as it does in the SDK's adapter: an answer that is the only frame and
 *    comes before the headers went out has a Content-Length (the SDK's, when its answer is
 *    there at once), any other stream is chunked. Status, headers and body are the same.
 * 3. `SessionTransport` stands between the session's SDK `Server` and its SDK transport: the
 *    `Server` talks to it; it hands start, close and every message to the SDK transport except
 *    the messages for a request this path took, which go to that request's response. The SDK
 *    transport stays the authority on the session: its id, whether it closed.
 * 4. A client dropping the stream cancels the call, as http.ts does for the SDK's streams: a
 *    `notifications/cancelled` for it to the `Server`. What the server sends for the request
 *    afterwards is dropped, as the SDK drops it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  JSONRPCMessage,
  JSONRPCRequest,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { AnswerSink } from './http-wire.js';

/** The SDK's Node transport (loaded lazily by http.ts). */
export type HttpTransport = InstanceType<
  typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport
>;

/** The SDK's SSE keep-alive interval (its DEFAULT_SSE_KEEP_ALIVE_MS). */
const KEEP_ALIVE_MS = 15_000;
/**
 * A call not answered after this (to twice this) has its headers sent alone (the SDK sends
 * them at once). The timer ticks this often while calls wait: longer, fewer wake-ups.
 */
const HEADERS_AFTER_MS = 5;
/** The SDK's `_meta` key for a task-related request: such requests are left to the SDK. */
const RELATED_TASK_KEY = 'io.modelcontextprotocol/related-task';
/** Streams of cancelled requests remembered (their late messages dropped) at most. */
const GONE_CAP = 1024;

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isId = (value: unknown): value is string | number =>
  typeof value === 'string' || Number.isSafeInteger(value);

/**
 * `body` when it is one JSON-RPC request the SDK's schema reads as exactly that object (the
 * request schema is strict; `params` and `_meta` are loose objects; id and progress token are
 * a string or an integer), else undefined.
 */
function oneRequest(body: unknown): JSONRPCRequest | undefined {
  if (!isObject(body)) return undefined;
  for (const key in body) if (!REQUEST_KEYS.has(key)) return undefined;
  if (body.jsonrpc !== '2.0' || !isId(body.id) || typeof body.method !== 'string') {
    return undefined;
  }
  if (body.method === 'initialize') return undefined;
  const params = body.params;
  if (params !== undefined) {
    if (!isObject(params)) return undefined;
    const meta = params._meta;
    if (meta !== undefined) {
      if (!isObject(meta) || meta[RELATED_TASK_KEY] !== undefined) return undefined;
      if (meta.progressToken !== undefined && !isId(meta.progressToken)) return undefined;
    }
  }
  return body as JSONRPCRequest;
}

/** The SDK's test of `Content-Type`, for the values clients send (others go to the SDK). */
const JSON_TYPE = /^application\/json\s*(?:;\s*charset=(?:"utf-8"|utf-8)\s*)?$/i;

/** `headers` fit the hot shape (header 1) for a session that supports `versions`. */
function hotHeaders(headers: IncomingHttpHeaders, versions: readonly string[]): boolean {
  const type = headers['content-type'];
  if (type !== 'application/json' && !(type !== undefined && JSON_TYPE.test(type))) return false;
  const accept = headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return false;
  }
  const version = headers['mcp-protocol-version'];
  return version === undefined || (typeof version === 'string' && versions.includes(version));
}

/** A request this path took: the response its messages go to. */
interface FastStream {
  /** A node:http ServerResponse, or an answer written on the socket (http-wire.ts). */
  response: AnswerSink;
  /** The headers are written (with the first message or keep-alive). */
  started: boolean;
  /** The keep-alive interval, once the headers went out alone. */
  timer: ReturnType<typeof setInterval> | undefined;
  /** The client dropped the stream, or the session closed it. */
  gone: boolean;
}

/** The SSE frame the SDK writes for `message` (no event id: no event store). */
const frame = (message: JSONRPCMessage) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/**
 * The transport a session's SDK `Server` is connected to (header 3): the SDK transport, with
 * the hot requests answered here.
 */
export class SessionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly sdk: HttpTransport;
  readonly #versions: readonly string[];
  readonly #streams = new Map<RequestId, FastStream>();
  /**
   * Streams waiting for their headers, and the one timer that sends them. A stream starts in
   * `#fresh`; each tick sends the headers of those in `#stale` (they waited a whole tick at
   * least), and the fresh ones become stale. The timer is armed (made once, then `refresh`)
   * when a stream starts waiting and it is not, re-armed by a tick that leaves streams
   * waiting, and never touched when a call is answered.
   */
  #fresh = new Set<FastStream>();
  #stale = new Set<FastStream>();
  #headTimer: ReturnType<typeof setTimeout> | undefined;
  #armed = false;
  /** The answer's headers, for the session id `#headersFor`. */
  #headers: string[] | undefined;
  #headersFor: string | undefined;
  #closed = false;

  constructor(sdk: HttpTransport, versions: readonly string[]) {
    this.sdk = sdk;
    this.#versions = versions;
    sdk.onmessage = (message, extra) => this.onmessage?.(message, extra);
    sdk.onerror = (error) => this.onerror?.(error);
    sdk.onclose = () => {
      // The SDK ends its own streams when its session closes: these end alike (no answer).
      // They stay known as gone, so what the server still sends for them is dropped quietly,
      // as the SDK drops what comes for its streams after it closed.
      this.#closed = true;
      clearTimeout(this.#headTimer);
      for (const stream of this.#streams.values()) this.#end(stream);
      this.onclose?.();
    };
  }

  /** The SDK transport's: it made the id when it initialized the session. */
  get sessionId(): string | undefined {
    return this.sdk.sessionId;
  }

  start(): Promise<void> {
    return this.sdk.start();
  }

  close(): Promise<void> {
    return this.sdk.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const answer = 'result' in message || 'error' in message;
    const id = answer ? (message as { id: RequestId }).id : options?.relatedRequestId;
    const stream = id === undefined ? undefined : this.#streams.get(id);
    if (!stream || id === undefined) return this.sdk.send(message, options);
    if (stream.gone) {
      if (answer) this.#streams.delete(id);
      return Promise.resolve();
    }
    const text = frame(message);
    if (answer) {
      this.#finish(id, stream, text);
      return Promise.resolve();
    }
    this.#head(stream);
    stream.response.write(text);
    return Promise.resolve();
  }

  /**
   * Answers `request` here when it has the hot shape (header 1), and says whether it did;
   * else the caller hands it to the SDK transport. `body` is the parsed JSON.
   */
  tryFast(headers: IncomingHttpHeaders, response: AnswerSink, body: unknown): boolean {
    if (this.#closed || !hotHeaders(headers, this.#versions)) return false;
    const message = oneRequest(body);
    if (!message) return false;
    const known = this.#streams.get(message.id);
    if (known && !known.gone) return false;
    const stream: FastStream = { response, started: false, timer: undefined, gone: false };
    this.#streams.set(message.id, stream);
    if (this.#streams.size > GONE_CAP) this.#forgetGone();
    response.once('close', () => {
      if (response.writableFinished) return;
      stream.gone = true;
      this.#fresh.delete(stream);
      this.#stale.delete(stream);
      clearInterval(stream.timer);
      this.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: message.id, reason: 'the client closed the stream' },
      });
    });
    this.onmessage?.(message, { requestInfo: { headers } });
    // Answered at once (an error, or a handler that did not wait): nothing to wait for. Else
    // the headers go out if no message came for HEADERS_AFTER_MS (a client waits for them
    // before it reads the stream), then a keep-alive comment every KEEP_ALIVE_MS.
    if (!stream.started && !stream.gone) {
      this.#fresh.add(stream);
      if (!this.#armed) {
        this.#armed = true;
        if (this.#headTimer === undefined) {
          this.#headTimer = setTimeout(() => this.#headWaiting(), HEADERS_AFTER_MS);
          this.#headTimer.unref?.();
        } else this.#headTimer.refresh();
      }
    }
    return true;
  }

  /** A tick: sends the headers of every stream that waited since the last one. */
  #headWaiting(): void {
    const stale = this.#stale;
    for (const stream of stale) {
      this.#head(stream);
      stream.response.flushHeaders();
      stream.timer = setInterval(() => {
        stream.response.write(': keepalive\n\n');
      }, KEEP_ALIVE_MS);
      stream.timer.unref?.();
    }
    stale.clear();
    this.#stale = this.#fresh;
    this.#fresh = stale;
    if (this.#stale.size > 0 && !this.#closed) this.#headTimer?.refresh();
    else this.#armed = false;
  }

  /**
   * Writes the SDK's headers for a POST's SSE answer, once; with `length` (an answer that is
   * the stream's only frame) as Content-Length, as the SDK's adapter does when the answer is
   * there at once, else chunked.
   */
  #head(stream: FastStream, length?: number): void {
    if (stream.started) return;
    stream.started = true;
    this.#fresh.delete(stream);
    this.#stale.delete(stream);
    const id = this.sdk.sessionId;
    if (this.#headers === undefined || this.#headersFor !== id) {
      // Made once a session (its id does not change): names and values in one flat list.
      this.#headersFor = id;
      this.#headers = [
        'cache-control',
        'no-cache, no-transform',
        'connection',
        'keep-alive',
        'content-type',
        'text/event-stream',
        ...(id === undefined ? [] : ['mcp-session-id', id]),
        'x-accel-buffering',
        'no',
      ];
    }
    stream.response.writeHead(
      200,
      length === undefined ? this.#headers : [...this.#headers, 'content-length', String(length)],
    );
  }

  /** Ends `stream`'s answer, with `last` as its last frame. */
  #finish(id: RequestId, stream: FastStream, last: string): void {
    this.#streams.delete(id);
    clearInterval(stream.timer);
    if (stream.gone) return;
    stream.gone = true;
    // A string, not a Buffer: Node then sends the headers and the frame in one write.
    this.#head(stream, Buffer.byteLength(last));
    stream.response.end(last);
  }

  /** Ends `stream` with no answer (the session closed). */
  #end(stream: FastStream): void {
    clearInterval(stream.timer);
    if (stream.gone) return;
    stream.gone = true;
    this.#head(stream);
    stream.response.end();
  }

  /** Forgets cancelled requests that never answered (their late messages then go nowhere). */
  #forgetGone(): void {
    for (const [id, stream] of this.#streams) {
      if (stream.gone) this.#streams.delete(id);
      if (this.#streams.size <= GONE_CAP / 2) return;
    }
  }
}
