/**
 * createToolClient: the host side of the wire (docs/wire.md "Host behaviour").
 *
 * 1. Every request gets an id unique on this connection; a caller-chosen id that was used
 *    before is refused locally (`tool_request_duplicate_id`).
 * 2. Responses are correlated by `replyTo` only (the envelope is never compressed), then their
 *    payload is decoded (`$ansightEncoding`).
 * 3. Each request times out (default 20 s) with `tool_timeout`; an aborted signal gives
 *    `tool_call_cancelled` at once, and `onCancel` hears of a request that had left.
 * 4. When the transport closes, every pending request fails at once with
 *    `tool_transport_closed` and every timer is cleared. Both codes are retryable unless the
 *    request was not idempotent (`idempotent: false`) and had left: the page may have acted.
 * 5. A reply that names a pending request but cannot be used fails that request at once with
 *    `tool_protocol_invalid_response` (`details.reason`: unreadable, reply_to_missing,
 *    type_invalid, type_mismatch, payload_encoding, payload_invalid), never after the timeout.
 *    The id is read from `replyTo`, else from an `id` ending in `.response`; from the text when
 *    the frame is not JSON.
 * 6. Frames that are not responses to a pending request go to `onMessage` untouched; replies
 *    that fail no request (no pending request of that id, or no readable id) are reported to
 *    `onError` as well. Nothing here throws out of the transport's callback.
 */
import type { CodecLimits, DecodeOptions, InflateText } from './codec.js';
import { parseFrame } from './codec.js';
import { ToolProtocolError } from './errors.js';
import { isoNowBySecond, randomHex } from './ids.js';
import { DEFAULT_MAX_DEPTH, FRAME_DEPTH_ALLOWANCE } from './json.js';
import type {
  BatchPayload,
  BatchResultPayload,
  CallPayload,
  CatalogPayload,
  ErrorPayload,
  JsonValue,
  QueryPayload,
  RequestType,
  ResponseType,
  ResultPayload,
} from './messages.js';
import { isPlainObject, isResponseType, isToolCapability, TOOL_CAPABILITY } from './messages.js';
import type { DecodedResponse, InvalidReason } from './reply.js';
import {
  clip,
  invalidResponse,
  pendingIdIn,
  readResponse,
  requestIdOfResponseId,
} from './reply.js';
import type { ProgressReport } from './session/messages.js';
import type { Transport, TransportCloseInfo } from './transport.js';

export type { DecodedResponse } from './reply.js';

export const DEFAULT_TIMEOUT_MS = 20_000;

export interface ToolClientOptions {
  /** Put on every request; the host assigns it. */
  sessionId?: string | null;
  timeoutMs?: number;
  limits?: CodecLimits;
  /** The gunzip step for `$ansightEncoding` responses (a Node host passes node:zlib). Default fflate. */
  inflate?: InflateText;
  /** Frames that are not answers to a pending request (other traffic, late replies). */
  onMessage?: (message: unknown, frame: string) => void;
  /**
   * A reply dropped without failing a request: it names no pending request (late, after a
   * timeout or an abort, or an id never sent) or no id can be read from it. The error is
   * `tool_protocol_invalid_response` with `details.reason` `unmatched` or `unreadable`.
   */
  onError?: (error: ToolProtocolError, frame: string) => void;
  /** The transport closed; pending requests have already been failed. */
  onClose?: (info: TransportCloseInfo) => void;
  /**
   * A request that had been sent was cancelled by its signal (it has already been rejected
   * with `tool_call_cancelled`): tell the page, if the protocol above has a way.
   */
  onCancel?: (requestId: string, type: RequestType, reason: unknown) => void;
}

export interface RequestOptions {
  /** A caller-chosen request id; refused if used before on this connection. */
  id?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * False when sending the request twice may do twice what it does (a tool that writes): a
   * `tool_timeout` or `tool_transport_closed` after it was sent is then not retryable. Default true.
   */
  idempotent?: boolean;
  /** Progress the page reports for this request (`progress()`), each larger than the last. */
  onProgress?: (report: ProgressReport) => void;
}

