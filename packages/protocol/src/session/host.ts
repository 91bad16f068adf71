/**
 * The host's end of one page connection (docs/wire.md "Transport and session", "Session
 * messages", "Host behaviour"): the session layer a host runs on each socket, around the tool
 * client.
 *
 * 1. The first frame is `session.welcome`: the session id, the grant, the heartbeat, and the
 *    host's proof, its id and the compression word when there are some. The page's
 *    `session.open` is read when it comes (`onOpen`); nothing waits for it, unless the page must
 *    prove itself (`verifyPageProof`, docs/wire.md "The handshake"): then no request leaves
 *    until a `session.open` whose proof passes, and a missing or wrong one closes with 4401.
 * 2. Heartbeats: a `session.ping` every interval; any frame from the page counts as life, and
 *    three silent intervals close the session with 4008, failing what is pending. The silent
 *    decision is deferred past the socket reads (`defer`, setImmediate where there is one): after
 *    a stall of this process the page's answer may be waiting unread. The page's pings are
 *    answered.
 * 3. Calls and batches (`send`) carry their deadline in the payload (`timeoutMs`, the caller's
 *    or 60 s); the host gives up locally with `tool_timeout` only 2 s after it. An aborted
 *    signal rejects at once with `tool_call_cancelled` and sends `session.cancel` for the
 *    request. With `onProgress`, the payload asks for progress (`progress: true`) and each
 *    `session.progress` for the request is handed to it.
 * 4. Closing (either side) fails every pending request at once with `tool_transport_closed`.
 */

import type { DecodedResponse, RequestOptions, ToolClient } from '../client.js';
import { createToolClient } from '../client.js';
import type { CodecLimits, InflateText } from '../codec.js';
import { ToolProtocolError } from '../errors.js';
import type { RequestType, ToolPolicy } from '../messages.js';
import { DEFAULT_CALL_TIMEOUT_MS, isPlainObject } from '../messages.js';
import type { Transport, TransportCloseInfo } from '../transport.js';
import { SESSION_CLOSE } from './close.js';
import { Heartbeat } from './heartbeat.js';
import type { ProgressReport, WelcomeProof } from './messages.js';
import {
  readSessionProgress,
  sessionCancel,
  sessionPing,
  sessionPong,
  sessionWelcome,
} from './messages.js';

/** How long after a call's deadline the host still waits for the page's answer. */
export const DEADLINE_GRACE_MS = 2000;

export interface HostSessionCoreOptions {
  /** The session id: in the welcome and on every request. */
  id: string;
  transport: Transport;
  /** The grant: the highest policy this host calls, told to the page. */
  grant: ToolPolicy;
  /** This host run's id, told to the page in the welcome. */
  hostRun?: string;
  /** Ping this often; three silent intervals close the session. Default 0 (off). */
  heartbeatIntervalMs?: number;
  /** Put in the welcome: the host's proof that it holds the socket's secret (proof.ts). */
  proof?: WelcomeProof;
  /** Put in the welcome: the public id of the host's identity. */
  hostId?: string;
  /**
   * The page must prove itself: true when the proof its `session.open` carries (undefined when
   * it carries none) is right. Until one is, no request is sent; a wrong or missing one closes
   * the session with 4401 (`onOpen` is not called then).
   */
  verifyPageProof?: (proof: string | undefined) => boolean;
  /** Put in the welcome: gzip large payloads (true) or not (false). Default: unsaid. */
  compressPayloads?: boolean;
  /** The local timeout of queries and raw requests. Default 20 s. */
  timeoutMs?: number;
  /** A call's or batch's deadline when its caller names none. Default 60 s. */
  callTimeoutMs?: number;
  limits?: CodecLimits;
  /** The gunzip step for compressed responses. Default: fflate. */
  inflate?: InflateText;
  /** Runs the silence decision after pending reads. Default: setImmediate where there is one. */
  defer?: (decide: () => void) => void;
  /** The page's `session.open` payload, as it came (the caller reads it). */
  onOpen?: (payload: unknown) => void;
  /** Other traffic from the page (`tool.catalog.changed`, unknown messages), parsed. */
  onMessage?: (message: Record<string, unknown>) => void;
  /** The session ended (once); pending requests have been failed. */
  onClose?: (info: TransportCloseInfo) => void;
}

