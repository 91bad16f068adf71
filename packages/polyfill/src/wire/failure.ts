/**
 * The one mapping from a failed page-tool call to the wire's error (docs/wire.md "Error codes"):
 * every road that serves a page's tools (the endpoint, the toolwire extension's reader and
 * Connect, `@toolwire/playwright`) passes what the call rejected with through `wireFailure`.
 *
 * It reads properties, never message text:
 * 1. the call's own signal aborted (`cause`, its reason, given): the reason decides. The call's
 *    deadline (a `tool_execution_timeout` reason, or a `TimeoutError`) is
 *    `tool_execution_timeout`, retryable only for a `read` tool; anything else the caller
 *    cancelled, `tool_call_cancelled`. An AbortError the tool threw itself is not this: the
 *    polyfill reports it as the tool's throw (`ToolExecutionError`);
 * 2. `toolCode`, which the polyfill's errors carry (its DOMExceptions, its own Error classes,
 *    and errors that crossed from another frame), with `issues` for a schema's verdict;
 * 3. a `ToolProtocolError`'s `code` (a signal reason passed on as it is);
 * 4. the DOMException's `name`, for errors no toolwire raised (a browser's own WebMCP, another
 *    polyfill): see NAMES.
 */
import type {
  ErrorPayload,
  JsonValue,
  SchemaFailureModule,
  ToolPolicy,
  ValidationIssue,
} from '@toolwire/protocol';
import { defaultRetryable, plainSchemaFailure, schemaFailure } from '@toolwire/protocol';

/** What the caller knows of the call that failed. */
export interface WireFailureContext {
  /** The tool's wire id (messages name it). */
  toolId: string;
  /** The tool's policy: a timed-out `read` tool may be called again. */
  policy: ToolPolicy;
  /**
   * The reason of the signal the caller gave the call, when that signal has aborted
   * (`signal.aborted ? signal.reason : undefined`): it says whether a deadline or a cancel
   * stopped the call.
   */
  cause?: unknown;
  /** The tool's schemas, which a schema failure's message is read against. */
  schemas?: { input?: unknown; output?: unknown };
}

/** A `tool.error` payload: `{code, message, retryable, details}`. */
export interface WireFailure {
  code: string;
  message: string;
  retryable: boolean;
  details: JsonValue | null;
}

const TIMEOUT = 'tool_execution_timeout';
const CANCELLED = 'tool_call_cancelled';
const EXCEPTION = 'tool_execution_exception';
/** A code as errors may carry one: lowercase words joined by `_`. */
const CODE = /^[a-z][a-z0-9_]{0,127}$/;

/**
 * The code of a DOMException (or Error) name, for errors that carry no `toolCode`: what a
 * browser's `executeTool` or an older toolwire rejects with. A browser reports every failure of
 * the tool's side as `UnknownError` ("the invocation failed"): a throw, and also input a
 * polyfilled tool refused, or a result it could not serialize, so that is
 * `tool_execution_exception`. `TypeError` is the API refusing its arguments (not an object, not
 * serializable): a tool's own TypeError reaches callers as a ToolExecutionError.
 */
const NAMES: Readonly<Record<string, string>> = {
  NotFoundError: 'tool_not_found',
  NotAllowedError: 'tool_execution_denied',
  DataError: 'tool_arguments_schema_invalid',
  TypeError: 'tool_arguments_invalid',
  ToolExecutionError: EXCEPTION,
  UnknownError: EXCEPTION,
  OperationError: 'tool_result_schema_invalid',
  AbortError: CANCELLED,
  TimeoutError: TIMEOUT,
};

/** The wire's error for what a page-tool call rejected with. Never throws. */
export function wireFailure(error: unknown, context: WireFailureContext): WireFailure {
  const mapped = guarded(error, context);
  return 'issues' in mapped ? worded(mapped, schemaFailure) : mapped;
}

