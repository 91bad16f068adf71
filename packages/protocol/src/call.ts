/**
 * One tool call, from its payload to its outcome, with each check in docs/wire.md's order ("tool.call")
 * and its code:
 *
 * 1. the payload is not an object `tool_call_payload_invalid`; no toolId `tool_call_missing_id`;
 * 2. unknown id `tool_not_found`;
 * 3. the page's guard, then the host's grant, refuse `tool_execution_denied` (`details.deniedBy`
 *    `page-guard` or `host-grant`);
 * 4. availability, evaluated again now: its `code` (default `tool_unavailable`);
 * 5. arguments not an object `tool_arguments_invalid`; failing argumentsSchema
 *    `tool_arguments_schema_invalid` (unless the tool validates its own);
 * 6. the tool throws `tool_execution_exception`, times out `tool_execution_timeout` (retryable
 *    only for a `read` tool), is cancelled `tool_call_cancelled`, reports failure
 *    `tool_execution_failed` (or its own code);
 * 7. the result cannot be serialized `tool_protocol_bridge_failed` (checked here only when the
 *    caller must know now, else where the frame is written); fails resultSchema
 *    `tool_result_schema_invalid` (unless the tool validates its own);
 * 8. on success, `after` evidence: each evidence tool through this same path.
 */
import type { CatalogState } from './catalog.js';
import { normalizeRuntime, runtimeFromFailure } from './catalog.js';
import type { Deadlines, RunningRequest } from './deadlines.js';
import type { ToolDeniedBy } from './errors.js';
import { errorPayload, ToolProtocolError } from './errors.js';
import type { RequestInfo } from './frame.js';
import { describe } from './frame.js';
import { isExecutable, POLICY_RANK } from './guard.js';
import { checkSerializable } from './json.js';
import type {
  AfterRequest,
  CallOutcome,
  ErrorPayload,
  JsonSchema,
  JsonValue,
  ToolPolicy,
} from './messages.js';
import { isPlainObject } from './messages.js';
import { isToolFailureOutcome, isToolResultOutcome } from './outcome.js';
import type { SchemaFailureModule } from './schema-failure-load.js';
import { loadedSchemaFailure } from './schema-failure-load.js';
import type { Validate, ValidatorProvider } from './validator.js';

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

/** How one call runs through the pipeline. */
export interface CallOptions {
  /** Capture `after` evidence (the evidence calls themselves capture none). */
  evidence: boolean;
  /**
   * Walk what the tool returned for serializability now, and report a failure as this call's,
   * rather than when the response is written: a batch must know before it goes on, an
   * evidence item fails alone.
   */
  walk: boolean;
}

/** A lone tool.call without evidence: its result is walked once, as the frame is written. */
export const CALL: CallOptions = { evidence: true, walk: false };
/** A batch item, or a lone call with evidence: every piece walked as it comes. */
export const CALL_WALKED: CallOptions = { evidence: true, walk: true };
const EVIDENCE_CALL: CallOptions = { evidence: false, walk: true };

export interface PipelineOptions {
  validator: ValidatorProvider;
  evidence: Readonly<Record<string, EvidenceProvider>>;
  /** The deepest value a tool may return. */
  maxDepth: number;
  /** The paired host's grant, read at every call. */
  grant: (() => ToolPolicy | undefined) | undefined;
  deadlines: Deadlines;
  /** Loads schema-failure.ts (the bridge's `loadSchemaFailure`). */
  loadSchemaFailure: () => Promise<SchemaFailureModule>;
}

export type CallPipeline = (
  state: CatalogState,
  call: unknown,
  request: RequestInfo,
  how: CallOptions,
  running: RunningRequest,
) => Promise<CallOutcome>;