export interface ToolClient {
  query(payload?: QueryPayload, options?: RequestOptions): Promise<CatalogPayload>;
  /** Resolves the tool.result payload; rejects with ToolProtocolError on tool.error. */
  call(payload: CallPayload, options?: RequestOptions): Promise<ResultPayload>;
  batch(payload: BatchPayload, options?: RequestOptions): Promise<BatchResultPayload>;
  /** Any request; resolves with whatever response came back, tool.error included. */
  request(type: RequestType, payload: unknown, options?: RequestOptions): Promise<DecodedResponse>;
  /**
   * Hands a progress report to pending request `requestId`'s `onProgress`: true when it went
   * there, false when no such request listens or `progress` did not grow.
   */
  progress(requestId: string, report: ProgressReport): boolean;
  readonly pendingCount: number;
  readonly closed: boolean;
  setSessionId(sessionId: string | null): void;
  close(): void;
}

interface Pending {
  type: RequestType;
  resolve(response: DecodedResponse): void;
  reject(error: Error): void;
  /** When `tool_timeout` fails it (`performance.now()` ms; Infinity: never), and its `timeoutMs`. */
  deadline: number;
  timeoutMs: number;
  /** Only when the caller passed a signal: the listener to take off it again. */
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /** What `tool_timeout` and `tool_transport_closed` say of retrying (the request had left). */
  idempotent: boolean;
  onProgress: ((report: ProgressReport) => void) | undefined;
  lastProgress: number;
}

const EXPECTED: Record<RequestType, ResponseType> = {
  'tool.query': 'tool.catalog',
  'tool.call': 'tool.result',
  'tool.batch': 'tool.batch.result',
};