/** How a call or batch is sent (`HostSessionCore.send`). */
export interface ToolRequestOptions {
  /** Aborting it cancels the request: `session.cancel`, and `tool_call_cancelled` at once. */
  signal?: AbortSignal;
  /** The deadline the page keeps (ms); the host waits 2 s more. Default `callTimeoutMs`; 0: none. */
  timeoutMs?: number;
  /** Asks the page for progress; each report, growing, comes here. */
  onProgress?: (report: ProgressReport) => void;
  /** False for a tool that may act: a timeout or a closed socket after sending is not retryable. */
  idempotent?: boolean;
}

const hasSetImmediate = (): boolean =>
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function';

/** setImmediate, looked up when used (a test's fake clock may have replaced it). */
const afterReads = (decide: () => void): void => {
  if (hasSetImmediate())
    (globalThis as { setImmediate: (fn: () => void) => void }).setImmediate(decide);
  else decide();
};

/** Why a caller cancelled, as a short text for the page; undefined when it gave none. */
function reasonText(reason: unknown): string | undefined {
  if (typeof reason === 'string') return reason.slice(0, 256);
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message.slice(0, 256);
  return undefined;
}

export class HostSessionCore {
  readonly id: string;
  #client: ToolClient;
  #transport: Transport;
  #options: HostSessionCoreOptions;
  #heartbeat = new Heartbeat();
  #closeInfo: TransportCloseInfo | null = null;
  #callTimeoutMs: number;
  /** Requests wait on it until the page proved itself; undefined when they need not. */
  #gate: Promise<void> | undefined;
  #settleGate: ((error?: Error) => void) | undefined;

