/**
 * Request dispatch: reads a message, decides whether it is a tool request at all, and answers
 * tool.query / tool.call / tool.batch with exactly one response.
 *
 * 1. Traffic that is not a tool request (other capabilities, other types, responses) passes
 *    through: `undefined`.
 * 2. A tool request that cannot be read gets `tool_protocol_invalid_request` (or
 *    `tool_payload_too_deep`); with no readable id the response id is `tool.error.<32 hex>`
 *    and there is no replyTo. An unknown `tool.*` type gets `tool_protocol_unknown_type`.
 * 3. Batches run their calls sequentially and stop after the first failure unless
 *    `continueOnError` (docs/wire.md "tool.batch"); a cancel or the batch's deadline stops them
 *    whatever `continueOnError` says.
 * 4. A call or batch is a RunningRequest from its payload to its answer (deadlines.ts): a
 *    cancelled call is answered `tool_call_cancelled`.
 * 5. Never throws: whatever goes wrong inside becomes a coded tool.error.
 */
import type { CallPipeline } from './call.js';
import { CALL, CALL_WALKED, failure } from './call.js';
import type { CatalogState } from './catalog.js';
import type { CodecLimits, GzipAsync, InflateText } from './codec.js';
import { decodeWith, inflateTextWith, PAYLOAD_ENCODING, parseFrame } from './codec.js';
import type { Deadlines, HandleScope, RunningRequest } from './deadlines.js';
import type { DeflateModule } from './deflate-load.js';
import { errorPayload, ToolProtocolError } from './errors.js';
import type { BridgeResponse, RequestInfo, WriteOptions } from './frame.js';
import { compressResponse, describe, writeResponse } from './frame.js';
import { assertDepth } from './json.js';
import type { BatchItem, BatchResultPayload, CallOutcome, ErrorPayload } from './messages.js';
import {
  isPlainObject,
  isRequestType,
  isResponseType,
  isToolCapability,
  MAX_BATCH_CALLS,
} from './messages.js';
import { answerQuery } from './query.js';

/** Looks like a tool request even though it does not parse: answered, not passed through. */
const TOOL_REQUEST_MARKER = /"type"\s*:\s*"tool\.(query|call|batch)"/;

/** The catalog as the bridge holds it: built once per invalidation. */
export interface CatalogHolder {
  /** The built state, once there is one (calls then skip an await). */
  current(): CatalogState | undefined;
  /** The state, building it if needed. */
  get(): Promise<CatalogState>;
}

export interface DispatchOptions {
  catalog: CatalogHolder;
  runCall: CallPipeline;
  deadlines: Deadlines;
  /** Limits on an incoming frame and its payload (depth includes the envelope's levels). */
  frameLimits: CodecLimits & { maxDepth: number };
  /** How responses are written: the frame's depth limit. */
  write: WriteOptions;
  /**
   * Asked once per response: gzip its large payload with this (asynchronously), or `false`:
   * send it as it is.
   */
  compress: () => GzipAsync | false;
  /** fflate, loaded when a request's payload must be inflated. */
  loadDeflate: () => Promise<DeflateModule>;
}

export type Handle = (message: unknown, scope?: HandleScope) => Promise<BridgeResponse | undefined>;

