import { withCode } from './lib/dom.js';
import type { ValidationIssue } from './validation/types.js';

/**
 * The tool's own code threw or rejected (docs/browser-api.md "Errors from callTool"). `cause` is the
 * thrown value lowered to JSON (`{name, message, ...}`, never a stack), so a caller can tell
 * it apart from the polyfill's own DOMExceptions even when the tool throws a look-alike.
 * `code` and `toolCode` are the wire contract's `tool_execution_exception`.
 */
export class ToolExecutionError extends Error {
  override name = 'ToolExecutionError';
  readonly code = 'tool_execution_exception';
  readonly toolCode = 'tool_execution_exception';
  readonly toolName: string;
  declare readonly cause: unknown;

  constructor(toolName: string, cause: unknown) {
    const message = describeCause(cause);
    super(`Tool "${toolName}" failed${message ? `: ${message}` : '.'}`, { cause });
    this.toolName = toolName;
  }
}

function describeCause(cause: unknown): string {
  if (cause && typeof cause === 'object') {
    const { name, message } = cause as { name?: unknown; message?: unknown };
    if (typeof message === 'string')
      return typeof name === 'string' && name ? `${name}: ${message}` : message;
  }
  return typeof cause === 'string' ? cause : '';
}

/**
 * A DataError whose message is the JSON of the first failure; `.errors` and `.issues` hold all
 * of them, `.toolCode` says which failure it is.
 */
export type DataError = DOMException & {
  errors: ValidationIssue[];
  issues: ValidationIssue[];
  toolCode: string;
};

/**
 * The input failed its schema (`tool_arguments_schema_invalid`, the default), or could not be
 * read at all (`tool_arguments_invalid`: not JSON where JSON was asked for).
 */
export function dataError(
  issues: ValidationIssue[],
  toolCode = 'tool_arguments_schema_invalid',
): DataError {
  const first = issues[0] ?? { path: '', reason: 'invalid input', schemaPath: '' };
  const error = new DOMException(
    JSON.stringify({ path: first.path, reason: first.reason, schemaPath: first.schemaPath }),
    'DataError',
  ) as DataError;
  Object.defineProperty(error, 'errors', { value: issues, enumerable: true });
  return withCode(error, toolCode, issues);
}
