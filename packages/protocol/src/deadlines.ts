/**
 * The requests a bridge is running, and how each ends early (docs/wire.md "Deadlines, cancel and
 * progress"):
 *
 * 1. A request's deadline is the smaller of the caller's `timeoutMs` (ms from receipt; for a
 *    batch, the whole batch) and `limits.callTimeoutMs` per tool run. A tool still running then
 *    is given up on with `tool_execution_timeout`, its signal aborted with that error.
 * 2. A cancel (by request id) aborts the running tool's signal with `tool_call_cancelled`, gives
 *    up on it at once, and stops the request: nothing else of it runs.
 * 3. A request that asked (`progress: true`) hands its tools a reporter that reaches the
 *    handle()'s scope while the request is pending; every other call shares `noProgress`.
 *
 * One sweep timer serves every running tool rather than a timer per call (a timer per call cost
 * a browser ~25 us of a ~100 us round trip). It runs only while tools with a deadline run. The
 * request's own record carries the running tool's abort; the tool's AbortController is made
 * only when something reads its signal (most tools never do: it was a few microseconds of
 * every call, more run cold between sequential calls).
 */
import type { BridgeTool, ReportProgress, ToolContext } from './catalog.js';
import { noProgress } from './catalog.js';
import { ToolProtocolError } from './errors.js';

/** No deadline. */
const NEVER = Number.POSITIVE_INFINITY;

/** Where a handle()'s requests report to: one per connection, so a cancel reaches only its own. */
export interface HandleScope {
  /** Progress of a request that asked for it, while it is pending. */
  onProgress?: (requestId: string, progress: number, total?: number, message?: string) => void;
}

/**
 * One tool run's abort, with the AbortController made when `signal` is first read. The run
 * answers what a caller's checks ask of a signal (`aborted`, `reason`, an `abort` listener,
 * which makes the controller) without one, so a layer below that only checks it, as the
 * polyfill's own registry does, can be handed the run itself (lateSignal).
 */
class ToolRun {
  controller: AbortController | undefined = undefined;
  aborted = false;
  reason: unknown = undefined;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }

  addEventListener(type: string, listener: EventListener, options?: AddEventListenerOptions): void {
    this.signal.addEventListener(type, listener, options);
  }

  removeEventListener(type: string, listener: EventListener): void {
    this.controller?.signal.removeEventListener(type, listener);
  }
}

/**
 * What a tool gets: its signal read through its run, so the AbortController is made only if it
 * is read. A class rather than a literal with a getter: it costs a fraction of one, run cold.
 */
class RunContext implements ToolContext {
  readonly requestId: string;
  readonly sessionId: string | null;
  readonly callId: string | null;
  readonly toolId: string;
  readonly reportProgress: ReportProgress;
  /** Not for tools: lateSignal's. */
  readonly run: ToolRun;

  constructor(request: RunningRequest, toolId: string, callId: string | null, run: ToolRun) {
    this.requestId = request.id;
    this.sessionId = request.sessionId;
    this.callId = callId;
    this.toolId = toolId;
    this.reportProgress = request.reportProgress;
    this.run = run;
  }

  get signal(): AbortSignal {
    return this.run.signal;
  }
}

/**
 * A signal for `context`'s run to hand a layer that only checks it (`aborted`, `reason`) and
 * listens for its abort while a call is pending, without making the AbortController those
 * checks would otherwise cost. It is not an AbortSignal: give it only to code that uses no
 * more than that (the polyfill's calls of its own registry's tools), never to a browser API.
 * Any other context's signal is returned as it is.
 */
export function lateSignal(context: ToolContext): AbortSignal {
  return context instanceof RunContext ? (context.run as unknown as AbortSignal) : context.signal;
}

/** One `tool.call` or `tool.batch` while the bridge runs it. */
export class RunningRequest {
  readonly id: string;
  readonly sessionId: string | null;
  readonly scope: HandleScope | undefined;
  /** The caller's deadline (epoch ms), Infinity without one; and the caller's `timeoutMs`. */
  readonly deadline: number;
  readonly timeoutMs: number;
  reportProgress: ReportProgress = noProgress;
  /** Set by a cancel: the error the request ends with. */
  cancelled: ToolProtocolError | undefined = undefined;
  /** Answered: no more progress, no cancel. */
  done = false;
  // The tool running now, if any: its abort, the promise to settle at once, its deadline.
  run: ToolRun | undefined = undefined;
  reject: ((error: unknown) => void) | undefined = undefined;
  toolDeadline = NEVER;
  /** The limit that set toolDeadline, for the timeout's message. */
  toolTimeoutMs = 0;

  constructor(
    id: string,
    sessionId: string | null,
    scope: HandleScope | undefined,
    receivedAt: number,
    timeoutMs: number,
  ) {
    this.id = id;
    this.sessionId = sessionId;
    this.scope = scope;
    this.timeoutMs = timeoutMs;
    this.deadline = timeoutMs > 0 ? receivedAt + timeoutMs : NEVER;
  }

  /** True once the caller's deadline has passed. */
  expired(now = Date.now()): boolean {
    return this.deadline <= now;
  }
}

