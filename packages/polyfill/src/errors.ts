import type { ValidationIssue } from './validation/types.js';

/**
 * The tool's own code threw or rejected (docs/browser-api.md "Errors from callTool"). `cause` is the
 * thrown value lowered to JSON (`{name, message, ...}`, never a stack), so a caller can tell
 * it apart from the polyfill's own DOMExceptions even when the tool throws a look-alike.
 */
export class ToolExecutionError extends Error {
  override name = 'ToolExecutionError';
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

/** A DataError whose message is the JSON of the first failure; `.errors` holds all of them. */
export type DataError = DOMException & { errors: ValidationIssue[] };

export function dataError(issues: ValidationIssue[]): DataError {
  const first = issues[0] ?? { path: '', reason: 'invalid input', schemaPath: '' };
  const error = new DOMException(
    JSON.stringify({ path: first.path, reason: first.reason, schemaPath: first.schemaPath }),
    'DataError',
  ) as DataError;
  Object.defineProperty(error, 'errors', { value: issues, enumerable: true });
  return error;
}
