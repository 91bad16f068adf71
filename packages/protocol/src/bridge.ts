/**
 * createToolBridge: the page (SDK endpoint) side of the wire (WIRE.md), over any ToolSource.
 *
 * 1. `handle` answers tool.query / tool.call / tool.batch with exactly one response, and
 *    returns undefined for traffic that is not a tool request (other capabilities, other types).
 * 2. A tool request that cannot be read gets `tool_protocol_invalid_request`; with no readable
 *    id the response id is `tool.error.<32 hex>` and there is no replyTo.
 * 3. tool.call checks run in WIRE's order, each with its code (see executeCall).
 * 4. Batches run sequentially, stop after the first failure unless `continueOnError`.
 * 5. Response payloads >= 32 KiB are gzip-wrapped when that is smaller; a payload that cannot
 *    be serialized becomes `tool_protocol_bridge_failed`.
 * 6. `handle` never throws: whatever goes wrong inside becomes a coded tool.error.
 */
import type { BridgeTool, CatalogState, ToolContext, ToolSource } from './catalog.js';
import {
  answerQuery,
  buildCatalogState,
  createDefinitionCache,
  evaluateAvailability,
  normalizeRuntime,
  runtimeFromFailure,
} from './catalog.js';
import type { CodecLimits } from './codec.js';
import { decodePayload, parseFrame } from './codec.js';
import { errorPayload, ToolProtocolError } from './errors.js';
import type { BridgeResponse, RequestInfo, WriteOptions } from './frame.js';
import { describe, writeResponse } from './frame.js';
import type { Guard, GuardPreset } from './guard.js';
import { isExecutable, POLICY_RANK, resolveGuard } from './guard.js';
import {
  assertDepth,
  checkSerializable,
  DEFAULT_MAX_DEPTH,
  FRAME_DEPTH_ALLOWANCE,
} from './json.js';
import type {
  AfterRequest,
  BatchItem,
  BatchResultPayload,
  CallOutcome,
  ErrorPayload,
  JsonSchema,
  JsonValue,
  ResponseType,
  ToolPolicy,
} from './messages.js';
import {
  isPlainObject,
  isRequestType,
  isResponseType,
  isToolCapability,
  MAX_BATCH_CALLS,
} from './messages.js';
import { isToolFailureOutcome, isToolResultOutcome } from './outcome.js';
import type { Validate, ValidatorProvider } from './validator.js';
import { schemaFailure } from './validator.js';

/** Maps an `after.include` name to the built-in tool that captures it. */
export interface EvidenceProvider {
  toolId: string;
  /** The `after` field holding this tool's arguments, e.g. `visualTreeArguments`. */
  argumentsField?: string;
}

export const DEFAULT_EVIDENCE: Readonly<Record<string, EvidenceProvider>> = {
  visualTree: { toolId: 'ui.get_visual_tree', argumentsField: 'visualTreeArguments' },
  visual_tree: { toolId: 'ui.get_visual_tree', argumentsField: 'visualTreeArguments' },
  tree: { toolId: 'ui.get_visual_tree', argumentsField: 'visualTreeArguments' },
  screenshot: { toolId: 'ui.get_screenshot', argumentsField: 'screenshotArguments' },
};

export interface BridgeLimits extends CodecLimits {
  /** Give up on a tool that has not settled after this long (its signal aborts). Default 60 s; 0 = never. */
  callTimeoutMs?: number;
}

export interface ToolBridgeOptions {
  tools: ToolSource;
  /** Read again on every invalidate(). Default `read-only`. */
  guard?: GuardPreset | Guard | (() => GuardPreset | Guard);
  /**
   * The paired host's grant (`maxToolPolicy`), read at every execution: it lowers what the page
   * executes, never raises it (WIRE "Authorization"). Discovery stays the guard's, so a host
   * still sees, and can explain, a tool above its grant. Undefined = no grant to apply.
   */
  grant?: () => ToolPolicy | undefined;
  /**
   * Checks arguments and results against the tools' schemas (those that do not check their
   * own: BridgeTool.validates). No default, so the protocol carries no validator: in Node, take
   * `createAjvProvider` from `@toolwire/protocol/ajv`.
   */
  validator: ValidatorProvider;
  /** Merged over DEFAULT_EVIDENCE. */
  evidence?: Record<string, EvidenceProvider>;
  limits?: BridgeLimits;
  /** Told about tool definitions left out of the catalog (invalid, duplicate). Default: console.warn. */
  onToolError?: (error: Error) => void;
}

