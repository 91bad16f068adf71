/**
 * DOMException with a name, the way platform APIs reject. `toolCode`, when given, is the wire
 * contract's code for the failure (docs/browser-api.md "Errors from callTool"): DOMException's
 * own `code` is the platform's legacy number, so the string goes beside it.
 */
export function domException(name: string, message: string, toolCode?: string): DOMException {
  return withCode(new DOMException(message, name), toolCode);
}

/** `error` with its `toolCode` (and, for a validation failure, its `issues`) attached. */
export function withCode<E extends object>(error: E, toolCode?: string, issues?: unknown[]): E {
  return toolCode ? Object.assign(error, issues ? { toolCode, issues } : { toolCode }) : error;
}

/** The reason an AbortSignal carries, or a default AbortError when it has none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? domException('AbortError', 'The operation was aborted.');
}

/** Runs `task` after the current task (a macrotask), for steps the spec runs "in parallel". */
export function queueTask(task: () => void): void {
  setTimeout(task, 0);
}
