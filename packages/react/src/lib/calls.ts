/**
 * The calls a mounted useTool is running, so that unmounting can abort them.
 * The registry does not cancel a running execution when its tool is unregistered (polyfill
 * registry.ts), so the hook does: each call's promise rejects at once with an
 * AbortError, and the `signal` the tool's `execute` received aborts with the same reason.
 */
import type { ToolExecuteContext } from '@toolwire/polyfill';

/**
 * The polyfill's marker (registry.ts CALLER_ERROR, a registered symbol so that separately
 * loaded code can share it): an error execute() rejects with that carries it reaches the
 * caller as it is, an AbortError, instead of as the tool's own ToolExecutionError.
 */
const CALLER_ERROR = Symbol.for('toolwire.callerError');

/** The AbortError a caller sees when the component that owned the tool went away. */
function unmountedError(name: string): DOMException {
  const error = new DOMException(
    `The tool "${name}" was unregistered: the component that registered it unmounted.`,
    'AbortError',
  );
  Object.defineProperty(error, CALLER_ERROR, { value: true });
  return error;
}

interface RunningCall {
  name: string;
  cancel(reason: DOMException): void;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

export class CallTracker {
  #running = new Set<RunningCall>();
  #open = true;

  /** Mounted (again, under StrictMode): calls may run. */
  open(): void {
    this.#open = true;
  }

  /** Unmounted: aborts every running call; calls that still arrive are refused. */
  close(): void {
    this.#open = false;
    for (const call of [...this.#running]) call.cancel(unmountedError(call.name));
    this.#running.clear();
  }

  /**
   * Runs one call of tool `name`. `live()` says whether the registration that received it is
   * still current. A tool that answers at once is returned as it is (no promise, no listener).
   */
  run(
    name: string,
    live: () => boolean,
    context: ToolExecuteContext,
    invoke: (context: ToolExecuteContext) => unknown,
  ): unknown {
    if (!this.#open || !live()) throw unmountedError(name);
    // Made when the tool first reads `signal`, or when it must abort: most tools never look.
    let controller: AbortController | undefined;
    const signal = () => {
      if (!controller) {
        const own = new AbortController();
        controller = own;
        const outer = context.signal;
        if (outer.aborted) own.abort(outer.reason);
        else outer.addEventListener('abort', () => own.abort(outer.reason), { once: true });
      }
      return controller.signal;
    };
    const result = invoke({
      caller: context.caller,
      get signal() {
        return signal();
      },
      reportProgress: context.reportProgress,
    });
    if (!isThenable(result)) return result;
    return new Promise((resolve, reject) => {
      const call: RunningCall = {
        name,
        cancel: (reason) => {
          signal();
          controller?.abort(reason);
          reject(reason);
        },
      };
      this.#running.add(call);
      result.then(
        (value) => {
          this.#running.delete(call);
          resolve(value);
        },
        (error: unknown) => {
          this.#running.delete(call);
          reject(error);
        },
      );
    });
  }
}
