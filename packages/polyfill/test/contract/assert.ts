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

export const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
