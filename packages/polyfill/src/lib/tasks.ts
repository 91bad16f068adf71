/**
 * The spec's "queue a global task on the webmcp task source" (docs/browser-api.md "When the
 * promises settle"): each task runs on its own, after the current task, in the order queued.
 * One MessageChannel carries them, since setTimeout is clamped to 4 ms once timers nest five
 * deep, and `await registerTool()` in a loop would nest them. Where there is no
 * MessageChannel, setTimeout stands in.
 */
const queue: (() => void)[] = [];
let post: (() => void) | undefined;

export function queueGlobalTask(task: () => void): void {
  queue.push(task);
  post ??= channel();
  post();
}

/** A promise that resolves with `value` in a queued task. */
export function inTask<T>(value: T): Promise<T> {
  return new Promise((resolve) => queueGlobalTask(() => resolve(value)));
}

function channel(): () => void {
  if (typeof MessageChannel !== 'function') return () => setTimeout(runOne, 0);
  const { port1, port2 } = new MessageChannel();
  port1.onmessage = runOne;
  // Node (unit tests, server rendering): a waiting port must not keep the process alive.
  (port1 as MessagePort & { unref?(): void }).unref?.();
  return () => port2.postMessage(null);
}

function runOne(): void {
  queue.shift()?.();
}
