/** DOMException with a name, the way platform APIs reject. */
export function domException(name: string, message: string): DOMException {
  return new DOMException(message, name);
}

/** The reason an AbortSignal carries, or a default AbortError when it has none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? domException('AbortError', 'The operation was aborted.');
}

/** Runs `task` after the current task (a macrotask), for steps the spec runs "in parallel". */
export function queueTask(task: () => void): void {
  setTimeout(task, 0);
}