/** The catalog as a host would see it now, read without a request. */
export interface BridgeSnapshot {
  revision: string;
  availabilityRevision: string;
  guard: Guard;
  /** Valid tools the guard keeps out of the catalog, sorted by id. */
  hidden: { id: string; policy: ToolPolicy }[];
}

export interface ToolBridge {
  handle(message: unknown): Promise<BridgeResponse | undefined>;
  /** The tool set or guard changed: rebuild revisions on the next request. */
  invalidate(): void;
  /** Both revisions, the guard and the hidden tools, as of now. */
  snapshot(): Promise<BridgeSnapshot>;
}

/** Looks like a tool request even though it does not parse: answered, not passed through. */
const TOOL_REQUEST_MARKER = /"type"\s*:\s*"tool\.(query|call|batch)"/;

type Outcome = CallOutcome;

/** How one call runs through the pipeline. */
interface CallOptions {
  /** Capture `after` evidence (the evidence calls themselves capture none). */
  evidence: boolean;
  /**
   * Walk what the tool returned for serializability now, and report it as this call's
   * failure, rather than when the response is written (batch items, evidence).
   */
  walk: boolean;
}

const CALL: CallOptions = { evidence: true, walk: false };
const CALL_WALKED: CallOptions = { evidence: true, walk: true };
const EVIDENCE_CALL: CallOptions = { evidence: false, walk: true };