export function createCallPipeline(options: PipelineOptions): CallPipeline {
  const { validator, evidence, maxDepth, grant: readGrant, deadlines, loadSchemaFailure } = options;

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

  const run: CallPipeline = async (state, call, request, how, running) => {
    // 1. The payload and its toolId.
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
    // 2. The tool.
    const entry = state.byId.get(toolId);
    if (!entry)
      return failure(toolId, errorPayload('tool_not_found', `No tool has the id "${toolId}".`));
    const { definition, tool } = entry;
    // 3. The page's guard, then the host's grant.
    if (!isExecutable(state.guard, definition.policy)) {
      const reason = state.guard.executionEnabled
        ? `its policy "${definition.policy}" exceeds the page's maximum "${state.guard.maxPolicy}"`
        : 'execution is disabled on this page';
      return failure(
        toolId,
        errorPayload('tool_execution_denied', `Tool "${toolId}" is denied: ${reason}.`, {
          deniedBy: 'page-guard' satisfies ToolDeniedBy,
          policy: definition.policy,
          maxPolicy: state.guard.maxPolicy,
          executionEnabled: state.guard.executionEnabled,
        }),
      );
    }
    // The grant is read now: a policy that changed after the host read the catalog is judged
    // as it is, not as the host last saw it.
    const grant = readGrant?.();
    if (grant !== undefined && POLICY_RANK[definition.policy] > POLICY_RANK[grant]) {
      return failure(
        toolId,
        errorPayload(
          'tool_execution_denied',
          `Tool "${toolId}" is denied: its policy "${definition.policy}" exceeds the host's grant "${grant}".`,
          {
            deniedBy: 'host-grant' satisfies ToolDeniedBy,
            policy: definition.policy,
            maxToolPolicy: grant,
          },
        ),
      );
    }
    // 4. Availability, evaluated again right before every execution.
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
    // 5. The arguments. A tool that validates its own is not checked twice.
    const rawArgs = call.arguments ?? {};
    if (!isPlainObject(rawArgs)) {
      return failure(
        toolId,
        errorPayload('tool_arguments_invalid', 'The call arguments must be a JSON object.'),
      );
    }
    if (tool.validates?.arguments !== true) {
      const validateArgs =
        compiled.get(definition.argumentsSchema) ??
        (await compile(definition.argumentsSchema, 'argumentsSchema', toolId));
      if (typeof validateArgs !== 'function') return failure(toolId, validateArgs);
      const argsCheck = validateArgs(rawArgs);
      if (!argsCheck.valid) {
        return failure(
          toolId,
          await loadedSchemaFailure(
            loadSchemaFailure,
            'arguments',
            toolId,
            argsCheck.errors,
            definition.argumentsSchema,
          ),
        );
      }
    }
    // 6. The tool, under its deadline and open to a cancel (inline: one promise hop fewer a call).
    const args =
      definition.argumentEncoding === 'flattened-string'
        ? flattenArguments(rawArgs, request)
        : rawArgs;
    let returned: unknown;
    try {
      returned = await deadlines.run(
        tool,
        args,
        toolId,
        typeof call.callId === 'string' ? call.callId : null,
        running,
      );
    } catch (error) {
      return failure(toolId, thrownError(error, toolId, definition.policy));
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
    // 7. The result: serializable, then its schema. A tool that validates its own is not
    // checked twice. Results are JSON values (the polyfill lowers web types before they get
    // here); validated as given rather than round-tripped, which would double the cost.
    const result = isToolResultOutcome(returned) ? returned.result : returned;
    const message = isToolResultOutcome(returned) ? textOrNull(returned.message) : null;
    const refused = how.walk ? unserializable(result, toolId, 'result') : undefined;
    if (refused) return failure(toolId, refused);
    const wireResult = (result === undefined ? null : result) as JsonValue;
    if (tool.validates?.result !== true) {
      const validateResult =
        compiled.get(definition.resultSchema) ??
        (await compile(definition.resultSchema, 'resultSchema', toolId));
      if (typeof validateResult !== 'function') return failure(toolId, validateResult);
      const resultCheck = validateResult(wireResult);
      if (!resultCheck.valid) {
        return failure(
          toolId,
          await loadedSchemaFailure(
            loadSchemaFailure,
            'result',
            toolId,
            resultCheck.errors,
            definition.resultSchema,
          ),
        );
      }
    }
    // 8. Evidence, on success only.
    const evidenceResult =
      how.evidence && call.after !== undefined && call.after !== null
        ? await captureEvidence(state, call.after, toolId, request, running)
        : null;
    return { toolId, success: true, message, result: wireResult, evidence: evidenceResult };
  };

  const captureEvidence = async (
    state: CatalogState,
    after: unknown,
    toolId: string,
    request: RequestInfo,
    running: RunningRequest,
  ): Promise<Record<string, CallOutcome> | null> => {
    if (after === undefined || after === null || !isPlainObject(after)) return null;
    const asked = after as AfterRequest;
    const include = Array.isArray(asked.include) ? asked.include : ['visualTree'];
    const delay =
      typeof asked.delayMilliseconds === 'number' && Number.isFinite(asked.delayMilliseconds)
        ? Math.min(2000, Math.max(0, asked.delayMilliseconds))
        : 0;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    const captured: Record<string, CallOutcome> = {};
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
      captured[name] = await run(
        state,
        { toolId: provider.toolId, arguments: args ?? {} },
        request,
        EVIDENCE_CALL,
        running,
      );
    }
    return Object.keys(captured).length > 0 ? captured : null;
  };

  return run;
}

/**
 * What a tool threw (or its deadline or a cancel did), as the call's error. A timeout is worth
 * retrying only for a tool that reads: another may have acted before it was given up on.
 */
function thrownError(error: unknown, toolId: string, policy: ToolPolicy): ErrorPayload {
  if (error instanceof ToolProtocolError) {
    if (error.code === 'tool_execution_timeout') {
      return { ...error.toPayload(), retryable: policy === 'read' };
    }
    if (error.code === 'tool_call_cancelled') return error.toPayload();
  }
  return errorPayload(
    'tool_execution_exception',
    `Tool "${toolId}" threw: ${describe(error)}`,
    describeThrown(error),
  );
}

export function failure(toolId: string | null, error: ErrorPayload): CallOutcome {
  return { toolId, success: false, error };
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function textOrNull(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return value === null || value === undefined ? null : String(value);
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