export function createDispatch(options: DispatchOptions): Handle {
  const { catalog, runCall, deadlines, frameLimits, compress, loadDeflate } = options;
  const written: WriteOptions = options.write;
  // Payloads whose values were all walked already (batches, calls with evidence).
  const writtenWalked: WriteOptions = { ...written, walked: true };

  const fail = (request: RequestInfo | undefined, error: ErrorPayload): BridgeResponse =>
    writeResponse(request, 'tool.error', error, written);

  const handleQuery = async (request: RequestInfo, payload: unknown): Promise<BridgeResponse> => {
    const state = await catalog.get();
    if (!state.guard.discoveryEnabled) {
      return fail(
        request,
        errorPayload('tool_discovery_disabled', 'Tool discovery is disabled on this page.'),
      );
    }
    return writeResponse(request, 'tool.catalog', await answerQuery(state, payload), written);
  };

  const handleCall = async (
    request: RequestInfo,
    payload: unknown,
    running: RunningRequest,
  ): Promise<BridgeResponse> => {
    const state = catalog.current() ?? (await catalog.get());
    // With evidence the pieces are walked as they come (each evidence call must know whether it
    // failed); without, the result is walked once, as the response is written.
    const walk = isPlainObject(payload) && payload.after !== undefined && payload.after !== null;
    const outcome = await runCall(state, payload, request, walk ? CALL_WALKED : CALL, running);
    // Cancelled while pending, even past its tool (evidence, checks): the caller gave up.
    if (running.cancelled) return fail(request, running.cancelled.toPayload());
    if (!outcome.success) return fail(request, outcome.error);
    return writeResponse(request, 'tool.result', outcome, walk ? writtenWalked : written);
  };

  const handleBatch = async (
    request: RequestInfo,
    payload: unknown,
    running: RunningRequest,
  ): Promise<BridgeResponse> => {
    if (!isPlainObject(payload) || !Array.isArray(payload.calls)) {
      return fail(
        request,
        errorPayload('tool_batch_payload_invalid', 'The tool.batch payload needs a calls array.'),
      );
    }
    const calls = payload.calls as unknown[];
    if (calls.length === 0 || calls.length > MAX_BATCH_CALLS) {
      return fail(
        request,
        errorPayload(
          'tool_batch_size_invalid',
          `A batch holds 1 to ${MAX_BATCH_CALLS} calls, not ${calls.length}.`,
          {
            requested: calls.length,
            max: MAX_BATCH_CALLS,
          },
        ),
      );
    }
    const continueOnError = payload.continueOnError === true;
    const state = await catalog.get();
    const results: BatchItem[] = [];
    let completed = 0;
    let stopped = false;
    for (let index = 0; index < calls.length; index++) {
      const call = calls[index];
      let outcome: CallOutcome;
      let callId: string | null = null;
      if (!isPlainObject(call)) {
        outcome = failure(
          null,
          errorPayload('tool_batch_call_invalid', `Batch item ${index} is not a JSON object.`),
        );
      } else {
        callId = typeof call.callId === 'string' ? call.callId : null;
        outcome = await runCall(state, call, request, CALL_WALKED, running);
        completed++;
      }
      results.push({ index, callId, ...outcome } as BatchItem);
      if (!outcome.success && !continueOnError) break;
      // A cancel, or the batch's deadline, ends it: the next item, which never runs, fails as
      // the running one would have (unless the running one already did).
      if (index + 1 < calls.length && (running.cancelled || running.expired())) {
        stopped = true;
        const error = running.cancelled?.toPayload() ?? timedOut(running);
        const next = calls[index + 1];
        if (outcome.success || outcome.error.code !== error.code) {
          const item = isPlainObject(next) ? next : {};
          results.push({
            index: index + 1,
            callId: typeof item.callId === 'string' ? item.callId : null,
            ...failure(typeof item.toolId === 'string' ? item.toolId : null, error),
          } as BatchItem);
        }
        break;
      }
    }
    const batch: BatchResultPayload = {
      success: results.length === calls.length && results.every((item) => item.success),
      completed,
      requested: calls.length,
      stoppedEarly: stopped || results.length < calls.length,
      results,
    };
    // Every item was walked as it ran (a batch stops at the first failure), so the writing
    // does not walk the batch again.
    return writeResponse(request, 'tool.batch.result', batch, writtenWalked);
  };

  const answer: Handle = async (message, scope) => {
    // The caller's deadline counts from receipt, before any decoding.
    const receivedAt = Date.now();
    let value = message;
    if (typeof message === 'string') {
      try {
        value = parseFrame(message, frameLimits);
      } catch (error) {
        if (!TOOL_REQUEST_MARKER.test(message.slice(0, 4096))) return undefined;
        const code =
          error instanceof ToolProtocolError && error.code === 'tool_payload_too_deep'
            ? 'tool_payload_too_deep'
            : 'tool_protocol_invalid_request';
        return fail(
          undefined,
          errorPayload(code, `The tool request cannot be read: ${describe(error)}`),
        );
      }
    }
    if (!isPlainObject(value) || typeof value.type !== 'string') return undefined;
    if (!isToolCapability(value.capability) || isResponseType(value.type)) return undefined;
    const id = typeof value.id === 'string' && value.id.trim() !== '' ? value.id : undefined;
    if (!isRequestType(value.type)) {
      if (!value.type.startsWith('tool.')) return undefined;
      const request = id ? { id, sessionId: readSession(value.sessionId) } : undefined;
      return fail(
        request,
        errorPayload(
          'tool_protocol_unknown_type',
          `Unknown tool message type "${value.type.slice(0, 64)}".`,
        ),
      );
    }
    if (!id) {
      return fail(
        undefined,
        errorPayload('tool_protocol_invalid_request', 'The tool request has no id.'),
      );
    }
    if (
      value.sessionId !== undefined &&
      value.sessionId !== null &&
      typeof value.sessionId !== 'string'
    ) {
      return fail(
        { id, sessionId: null },
        errorPayload('tool_protocol_invalid_request', 'sessionId must be a string.'),
      );
    }
    const request: RequestInfo = { id, sessionId: readSession(value.sessionId) };
    let running: RunningRequest | undefined;
    try {
      if (typeof message !== 'string') assertDepth(value, frameLimits.maxDepth);
      const payload = await decodeRequestPayload(value.payload, frameLimits, loadDeflate);
      if (value.type === 'tool.query') return await handleQuery(request, payload);
      running = deadlines.open(request, payload, scope, receivedAt);
      return value.type === 'tool.call'
        ? await handleCall(request, payload, running)
        : await handleBatch(request, payload, running);
    } catch (error) {
      if (error instanceof ToolProtocolError) return fail(request, error.toPayload());
      return fail(
        request,
        errorPayload('tool_protocol_bridge_failed', `The tool bridge failed: ${describe(error)}`),
      );
    } finally {
      if (running) deadlines.close(running);
    }
  };
  return async (message, scope) => {
    const response = await answer(message, scope);
    if (!response) return undefined;
    const gzipAsync = compress();
    return gzipAsync ? compressResponse(response, gzipAsync) : response;
  };
}

