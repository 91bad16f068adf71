import { DEFAULT_LIMITS } from '@toolwire/lowering';
import { dataError } from './errors.js';

/**
 * JSON input to a tool without a schema is used as given, as long as it is JSON: checked by a
 * walk rather than copied (a stringify/parse round trip cost more than the rest of a small
 * call). Anything JSON cannot hold (undefined, functions, non-finite numbers, class
 * instances, cycles, nesting past 128) is a DataError naming the path (`tool_arguments_invalid`:
 * arguments that cannot be read, not a schema's verdict). Synchronous, and the
 * walk builds no path strings: the path is put together only when something fails.
 */
export function checkPlain(value: unknown): void {
  const problem = jsonProblem(value, 0, []);
  if (!problem) return;
  const path = problem.keys
    .reverse()
    .map((key) => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('');
  throw dataError([{ path, reason: problem.reason, schemaPath: '' }], 'tool_arguments_invalid');
}

/** What JSON cannot hold; `keys` collects the path on the way out (innermost first). */
interface Problem {
  reason: string;
  keys: (string | number)[];
}

function problemOf(reason: string): Problem {
  return { reason, keys: [] };
}

function jsonProblem(value: unknown, depth: number, open: object[]): Problem | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : problemOf(`${value} is not a JSON number`);
  if (typeof value !== 'object') return problemOf(`a ${typeof value} is not JSON`);
  if (depth >= DEFAULT_LIMITS.maxDepth)
    return problemOf(`nests deeper than ${DEFAULT_LIMITS.maxDepth} levels`);
  // The open containers: at most 128 of them, so a scan beats a Set per call.
  if (open.includes(value)) return problemOf('refers back to itself (a cycle)');
  open.push(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'string' || typeof item === 'boolean' || item === null) continue;
      const problem = jsonProblem(item, depth + 1, open);
      if (problem) {
        problem.keys.push(i);
        return problem;
      }
    }
  } else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      open.pop();
      return problemOf('is not a plain object');
    }
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === 'string' || typeof item === 'boolean' || item === null) continue;
      const problem = jsonProblem(item, depth + 1, open);
      if (problem) {
        problem.keys.push(key);
        return problem;
      }
    }
  }
  open.pop();
  return undefined;
}
