/**
 * A few assertions that run anywhere (vitest, a Chromium page): the contract cases cannot
 * depend on a test runner, because the same code runs under both.
 */
export class ContractFailure extends Error {
  override name = 'ContractFailure';
}

function show(value: unknown): string {
  try {
    return typeof value === 'string'
      ? JSON.stringify(value)
      : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}

export function equal(actual: unknown, expected: unknown, what: string): void {
  if (!Object.is(actual, expected))
    throw new ContractFailure(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

export function deepEqual(actual: unknown, expected: unknown, what: string): void {
  if (show(actual) !== show(expected))
    throw new ContractFailure(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

export function ok(condition: unknown, what: string): void {
  if (!condition) throw new ContractFailure(what);
}

/** Awaits a rejection and returns the error; fails if the promise fulfils. */
export async function rejects(promise: unknown, what: string): Promise<any> {
  try {
    const value = await promise;
    throw new ContractFailure(`${what}: expected a rejection, got ${show(value)}`);
  } catch (error) {
    if (error instanceof ContractFailure) throw error;
    return error;
  }
}

export async function rejectsWith(promise: unknown, name: string, what: string): Promise<any> {
  const error = await rejects(promise, what);
  equal((error as { name?: string })?.name, name, `${what} (error name)`);
  return error;
}

/**
 * The next `type` event at `target` that `accept` takes, as a promise. The cases wait for the
 * event they need, never for a duration (they also run in a browser page, so they use no test
 * runner's helpers). Call it before the action that causes the event.
 */
export function nextEvent<E extends Event = Event>(
  target: EventTarget,
  type: string,
  accept: (event: E) => boolean = () => true,
): Promise<E> {
  return new Promise((resolve) => {
    const listener = (event: Event) => {
      if (!accept(event as E)) return;
      target.removeEventListener(type, listener);
      resolve(event as E);
    };
    target.addEventListener(type, listener);
  });
}
