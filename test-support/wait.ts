/**
 * How the unit tests wait: for the event they need, never for a duration.
 *
 * `until` polls a condition until it holds; its timeout is a generous bound that only turns a
 * hang into a failure with a message, never the thing a test measures. `latch` is a window a
 * test holds open itself (a fake's register(), a tool's execute()) and closes when it has made
 * its assertions, so no timer decides how long the window lasts.
 */
import { vi } from 'vitest';

/** The bound on every wait: far beyond what a loaded two-core machine needs. */
export const WAIT_BOUND_MS = 15_000;

/**
 * Resolves with the check's value once it is truthy (or, for a check that asserts, once it
 * stops throwing). Polls every few milliseconds; fails after {@link WAIT_BOUND_MS} with the
 * check's last error, or `what` when it only ever returned a falsy value.
 */
export function until<T>(
  check: () => T | Promise<T>,
  what = `condition ${String(check)}`,
): Promise<Exclude<Awaited<T>, false | 0 | '' | null | undefined>> {
  return vi.waitFor(
    async () => {
      const value = await check();
      if (!value) throw new Error(`still not true: ${what}`);
      return value as Exclude<Awaited<T>, false | 0 | '' | null | undefined>;
    },
    { timeout: WAIT_BOUND_MS, interval: 2 },
  );
}

/** A window a test holds open: `wait` settles only when the test calls `open()`. */
export interface Latch<T = void> {
  readonly wait: Promise<T>;
  readonly isOpen: boolean;
  open(value: T): void;
}

export function latch<T = void>(): Latch<T> {
  let release!: (value: T) => void;
  let isOpen = false;
  const wait = new Promise<T>((resolve) => {
    release = resolve;
  });
  return {
    wait,
    get isOpen() {
      return isOpen;
    },
    open(value: T) {
      isOpen = true;
      release(value);
    },
  };
}
