/**
 * Deadlines for running tools (`limits.callTimeoutMs`): a tool that has not settled in time is
 * given up on with `tool_execution_timeout`, and the signal it was handed aborts with that
 * error as its reason.
 *
 * One sweep timer serves every running call rather than a timer per call (a timer per call
 * cost a browser ~25 us of a ~100 us round trip). It runs only while calls are running.
 */
import type { BridgeTool, ToolContext } from './catalog.js';
import { ToolProtocolError } from './errors.js';

/** Runs `tool` with a signal of its own; settles with the tool, or with the timeout first. */
export type RunTool = (
  tool: BridgeTool,
  args: Record<string, unknown>,
  context: Omit<ToolContext, 'signal'>,
) => Promise<unknown>;

interface Running {
  deadline: number;
  expire(): void;
}

/** `timeoutMs` 0: no deadline (the tool still gets a signal, which never aborts). */
export function createDeadlines(timeoutMs: number): RunTool {
  const running = new Set<Running>();
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

  return (tool, args, context) => {
    const controller = new AbortController();
    let execution: Promise<unknown>;
    try {
      execution = Promise.resolve(tool.execute(args, { ...context, signal: controller.signal }));
    } catch (error) {
      execution = Promise.reject(error);
    }
    if (!timeoutMs) return execution;
    // One promise that settles with the tool or with the sweep's timeout, whichever is first.
    return new Promise((resolve, reject) => {
      const call: Running = {
        deadline: Date.now() + timeoutMs,
        expire: () => {
          controller.abort(
            new ToolProtocolError(
              'tool_execution_timeout',
              `Tool did not finish within ${timeoutMs} ms.`,
            ),
          );
          reject(controller.signal.reason);
        },
      };
      running.add(call);
      if (sweeper === undefined) {
        sweeper = setInterval(sweep, Math.max(10, Math.min(1000, timeoutMs / 4)));
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
}