export interface Deadlines {
  /** A call or batch starts (its payload read): its deadline, progress and cancel. */
  open(
    request: { id: string; sessionId: string | null },
    payload: unknown,
    scope: HandleScope | undefined,
    receivedAt: number,
  ): RunningRequest;
  /** The request is answered. */
  close(request: RunningRequest): void;
  /** Cancels request `id` (only one opened in `scope`, when given); false if none is pending. */
  cancel(id: string, scope?: HandleScope, reason?: string): boolean;
  /**
   * Runs `tool` (`toolId`, the call's `callId`) for `request`: settles with the tool, or at once
   * on its deadline or a cancel.
   */
  run(
    tool: BridgeTool,
    args: Record<string, unknown>,
    toolId: string,
    callId: string | null,
    request: RunningRequest,
  ): Promise<unknown>;
}

/** The caller's `timeoutMs` of a payload: a positive finite number, else none (0). */
function callerTimeout(payload: unknown): number {
  const value = (payload as { timeoutMs?: unknown } | null | undefined)?.timeoutMs;
  return typeof value === 'number' && value > 0 && Number.isFinite(value) ? value : 0;
}

function timeoutError(ms: number): ToolProtocolError {
  return new ToolProtocolError('tool_execution_timeout', `Tool did not finish within ${ms} ms.`, {
    details: { timeoutMs: ms },
  });
}

/** A sweep period for a deadline `remaining` ms away: a quarter of it, within 10 ms to 1 s. */
const periodFor = (remaining: number): number => Math.max(10, Math.min(1000, remaining / 4));

/** `callTimeoutMs` 0: no deadline of the page's own (a caller's still applies). */
export function createDeadlines(callTimeoutMs: number): Deadlines {
  const pending = new Map<string, RunningRequest>();
  /** Requests whose tool runs under a finite deadline. */
  const timed = new Set<RunningRequest>();
  let sweeper: ReturnType<typeof setInterval> | undefined;
  let period = NEVER;

  /** Gives up on the tool `request` runs now: its signal aborts with `error`, its run rejects. */
  const stop = (request: RunningRequest, error: ToolProtocolError): void => {
    const { run, reject } = request;
    if (!run || !reject) return;
    release(request);
    run.abort(error);
    reject(error);
  };

  const release = (request: RunningRequest): void => {
    if (request.toolDeadline !== NEVER) timed.delete(request);
    request.run = undefined;
    request.reject = undefined;
    request.toolDeadline = NEVER;
  };

  const sweep = (): void => {
    const now = Date.now();
    for (const request of timed) {
      if (request.toolDeadline <= now) stop(request, timeoutError(request.toolTimeoutMs));
    }
    if (timed.size === 0 && sweeper !== undefined) {
      clearInterval(sweeper);
      sweeper = undefined;
      period = NEVER;
    }
  };

  const watch = (request: RunningRequest, remaining: number): void => {
    timed.add(request);
    const wanted = periodFor(remaining);
    if (sweeper !== undefined && wanted >= period) return;
    clearInterval(sweeper);
    period = wanted;
    sweeper = setInterval(sweep, wanted);
    (sweeper as { unref?: () => void }).unref?.();
  };

  return {
    open({ id, sessionId }, payload, scope, receivedAt) {
      const request = new RunningRequest(id, sessionId, scope, receivedAt, callerTimeout(payload));
      const onProgress = scope?.onProgress;
      if (onProgress && (payload as { progress?: unknown } | undefined)?.progress === true) {
        request.reportProgress = (progress, total, message) => {
          if (!request.done) onProgress(id, progress, total, message);
        };
      }
      // Ids are unique on a connection; a host that reuses one while it runs cancels the latest.
      pending.set(id, request);
      return request;
    },

    close(request) {
      request.done = true;
      if (pending.get(request.id) === request) pending.delete(request.id);
    },

    cancel(id, scope, reason) {
      const request = pending.get(id);
      if (!request || request.cancelled || (scope !== undefined && request.scope !== scope)) {
        return false;
      }
      const because = reason ? `: ${reason.slice(0, 256)}` : '.';
      request.cancelled = new ToolProtocolError(
        'tool_call_cancelled',
        `The caller cancelled request "${id.slice(0, 128)}"${because}`,
      );
      stop(request, request.cancelled);
      return true;
    },

    run(tool, args, toolId, callId, request) {
      if (request.cancelled) return Promise.reject(request.cancelled);
      const now = Date.now();
      if (request.expired(now)) return Promise.reject(timeoutError(request.timeoutMs));
      const run = new ToolRun();
      let execution: Promise<unknown>;
      try {
        execution = Promise.resolve(
          tool.execute(args, new RunContext(request, toolId, callId, run)),
        );
      } catch (error) {
        execution = Promise.reject(error);
      }
      // The page's own limit for this run, or the caller's deadline if that comes first.
      let deadline = callTimeoutMs > 0 ? now + callTimeoutMs : NEVER;
      let limitMs = callTimeoutMs;
      if (request.deadline < deadline) {
        deadline = request.deadline;
        limitMs = request.timeoutMs;
      }
      // One promise that settles with the tool, or with its deadline or a cancel, first.
      return new Promise((resolve, reject) => {
        request.run = run;
        request.reject = reject;
        request.toolDeadline = deadline;
        request.toolTimeoutMs = limitMs;
        if (deadline !== NEVER) watch(request, deadline - now);
        execution.then(
          (value) => {
            if (request.run !== run) return;
            release(request);
            resolve(value);
          },
          (error) => {
            if (request.run !== run) return;
            release(request);
            reject(error);
          },
        );
      });
    },
  };
}
