/**
 * One queue per (toolManager, tool name): every register and unregister the hook issues for a
 * name runs after the previous one settled. StrictMode mounts, unmounts and mounts again in one
 * go, and register() returns a promise; without the queue a late unregister could land after
 * (and remove) the second registration, or a register could find the first still there and
 * fail with InvalidStateError ("already registered").
 */

const queues = new WeakMap<object, Map<string, Promise<void>>>();
const ignore = () => {};

/** Runs `step` once every step queued before it for this manager and name has settled. */
export function enqueue(manager: object, name: string, step: () => unknown): void {
  let byName = queues.get(manager);
  if (!byName) {
    byName = new Map();
    queues.set(manager, byName);
  }
  const queue = byName;
  const tail = (queue.get(name) ?? Promise.resolve()).then(step).then(ignore, ignore);
  queue.set(name, tail);
  // Forget a drained queue, so a page that mounts many short-lived tools keeps no map entries.
  void tail.then(() => {
    if (queue.get(name) === tail) queue.delete(name);
  });
}