/**
 * `wireFailure` for a page script, which loads a schema failure's `details` and message
 * (`@toolwire/protocol`'s schema-failure.ts) the first time a call fails its schema: a promise
 * then, settled with what `wireFailure` says; when the module cannot be loaded, the same code,
 * a plainer message and no `details`. Never rejects.
 */
export function wireFailureLoading(
  error: unknown,
  context: WireFailureContext,
  load: () => Promise<SchemaFailureModule>,
): WireFailure | Promise<WireFailure> {
  const mapped = guarded(error, context);
  if (!('issues' in mapped)) return mapped;
  return load().then(
    (module) => worded(mapped, module.schemaFailure),
    () => worded(mapped, (which, toolId) => plainSchemaFailure(which, toolId)),
  );
}

/** A schema's verdict (or arguments that cannot be read), before it is said. */
interface Unworded {
  kind: 'tool_arguments_schema_invalid' | 'tool_result_schema_invalid' | 'tool_arguments_invalid';
  toolId: string;
  issues: ValidationIssue[];
  schema: unknown;
}

/** The verdict as the wire's error, through `say` (`schemaFailure`, or its plain stand-in). */
function worded(
  { kind, toolId, issues, schema }: Unworded,
  say: (
    which: 'arguments' | 'result',
    toolId: string,
    issues: readonly ValidationIssue[],
    schema?: unknown,
  ) => ErrorPayload,
): WireFailure {
  const said = say(
    kind === 'tool_result_schema_invalid' ? 'result' : 'arguments',
    toolId,
    issues,
    schema,
  );
  const details = said.details ?? null;
  if (kind !== 'tool_arguments_invalid') return failure(said.code, said.message, false, details);
  // The issues as the wire words them (`$`-rooted paths), under this code.
  const first = (details as { path: string; message: string }[] | null)?.[0];
  return failure(
    kind,
    `The call arguments cannot be read${first ? `: ${first.path} ${first.message}` : '.'}`,
    false,
    details,
  );
}

function guarded(error: unknown, context: WireFailureContext): WireFailure | Unworded {
  try {
    return map(error, context);
  } catch {
    // A value whose properties throw when read (a page's proxy, say).
    return failure(
      'tool_execution_failed',
      `Tool "${context.toolId}" failed.`,
      defaultRetryable('tool_execution_failed'),
    );
  }
}

function map(error: unknown, context: WireFailureContext): WireFailure | Unworded {
  const { toolId, policy, cause } = context;
  const name = text(read(error, 'name'));
  const message = messageOf(error);
  const code = codeOf(error);
  if (
    cause !== undefined &&
    (error === cause ||
      name === 'AbortError' ||
      name === 'TimeoutError' ||
      code === TIMEOUT ||
      code === CANCELLED)
  ) {
    return stopped(cause, context);
  }
  const kind =
    code ??
    (name !== undefined && Object.hasOwn(NAMES, name) ? NAMES[name] : undefined) ??
    'tool_execution_failed';
  switch (kind) {
    case 'tool_arguments_schema_invalid':
    case 'tool_result_schema_invalid': {
      const issues = issuesOf(error);
      if (issues.length === 0) return coded(kind, message, error, policy);
      return {
        kind,
        toolId,
        issues,
        schema:
          kind === 'tool_arguments_schema_invalid'
            ? context.schemas?.input
            : context.schemas?.output,
      };
    }
    case 'tool_arguments_invalid': {
      const issues = issuesOf(error);
      if (issues.length === 0) return coded(kind, message, error, policy);
      return { kind, toolId, issues, schema: undefined };
    }
    case EXCEPTION:
      return exception(error, message, toolId);
    default:
      return coded(kind, message, error, policy);
  }
}

