import { expect } from 'vitest';
import { LoweringError, type LoweringErrorCode } from '../../src/index.js';

/** Awaits a rejection and returns it as a LoweringError, failing the test on anything else. */
export async function rejection(promise: Promise<unknown>): Promise<LoweringError> {
  const outcome = await promise.then(
    (value) => ({ resolved: value }),
    (reason: unknown) => reason,
  );
  expect(outcome).toBeInstanceOf(LoweringError);
  return outcome as LoweringError;
}

/** Runs a synchronous call that must throw a LoweringError. */
export function thrown(run: () => unknown): LoweringError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(LoweringError);
  return caught as LoweringError;
}

export async function expectCode(
  promise: Promise<unknown>,
  code: LoweringErrorCode,
  path?: string,
  schemaPath?: string,
): Promise<LoweringError> {
  const error = await rejection(promise);
  expect(error.code).toBe(code);
  if (path !== undefined) expect(error.path).toBe(path);
  if (schemaPath !== undefined) expect(error.schemaPath).toBe(schemaPath);
  return error;
}
