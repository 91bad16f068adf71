/**
 * The spec's "queue a global task on the webmcp task source" (docs/browser-api.md "When the
 * promises settle"): each task runs on its own, after the current task, in the order queued.
 * `scheduler.postTask` carries them where the browser has it, else one MessageChannel, since
 * setTimeout is clamped to 4 ms once timers nest five deep, and `await registerTool()` in a
 * loop would nest them. Where there is neither, setTimeout stands in.
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
  // Chromium's scheduler queues on the page's own thread; a MessagePort's message goes through
  // a pipe and back, and on a busy machine the thread can be put to sleep waiting for it.
  const scheduler = (globalThis as { scheduler?: { postTask(task: () => void): unknown } })
    .scheduler;
  if (scheduler?.postTask) return () => scheduler.postTask(runOne);
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
