import type { JsonValue } from './messages.js';

/**
 * How a tool reports anything but a bare result. Returning `toolResult(value, {message})`
 * attaches a message; returning `toolFailure({...})` reports a failure without throwing, which
 * the wire calls `tool_execution_failed` (or the tool's own code). A thrown value is always
 * `tool_execution_exception`.
 */
const OUTCOME = Symbol.for('toolwire.protocol.outcome');

export interface ToolResultOutcome {
  readonly [OUTCOME]: 'result';
  readonly result: unknown;
  readonly message: string | null;
}

export interface ToolFailureOutcome {
  readonly [OUTCOME]: 'failure';
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
  readonly details: JsonValue | null;
}

export function toolResult(result: unknown, options: { message?: string } = {}): ToolResultOutcome {
  return { [OUTCOME]: 'result', result, message: options.message ?? null };
}

export function toolFailure(failure: {
  message: string;
  code?: string;
  retryable?: boolean;
  details?: JsonValue | null;
}): ToolFailureOutcome {
  return {
    [OUTCOME]: 'failure',
    code: failure.code ?? 'tool_execution_failed',
    message: failure.message,
    retryable: failure.retryable ?? false,
    details: failure.details ?? null,
  };
}

export function isToolResultOutcome(value: unknown): value is ToolResultOutcome {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as ToolResultOutcome)[OUTCOME] === 'result'
  );
}

export function isToolFailureOutcome(value: unknown): value is ToolFailureOutcome {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as ToolFailureOutcome)[OUTCOME] === 'failure'
  );
}