/**
 * A request's payload, decoded (codec.ts decodePayload): fflate is loaded only for a payload
 * that names the gzip encoding; every other payload, wrapped or not, is decoded without it.
 */
async function decodeRequestPayload(
  payload: unknown,
  limits: CodecLimits,
  loadDeflate: () => Promise<DeflateModule>,
): Promise<unknown> {
  let inflate: InflateText = noInflate;
  let decode: (text: string) => Uint8Array | undefined = noInflate;
  if ((payload as { $ansightEncoding?: unknown } | null)?.$ansightEncoding === PAYLOAD_ENCODING) {
    // The base64 decoder comes with fflate: only a gzipped payload needs either.
    const { Gunzip, decodeBase64 } = await loadDeflate();
    inflate = (compressed, maxBytes) => inflateTextWith(Gunzip, compressed, maxBytes);
    decode = decodeBase64;
  }
  return decodeWith(payload, limits, inflate, decode).payload;
}

/** Never called: decodeWith decodes and inflates only a payload in the gzip encoding. */
function noInflate(): never {
  throw new Error('no gunzip for this payload');
}

/** A batch item that never ran: the batch's deadline passed before it (so a retry is safe). */
function timedOut(running: RunningRequest): ErrorPayload {
  return errorPayload(
    'tool_execution_timeout',
    `The batch did not finish within ${running.timeoutMs} ms.`,
    { timeoutMs: running.timeoutMs },
    true,
  );
}

function readSession(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