export function createToolClient(
  transport: Transport,
  options: ToolClientOptions = {},
): ToolClient {
  const pending = new Map<string, Pending>();
  // Generated ids are unique by construction (a per-client nonce and a counter), so only
  // caller-chosen ids need remembering.
  const explicitIds = new Set<string>();
  const nonce = randomHex(6);
  let counter = 0;
  let closed = false;
  let sessionId = options.sessionId ?? null;
  const maxDepth = (options.limits?.maxDepth ?? DEFAULT_MAX_DEPTH) + FRAME_DEPTH_ALLOWANCE;
  const limits: DecodeOptions = {
    maxInflatedBytes: options.limits?.maxInflatedBytes,
    maxDepth,
    ...(options.inflate ? { inflate: options.inflate } : {}),
  };

  // One timer for every pending request, armed for the earliest deadline. A request that
  // settles leaves it armed (re-arming per request cost Node's timer list an insert and a
  // removal a call); when it fires early it fails what is overdue and arms for the next. It
  // holds the process open only while something is pending, as a timer per request did.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  const arm = (at: number): void => {
    if (at >= timerAt) {
      if (timer !== undefined) (timer as { ref?: () => void }).ref?.();
      return;
    }
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(sweep, Math.max(0, at - performance.now()));
  };
  const sweep = (): void => {
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [id, entry] of pending) {
      if (entry.deadline <= now) expire(id, entry.timeoutMs);
      else if (entry.deadline < next) next = entry.deadline;
    }
    if (next !== Number.POSITIVE_INFINITY) arm(next);
  };

  const settle = (id: string): Pending | undefined => {
    const entry = pending.get(id);
    if (!entry) return undefined;
    pending.delete(id);
    if (pending.size === 0 && timer !== undefined) (timer as { unref?: () => void }).unref?.();
    if (entry.onAbort) entry.signal?.removeEventListener('abort', entry.onAbort);
    return entry;
  };

  // One function for every request's timer (its id and timeout are the timer's arguments), so
  // a request allocates no closure for it.
  const expire = (id: string, timeoutMs: number): void => {
    const entry = settle(id);
    entry?.reject(
      new ToolProtocolError('tool_timeout', `No response to "${id}" within ${timeoutMs} ms.`, {
        retryable: entry.idempotent,
        details: { requestId: id, timeoutMs },
      }),
    );
  };

  /** Fails the pending request `id` with `tool_protocol_invalid_response`. */
  const invalid = (
    id: string,
    reason: InvalidReason,
    message: string,
    extra: Record<string, JsonValue> = {},
    cause?: unknown,
  ): void => {
    settle(id)?.reject(invalidResponse(id, reason, message, extra, cause));
  };

  /** A reply that fails no request: reported, never thrown. */
  const dropped = (
    requestId: string | null,
    reason: 'unmatched' | 'unreadable',
    message: string,
    frame: string,
    extra: Record<string, JsonValue> = {},
  ): void => {
    if (!options.onError) return;
    try {
      options.onError(invalidResponse(requestId, reason, message, extra), frame);
    } catch {
      // A throwing hook must not break the connection's message loop.
    }
  };

  transport.onmessage = (frame: string) => {
    let message: unknown;
    try {
      message = parseFrame(frame, limits);
    } catch (error) {
      const causeCode =
        error instanceof ToolProtocolError ? error.code : 'tool_payload_decode_failed';
      const why = error instanceof Error ? error.message : String(error);
      // Not JSON we can read. If its text still names a pending request, that request fails now.
      const id = pendingIdIn(frame, pending);
      if (id !== undefined) {
        invalid(
          id,
          'unreadable',
          `The response to "${id}" cannot be read: ${why}`,
          { causeCode },
          error,
        );
        return;
      }
      dropped(null, 'unreadable', `A frame that cannot be read was dropped: ${why}`, frame, {
        causeCode,
      });
      options.onMessage?.(undefined, frame);
      return;
    }
    if (!isPlainObject(message)) {
      options.onMessage?.(message, frame);
      return;
    }
    const replyTo = message.replyTo;
    const type = message.type;
    if (typeof replyTo !== 'string' || !isResponseType(type)) {
      // Not a well-formed response. A tool message that still names a pending request (by
      // replyTo, or by an id ending in `.response`) fails it; anything else is other traffic.
      const id = typeof replyTo === 'string' ? replyTo : requestIdOfResponseId(message.id);
      if (id !== undefined && pending.has(id) && isToolCapability(message.capability)) {
        if (typeof replyTo !== 'string') {
          invalid(id, 'reply_to_missing', `The response to "${id}" has no replyTo.`, {
            received: clip(type),
          });
        } else {
          const expected = EXPECTED[(pending.get(id) as Pending).type];
          invalid(
            id,
            'type_invalid',
            `The response to "${id}" has type ${JSON.stringify(clip(type))}; expected ${expected} or tool.error.`,
            { expected, received: clip(type) },
          );
        }
        return;
      }
      if (isResponseType(type)) {
        dropped(
          clip(id),
          'unmatched',
          'A response that names no pending request was dropped.',
          frame,
        );
      }
      options.onMessage?.(message, frame);
      return;
    }
    const entry = settle(replyTo);
    if (!entry) {
      dropped(
        clip(replyTo),
        'unmatched',
        `A ${type} for "${clip(replyTo)}", which is not pending, was dropped.`,
        frame,
      );
      options.onMessage?.(message, frame);
      return;
    }
    const response = readResponse(EXPECTED[entry.type], message, replyTo, type, frame, limits);
    if (response instanceof ToolProtocolError) entry.reject(response);
    else entry.resolve(response);
  };

  transport.onclose = (info: TransportCloseInfo) => {
    if (closed) return;
    closed = true;
    failAll(info);
    options.onClose?.(info);
  };

  const failAll = (info: TransportCloseInfo): void => {
    clearTimeout(timer);
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
    const reason = info.reason ? `: ${info.reason}` : '';
    for (const id of [...pending.keys()]) {
      const entry = settle(id);
      entry?.reject(
        new ToolProtocolError(
          'tool_transport_closed',
          `The connection closed before a response arrived${reason}.`,
          {
            retryable: entry.idempotent,
            details: { code: info.code ?? null, requestId: id },
          },
        ),
      );
    }
  };

  const nextId = (type: RequestType): string => {
    return `${type.slice(5)}-${nonce}-${(++counter).toString(36)}`;
  };

  const request = (
    type: RequestType,
    payload: unknown,
    requestOptions: RequestOptions = {},
  ): Promise<DecodedResponse> => {
    if (closed) {
      return Promise.reject(
        new ToolProtocolError('tool_transport_closed', 'The connection is closed.'),
      );
    }
    const explicit = requestOptions.id;
    if (explicit !== undefined && (typeof explicit !== 'string' || explicit === '')) {
      return Promise.reject(new TypeError('A request id must be a non-empty string.'));
    }
    const id = explicit ?? nextId(type);
    if (
      explicit !== undefined &&
      (explicitIds.has(id) || pending.has(id) || id.includes(`-${nonce}-`))
    ) {
      return Promise.reject(
        new ToolProtocolError(
          'tool_request_duplicate_id',
          `The request id "${id}" was already used on this connection.`,
        ),
      );
    }
    const signal = requestOptions.signal;
    if (signal?.aborted) {
      return Promise.reject(
        new ToolProtocolError(
          'tool_call_cancelled',
          'The request was cancelled before it was sent.',
          {
            cause: signal.reason,
          },
        ),
      );
    }
    if (explicit !== undefined) explicitIds.add(id);
    const timeoutMs = requestOptions.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const frame = JSON.stringify({
      type,
      id,
      sessionId,
      sentAt: isoNowBySecond(),
      capability: TOOL_CAPABILITY,
      payload: payload ?? {},
    });
    return new Promise<DecodedResponse>((resolve, reject) => {
      const entry: Pending = {
        type,
        resolve,
        reject,
        deadline: Number.POSITIVE_INFINITY,
        timeoutMs,
        signal: undefined,
        onAbort: undefined,
        idempotent: requestOptions.idempotent !== false,
        onProgress: requestOptions.onProgress,
        lastProgress: Number.NEGATIVE_INFINITY,
      };
      pending.set(id, entry);
      if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
        entry.deadline = performance.now() + timeoutMs;
        arm(entry.deadline);
      }
      if (signal) {
        const onAbort = () => {
          const entry = settle(id);
          if (!entry) return;
          entry.reject(
            new ToolProtocolError('tool_call_cancelled', `Request "${id}" was cancelled.`, {
              cause: signal.reason,
            }),
          );
          try {
            options.onCancel?.(id, type, signal.reason);
          } catch {
            // The caller has its answer; a failing hook must not turn into another.
          }
        };
        entry.signal = signal;
        entry.onAbort = onAbort;
        signal.addEventListener('abort', onAbort, { once: true });
      }
      try {
        transport.send(frame);
      } catch (error) {
        settle(id)?.reject(
          new ToolProtocolError(
            'tool_transport_closed',
            `The request could not be sent: ${(error as Error).message}`,
            {
              cause: error,
            },
          ),
        );
      }
    });
  };

  const expect = async <T>(
    type: RequestType,
    payload: unknown,
    requestOptions?: RequestOptions,
  ): Promise<T> => {
    const response = await request(type, payload, requestOptions);
    if (response.type === 'tool.error')
      throw ToolProtocolError.fromPayload(response.payload as ErrorPayload);
    return response.payload as T;
  };

  return {
    query: (payload = {}, requestOptions) =>
      expect<CatalogPayload>('tool.query', payload, requestOptions),
    call: (payload, requestOptions) => expect<ResultPayload>('tool.call', payload, requestOptions),
    batch: (payload, requestOptions) =>
      expect<BatchResultPayload>('tool.batch', payload, requestOptions),
    request,
    progress(requestId, report) {
      const entry = pending.get(requestId);
      if (!entry?.onProgress || !(report.progress > entry.lastProgress)) return false;
      entry.lastProgress = report.progress;
      try {
        entry.onProgress(report);
      } catch {
        // A throwing listener must not break the connection's message loop.
      }
      return true;
    },
    get pendingCount() {
      return pending.size;
    },
    get closed() {
      return closed;
    },
    setSessionId(value: string | null) {
      sessionId = value;
    },
    close() {
      if (closed) return;
      closed = true;
      failAll({ reason: 'closed by the client' });
      transport.close({ reason: 'closed by the client' });
    },
  };
}