  constructor(options: HostSessionCoreOptions) {
    this.id = options.id;
    this.#options = options;
    this.#callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    // Every frame from the page is a sign of life: watch them on the way to the client.
    const socket = options.transport;
    const watched: Transport = {
      send: (frame) => socket.send(frame),
      close: (info) => socket.close(info),
    };
    const heartbeat = this.#heartbeat;
    socket.onmessage = (frame) => {
      heartbeat.heardAt = Date.now();
      watched.onmessage?.(frame);
    };
    socket.onclose = (info) => watched.onclose?.(info);
    this.#transport = watched;
    const heartbeatMs = options.heartbeatIntervalMs ?? 0;
    if (options.verifyPageProof) {
      this.#gate = new Promise<void>((resolve, reject) => {
        this.#settleGate = (error) => (error ? reject(error) : resolve());
      });
      // Nobody may be waiting when it fails: the requests chained on it get the error.
      this.#gate.catch(() => {});
    }
    // The welcome goes first, before any request.
    this.#sendQuietly(
      JSON.stringify(
        sessionWelcome({
          sessionId: options.id,
          hostRun: options.hostRun ?? '',
          maxToolPolicy: options.grant,
          heartbeatIntervalMs: heartbeatMs,
          ...(options.proof === undefined ? {} : { proof: options.proof }),
          ...(options.hostId === undefined ? {} : { hostId: options.hostId }),
          ...(options.compressPayloads === undefined
            ? {}
            : { compressPayloads: options.compressPayloads }),
        }),
      ),
    );
    this.#client = createToolClient(watched, {
      sessionId: options.id,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.inflate ? { inflate: options.inflate } : {}),
      onMessage: this.#onMessage,
      onClose: this.#finish,
      onCancel: this.#onCancel,
    });
    this.#heartbeat.start({
      intervalMs: heartbeatMs,
      onBeat: () => this.#sendQuietly(JSON.stringify(sessionPing(this.id))),
      onSilent: () =>
        this.close(`the page stopped answering for ${3 * heartbeatMs} ms`, SESSION_CLOSE.silent),
      defer: options.defer ?? afterReads,
    });
  }

  get isOpen(): boolean {
    return this.#closeInfo === null;
  }

  /** How the session ended; null while it is open. */
  get closeInfo(): TransportCloseInfo | null {
    return this.#closeInfo;
  }

  get pendingCount(): number {
    return this.#client.pendingCount;
  }

  /**
   * Sends a `tool.call` or `tool.batch` under its deadline. `payload` is the
   * request's own object: it gains `timeoutMs`, and `progress: true` with `onProgress`.
   */
  send(
    type: 'tool.call' | 'tool.batch',
    payload: Record<string, unknown>,
    options: ToolRequestOptions = {},
  ): Promise<DecodedResponse> {
    const deadline = options.timeoutMs ?? this.#callTimeoutMs;
    const timed = deadline > 0 && Number.isFinite(deadline);
    if (timed) payload.timeoutMs = deadline;
    if (options.onProgress) payload.progress = true;
    const request: RequestOptions = { timeoutMs: timed ? deadline + DEADLINE_GRACE_MS : 0 };
    if (options.signal) request.signal = options.signal;
    if (options.onProgress) request.onProgress = options.onProgress;
    if (options.idempotent === false) request.idempotent = false;
    return this.#afterProof(() => this.#client.request(type, payload, request));
  }

  /** Any request as it is: the payload untouched, the client's timeout (default 20 s). */
  request(
    type: RequestType,
    payload: unknown,
    options: RequestOptions = {},
  ): Promise<DecodedResponse> {
    return this.#afterProof(() => this.#client.request(type, payload, options));
  }

  /** Whether the page proved itself (always true when it need not). */
  get proven(): boolean {
    return this.#gate === undefined;
  }

  /** Runs `send` now, or once the page proved itself (it fails if the session closes first). */
  #afterProof(send: () => Promise<DecodedResponse>): Promise<DecodedResponse> {
    return this.#gate ? this.#gate.then(send) : send();
  }

  /** Ends the session: pending requests fail at once with `tool_transport_closed`. */
  close(reason = 'closed by the host', code = 1000): void {
    if (!this.isOpen) return;
    const info = { code, reason };
    // The socket gets our code; the client then fails pending requests at once (its own close
    // of the transport is a no-op by then). The close handshake finishes in the background.
    this.#transport.close(info);
    this.#client.close();
    this.#finish(info);
  }

  /** A frame of our own (welcome, ping, pong, cancel): a closing socket is not an error here. */
  #sendQuietly(frame: string): void {
    try {
      this.#transport.send(frame);
    } catch {
      // The close that follows fails what is pending.
    }
  }

  #onCancel = (requestId: string, type: RequestType, reason: unknown): void => {
    if (type === 'tool.query' || !this.isOpen) return;
    const text = reasonText(reason);
    this.#sendQuietly(
      JSON.stringify(sessionCancel({ requestId, ...(text ? { reason: text } : {}) }, this.id)),
    );
  };

  #onMessage = (message: unknown): void => {
    if (!isPlainObject(message)) return;
    switch (message.type) {
      case 'session.open': {
        const verify = this.#options.verifyPageProof;
        if (verify && this.#gate) {
          const payload = isPlainObject(message.payload) ? message.payload : {};
          const proof = typeof payload.proof === 'string' ? payload.proof : undefined;
          if (!verify(proof)) {
            this.close(
              proof === undefined
                ? 'the page sent no proof that it holds the pairing'
                : 'the page did not prove it holds the pairing',
              SESSION_CLOSE.pairingRefused,
            );
            return;
          }
          this.#gate = undefined;
          this.#settleGate?.();
        } else if (verify) {
          return; // proven already: a second session.open is not read
        }
        this.#options.onOpen?.(message.payload);
        return;
      }
      case 'session.ping':
        if (typeof message.id === 'string') {
          this.#sendQuietly(JSON.stringify(sessionPong({ id: message.id })));
        }
        return;
      case 'session.pong':
        return;
      case 'session.progress': {
        const report = readSessionProgress(message);
        if (!report) return;
        const { requestId, ...progress } = report;
        this.#client.progress(requestId, progress);
        return;
      }
      default:
        this.#options.onMessage?.(message);
    }
  };

  #finish = (info: TransportCloseInfo): void => {
    if (this.#closeInfo) return;
    this.#closeInfo = info;
    this.#heartbeat.stop();
    this.#settleGate?.(new ToolProtocolError('tool_transport_closed', 'The connection is closed.'));
    this.#options.onClose?.(info);
  };
}