export function createToolBridge(options: ToolBridgeOptions): ToolBridge {
  const validator = options.validator;
  const evidence: Record<string, EvidenceProvider> = { ...DEFAULT_EVIDENCE, ...options.evidence };
  const maxDepth = options.limits?.maxDepth ?? DEFAULT_MAX_DEPTH;
  const frameLimits: CodecLimits = {
    maxInflatedBytes: options.limits?.maxInflatedBytes,
    maxDepth: maxDepth + FRAME_DEPTH_ALLOWANCE,
  };
  const callTimeoutMs = options.limits?.callTimeoutMs ?? 60_000;
  const onToolError =
    options.onToolError ?? ((error: Error) => console.warn(`toolwire: ${error.message}`));
  const definitionCache = createDefinitionCache();
  let statePromise: Promise<CatalogState> | undefined;
  /** The state statePromise resolved to, once it has: calls then skip an await. */
  let ready: CatalogState | undefined;

  const readGuard = (): Guard =>
    resolveGuard(typeof options.guard === 'function' ? options.guard() : options.guard);

  const getState = (): Promise<CatalogState> => {
    if (!statePromise) {
      const building = buildCatalogState(options.tools, {
        guard: readGuard(),
        cache: definitionCache,
        onToolError,
      });
      statePromise = building;
      // A failed build is not cached: the next request tries again.
      building.then(
        (state) => {
          if (statePromise === building) ready = state;
        },
        () => {
          if (statePromise === building) statePromise = undefined;
        },
      );
    }
    return statePromise;
  };

  const written: WriteOptions = { maxDepth: maxDepth + FRAME_DEPTH_ALLOWANCE };
  const writtenWalked: WriteOptions = { ...written, walked: true };
  const respond = (
    request: RequestInfo | undefined,
    type: ResponseType,
    payload: unknown,
    walked = false,
  ): BridgeResponse => writeResponse(request, type, payload, walked ? writtenWalked : written);

  const fail = (request: RequestInfo | undefined, error: ErrorPayload): BridgeResponse =>
    writeResponse(request, 'tool.error', error, written);

  // ---- tool.call path (requirement 3) ------------------------------------------------

  // Compiled validators by schema object: a definition's schemas are the same objects call
  // after call, so most calls skip the provider (and its awaits) entirely.
  const compiled = new WeakMap<object, Validate>();
  const compile = async (
    schema: JsonSchema,
    which: string,
    toolId: string,
  ): Promise<Validate | ErrorPayload> => {
    const known = compiled.get(schema);
    if (known) return known;
    try {
      const validate = await validator.compile(schema);
      compiled.set(schema, validate);
      return validate;
    } catch (error) {
      return errorPayload(
        'tool_definition_invalid',
        `Tool "${toolId}" has an invalid ${which}: ${describe(error)}`,
      );
    }
  };

  // Deadlines: one sweep timer for all running calls rather than a timer per call (a timer
  // per call cost a browser ~25 us of a ~100 us round trip). The sweep stops when idle.
  const running = new Set<{ deadline: number; expire(): void }>();
  let sweeper: ReturnType<typeof setInterval> | undefined;
  const sweep = () => {
    const now = Date.now();
    for (const call of running) {
      if (call.deadline <= now) {
        running.delete(call);
        call.expire();
      }
    }
    if (running.size === 0 && sweeper !== undefined) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  const runWithTimeout = (
    tool: BridgeTool,
    args: Record<string, unknown>,
    context: Omit<ToolContext, 'signal'>,
  ): Promise<unknown> => {
    const controller = new AbortController();
    let execution: Promise<unknown>;
    try {
      execution = Promise.resolve(tool.execute(args, { ...context, signal: controller.signal }));
    } catch (error) {
      execution = Promise.reject(error);
    }
    if (!callTimeoutMs) return execution;
    // One promise that settles with the tool or with the sweep's timeout, whichever is first.
    return new Promise((resolve, reject) => {
      const call = {
        deadline: Date.now() + callTimeoutMs,
        expire: () => {
          controller.abort(
            new ToolProtocolError(
              'tool_execution_timeout',
              `Tool did not finish within ${callTimeoutMs} ms.`,
            ),
          );
          reject(controller.signal.reason);
        },
      };
      running.add(call);
      if (sweeper === undefined) {
        sweeper = setInterval(sweep, Math.max(10, Math.min(1000, callTimeoutMs / 4)));
        (sweeper as { unref?: () => void }).unref?.();
      }
      execution.then(
        (value) => {
          running.delete(call);
          resolve(value);
        },
        (error) => {
          running.delete(call);
          reject(error);
        },
      );
    });
  };

  const executeCall = async (
    state: CatalogState,
    call: unknown,
    request: RequestInfo,
    how: CallOptions,
  ): Promise<Outcome> => {
    if (!isPlainObject(call)) {
      return failure(
        null,
        errorPayload('tool_call_payload_invalid', 'The tool.call payload must be a JSON object.'),
      );
    }
    const rawId = call.toolId;
    if (typeof rawId !== 'string' || rawId.trim() === '') {
      return failure(null, errorPayload('tool_call_missing_id', 'The call has no toolId.'));
    }
    const toolId = rawId;
    const entry = state.byId.get(toolId);
    if (!entry)
      return failure(toolId, errorPayload('tool_not_found', `No tool has the id "${toolId}".`));
    const { definition, tool } = entry;
    if (!isExecutable(state.guard, definition.policy)) {
      const reason = state.guard.executionEnabled
        ? `its policy "${definition.policy}" exceeds the page's maximum "${state.guard.maxPolicy}"`
        : 'execution is disabled on this page';
      return failure(
        toolId,
        errorPayload('tool_execution_denied', `Tool "${toolId}" is denied: ${reason}.`),
      );
    }
    // The host's grant, read now: a policy that changed after the host read the catalog is
    // judged as it is, not as the host last saw it (issue 13).
    const grant = options.grant?.();
    if (grant !== undefined && POLICY_RANK[definition.policy] > POLICY_RANK[grant]) {
      return failure(
        toolId,
        errorPayload(
          'tool_execution_denied',
          `Tool "${toolId}" is denied: its policy "${definition.policy}" exceeds the host's grant "${grant}".`,
          { policy: definition.policy, maxToolPolicy: grant },
        ),
      );
    }
    // Availability is evaluated again right before every execution.
    let availability: unknown;
    try {
      // Awaited only when it is a promise: most tools answer at once, or have no check.
      availability = tool.availability?.();
      if (isPromiseLike(availability)) availability = await availability;
    } catch (error) {
      availability = runtimeFromFailure(error);
    }
    const runtime = normalizeRuntime(availability);
    if (runtime) {
      const code = runtime.code ?? 'tool_unavailable';
      const message = runtime.reason ?? `Tool "${toolId}" is not available right now.`;
      return failure(
        toolId,
        errorPayload(code, message, runtime as unknown as JsonValue, runtime.retryable === true),
      );
    }
    const rawArgs = call.arguments ?? {};
    if (!isPlainObject(rawArgs)) {
      return failure(
        toolId,
        errorPayload('tool_arguments_invalid', 'The call arguments must be a JSON object.'),
      );
    }
    // A tool that validates its own arguments is not checked twice (BridgeTool.validates).
    if (tool.validates?.arguments !== true) {
      const validateArgs =
        compiled.get(definition.argumentsSchema) ??
        (await compile(definition.argumentsSchema, 'argumentsSchema', toolId));
      if (typeof validateArgs !== 'function') return failure(toolId, validateArgs);
      const argsCheck = validateArgs(rawArgs);
      if (!argsCheck.valid) {
        return failure(toolId, schemaFailure('arguments', toolId, argsCheck.errors));
      }
    }
    const callId = typeof call.callId === 'string' ? call.callId : null;
    const args =
      definition.argumentEncoding === 'flattened-string'
        ? flattenArguments(rawArgs, request)
        : (rawArgs as Record<string, unknown>);

    let returned: unknown;
    try {
      returned = await runWithTimeout(tool, args, {
        requestId: request.id,
        sessionId: request.sessionId,
        callId,
        toolId,
      });
    } catch (error) {
      if (error instanceof ToolProtocolError && error.code === 'tool_execution_timeout') {
        return failure(toolId, error.toPayload());
      }
      return failure(
        toolId,
        errorPayload(
          'tool_execution_exception',
          `Tool "${toolId}" threw: ${describe(error)}`,
          describeThrown(error),
        ),
      );
    }
    if (isToolFailureOutcome(returned)) {
      const error = errorPayload(
        returned.code,
        returned.message,
        returned.details,
        returned.retryable,
      );
      return failure(toolId, (how.walk && unserializable(error, toolId, 'failure')) || error);
    }
    const result = isToolResultOutcome(returned) ? returned.result : returned;
    const message = isToolResultOutcome(returned) ? textOrNull(returned.message) : null;
    const refused = how.walk ? unserializable(result, toolId, 'result') : undefined;
    if (refused) return failure(toolId, refused);
    // Results are JSON values (the polyfill lowers web types before they get here); they are
    // validated as given rather than round-tripped, which would double the cost of big results.
    const wireResult = (result === undefined ? null : result) as JsonValue;
    if (tool.validates?.result !== true) {
      const validateResult =
        compiled.get(definition.resultSchema) ??
        (await compile(definition.resultSchema, 'resultSchema', toolId));
      if (typeof validateResult !== 'function') return failure(toolId, validateResult);
      const resultCheck = validateResult(wireResult);
      if (!resultCheck.valid) {
        return failure(toolId, schemaFailure('result', toolId, resultCheck.errors));
      }
    }
    const evidenceResult =
      how.evidence && call.after !== undefined && call.after !== null
        ? await captureEvidence(state, call.after, toolId, request)
        : null;
    return { toolId, success: true, message, result: wireResult, evidence: evidenceResult };
  };

  /**
   * The `tool_protocol_bridge_failed` error when `value` cannot be serialized, else undefined:
   * for callers that must know now (a batch stops at a failure), not when writing.
   */
  const unserializable = (
    value: unknown,
    toolId: string,
    what: string,
  ): ErrorPayload | undefined => {
    try {
      checkSerializable(value, maxDepth);
      return undefined;
    } catch (error) {
      return errorPayload(
        'tool_protocol_bridge_failed',
        `The ${what} of "${toolId}" cannot be serialized: ${describe(error)}`,
      );
    }
  };

  const captureEvidence = async (
    state: CatalogState,
    after: unknown,
    toolId: string,
    request: RequestInfo,
  ): Promise<Record<string, Outcome> | null> => {
    if (after === undefined || after === null || !isPlainObject(after)) return null;
    const request_ = after as AfterRequest;
    const include = Array.isArray(request_.include) ? request_.include : ['visualTree'];
    const delay =
      typeof request_.delayMilliseconds === 'number' && Number.isFinite(request_.delayMilliseconds)
        ? Math.min(2000, Math.max(0, request_.delayMilliseconds))
        : 0;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    const captured: Record<string, Outcome> = {};
    for (const name of include) {
      if (
        typeof name !== 'string' ||
        !Object.hasOwn(evidence, name) ||
        Object.hasOwn(captured, name)
      )
        continue;
      const provider = evidence[name] as EvidenceProvider;
      // The evidence tool is skipped when it is the tool just invoked.
      if (provider.toolId === toolId) continue;
      const args = provider.argumentsField
        ? (after as Record<string, unknown>)[provider.argumentsField]
        : undefined;
      captured[name] = await executeCall(
        state,
        { toolId: provider.toolId, arguments: args ?? {} },
        request,
        EVIDENCE_CALL,
      );
    }
    return Object.keys(captured).length > 0 ? captured : null;
  };

  // ---- request dispatch -----------------------------------------------------------------

  const handleQuery = async (request: RequestInfo, payload: unknown): Promise<BridgeResponse> => {
    const state = await getState();
    if (!state.guard.discoveryEnabled) {
      return fail(
        request,
        errorPayload('tool_discovery_disabled', 'Tool discovery is disabled on this page.'),
      );
    }
    return respond(request, 'tool.catalog', await answerQuery(state, payload));
  };

  const handleCall = async (request: RequestInfo, payload: unknown): Promise<BridgeResponse> => {
    const state = ready ?? (await getState());
    // With evidence the pieces are walked as they come (each evidence call must know whether it
    // failed); without, the result is walked once, as the response is written.
    const walk = isPlainObject(payload) && payload.after !== undefined && payload.after !== null;
    const outcome = await executeCall(state, payload, request, walk ? CALL_WALKED : CALL);
    if (!outcome.success) return fail(request, outcome.error);
    return respond(request, 'tool.result', outcome, walk);
  };

  const handleBatch = async (request: RequestInfo, payload: unknown): Promise<BridgeResponse> => {
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
    const state = await getState();
    const results: BatchItem[] = [];
    let completed = 0;
    for (let index = 0; index < calls.length; index++) {
      const call = calls[index];
      let outcome: Outcome;
      let callId: string | null = null;
      if (!isPlainObject(call)) {
        outcome = failure(
          null,
          errorPayload('tool_batch_call_invalid', `Batch item ${index} is not a JSON object.`),
        );
      } else {
        callId = typeof call.callId === 'string' ? call.callId : null;
        outcome = await executeCall(state, call, request, CALL_WALKED);
        completed++;
      }
      results.push({ index, callId, ...outcome } as BatchItem);
      if (!outcome.success && !continueOnError) break;
    }
    const batch: BatchResultPayload = {
      success: results.length === calls.length && results.every((item) => item.success),
      completed,
      requested: calls.length,
      stoppedEarly: results.length < calls.length,
      results,
    };
    // Every item was walked as it ran (a batch stops at the first failure), so the writing
    // does not walk the batch again.
    return respond(request, 'tool.batch.result', batch, true);
  };

  const handle = async (message: unknown): Promise<BridgeResponse | undefined> => {
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
    try {
      if (typeof message !== 'string') assertDepth(value, frameLimits.maxDepth);
      const payload = decodePayload(value.payload, frameLimits);
      switch (value.type) {
        case 'tool.query':
          return await handleQuery(request, payload);
        case 'tool.call':
          return await handleCall(request, payload);
        default:
          return await handleBatch(request, payload);
      }
    } catch (error) {
      if (error instanceof ToolProtocolError) return fail(request, error.toPayload());
      return fail(
        request,
        errorPayload('tool_protocol_bridge_failed', `The tool bridge failed: ${describe(error)}`),
      );
    }
  };

  return {
    handle,
    invalidate() {
      statePromise = undefined;
      ready = undefined;
    },
    async snapshot() {
      const state = await getState();
      const availability = await evaluateAvailability(state);
      const hidden: BridgeSnapshot['hidden'] = [];
      const shown = new Set(state.visible);
      for (const entry of state.byId.values()) {
        if (!shown.has(entry)) {
          hidden.push({ id: entry.definition.id, policy: entry.definition.policy });
        }
      }
      hidden.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return {
        revision: state.revision,
        availabilityRevision: availability.revision,
        guard: state.guard,
        hidden,
      };
    },
  };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string'
    ? value
    : value === null || value === undefined
      ? null
      : String(value);
}

function failure(toolId: string | null, error: ErrorPayload): Outcome {
  return { toolId, success: false, error };
}

function readSession(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** A thrown value as wire details: its name and message, never a stack. */
function describeThrown(error: unknown): JsonValue {
  if (error instanceof Error) return { name: error.name, message: error.message };
  if (typeof error === 'string' || typeof error === 'number' || typeof error === 'boolean')
    return { value: error };
  return null;
}

/** Legacy `flattened-string` arguments: nulls skipped, scalars as strings, the rest compact JSON. */
function flattenArguments(
  args: Record<string, unknown>,
  request: RequestInfo,
): Record<string, unknown> {
  const flat: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === null || value === undefined) continue;
    flat[key] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  flat.__ansight_requestId = request.id;
  if (request.sessionId) flat.__ansight_sessionId = request.sessionId;
  return flat;
}