/** The call's signal aborted: a deadline, or the caller's cancel. */
function stopped(cause: unknown, { toolId, policy }: WireFailureContext): WireFailure {
  const said = messageOf(cause);
  const code = codeOf(cause);
  if (code === TIMEOUT || (code === undefined && text(read(cause, 'name')) === 'TimeoutError'))
    return failure(TIMEOUT, said || `Tool "${toolId}" did not finish in time.`, policy === 'read');
  return failure(CANCELLED, said || `The call of "${toolId}" was cancelled.`, false);
}

/**
 * The tool threw: its thrown value (lowered to JSON by the polyfill: `cause`) as `{name,
 * message}`, worded as the protocol's bridge words a throw, so a native tool's and a polyfilled
 * one's read alike.
 */
function exception(error: unknown, message: string, toolId: string): WireFailure {
  const thrown = read(error, 'cause');
  if (thrown !== undefined && thrown !== null) {
    if (typeof thrown === 'object') {
      const thrownMessage = text(read(thrown, 'message'));
      if (thrownMessage !== undefined) {
        const thrownName = text(read(thrown, 'name')) ?? 'Error';
        return failure(EXCEPTION, `Tool "${toolId}" threw: ${thrownMessage}`, false, {
          name: thrownName,
          message: thrownMessage,
        });
      }
    } else if (
      typeof thrown === 'string' ||
      typeof thrown === 'number' ||
      typeof thrown === 'boolean'
    ) {
      return failure(EXCEPTION, `Tool "${toolId}" threw: ${String(thrown)}`, false, {
        value: thrown,
      });
    }
  }
  return failure(EXCEPTION, message || `Tool "${toolId}" threw.`, false);
}

/** Any other code: the table's `retryable` (a timeout's from the policy), the error's details. */
function coded(code: string, message: string, error: unknown, policy: ToolPolicy): WireFailure {
  const said = message || code;
  if (code === TIMEOUT) return failure(code, said, policy === 'read');
  // A ToolProtocolError says for itself whether it is retryable.
  const own = read(error, 'retryable');
  return failure(
    code,
    said,
    typeof own === 'boolean' && text(read(error, 'name')) === 'ToolProtocolError'
      ? own
      : defaultRetryable(code),
    jsonOf(read(error, 'details')),
  );
}

function failure(
  code: string,
  message: string,
  retryable: boolean,
  details: JsonValue | null = null,
): WireFailure {
  return { code, message, retryable, details };
}

/** `toolCode`, else a ToolProtocolError's `code`; undefined when neither is a code. */
function codeOf(error: unknown): string | undefined {
  const toolCode = read(error, 'toolCode');
  if (typeof toolCode === 'string' && CODE.test(toolCode)) return toolCode;
  if (text(read(error, 'name')) !== 'ToolProtocolError') return undefined;
  const code = read(error, 'code');
  return typeof code === 'string' && CODE.test(code) ? code : undefined;
}

/** A validation failure's issues: `issues`, else a DataError's `errors`; well-formed ones only. */
function issuesOf(error: unknown): ValidationIssue[] {
  const issues = read(error, 'issues');
  const list = Array.isArray(issues) ? issues : read(error, 'errors');
  if (!Array.isArray(list)) return [];
  const out: ValidationIssue[] = [];
  for (const issue of list) {
    const path = read(issue, 'path');
    const reason = read(issue, 'reason');
    const schemaPath = read(issue, 'schemaPath');
    if (typeof path === 'string' && typeof reason === 'string' && typeof schemaPath === 'string')
      out.push({ path, reason, schemaPath });
  }
  return out;
}

function messageOf(value: unknown): string {
  if (typeof value === 'string') return value;
  return text(read(value, 'message')) ?? '';
}

function read(value: unknown, key: string): unknown {
  return (typeof value === 'object' && value !== null) || typeof value === 'function'
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A JSON copy of `value`; null when there is none or it is not JSON. */
function jsonOf(value: unknown): JsonValue | null {
  if (value === undefined || value === null) return null;
  try {
    const json = JSON.stringify(value);
    return json === undefined ? null : (JSON.parse(json) as JsonValue);
  } catch {
    return null;
  }
}
