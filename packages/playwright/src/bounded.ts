/**
 * The helper's own `timeout`: a call (or a listing) that has not settled by then rejects with
 * `tool_execution_timeout`. The page is not told: a tool still running there runs on, and its
 * late answer is dropped. Like the wire's, the timeout is `retryable` only for a `read` tool
 * (one that writes may have done its work); a listing's always is.
 */
import type { ToolPolicy } from '@toolwire/polyfill/wire';
import type { WebMCPPath } from './errors.js';
import { WebMCPError } from './errors.js';

export interface Bound {
  via: WebMCPPath;
  /** The tool called; undefined for a listing. */
  toolName?: string | undefined;
  /** The tool's policy once the helper has read it. */
  policy?: () => ToolPolicy | undefined;
}

/** `work`, bounded by `timeout` ms when one is given (0 or undefined: no bound). */
export function bounded<T>(
  work: Promise<T>,
  timeout: number | undefined,
  bound: Bound,
): Promise<T> {
  if (timeout === undefined || timeout === 0) return work;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const { via, toolName } = bound;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const what = toolName === undefined ? 'the tool listing' : `tool "${toolName}"`;
      const message = `Timeout ${timeout}ms exceeded: ${what} did not settle`;
      const retryable = toolName === undefined || bound.policy?.() === 'read';
      reject(new WebMCPError('tool_execution_timeout', message, via, toolName, { retryable }));
    }, timeout);
  });
  work.catch(() => {}); // a page closed after the timeout must not reject unhandled
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
