/**
 * The wire's fast path for results: the endpoint calls with `encoding: 'json'` and WIRE_RESULT,
 * and a result that is JSON as it stands goes out as it is (run.ts).
 */

/**
 * @internal A CallToolOptions key the endpoint sets (`encoding: 'json'` only): the caller
 * serializes the result at once and keeps nothing, so a result that is already JSON (plain
 * objects and arrays, strings, finite numbers, booleans, null; within lower's depth and size
 * limits; no -0) is handed back as it is instead of being copied by lower, which would give
 * equal JSON. Anything else is lowered as usual. Registered, so that another copy of the
 * polyfill on the page reads it too.
 */
export const WIRE_RESULT: unique symbol = Symbol.for('toolwire.wireResult');

import { DEFAULT_LIMITS } from '@toolwire/lowering';

/**
 * Would lower (no schema) turn `value` into equal JSON as it stands? Plain objects and dense
 * arrays of JSON values only, at most 128 levels, no cycles, and a JSON text surely under
 * lower's size limit (each string counted at 6 bytes a UTF-16 unit, the worst escape). A getter
 * that throws, or anything else unusual, answers false: lower then reports it as it does.
 */
export function isWireJson(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  let bytes = 0;
  const open: object[] = [];
  const visit = (node: unknown, depth: number): boolean => {
    if (node === null || typeof node === 'boolean') {
      bytes += 5;
      return true;
    }
    if (typeof node === 'string') {
      bytes += 6 * node.length + 2;
      return true;
    }
    if (typeof node === 'number') {
      bytes += 24;
      // -0 is lowered (to 0) like anything else lower would change.
      return Number.isFinite(node) && !Object.is(node, -0);
    }
    if (typeof node !== 'object' || depth >= DEFAULT_LIMITS.maxDepth || open.includes(node))
      return false;
    open.push(node);
    bytes += 2;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        bytes += 1;
        if (!(i in node) || !visit(node[i], depth + 1)) return false;
      }
    } else {
      const proto = Object.getPrototypeOf(node);
      if (proto !== Object.prototype && proto !== null) return false;
      const keys = Object.keys(node);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        bytes += 6 * key.length + 4;
        if (!visit((node as Record<string, unknown>)[key], depth + 1)) return false;
      }
    }
    open.pop();
    return bytes <= DEFAULT_LIMITS.maxJsonBytes;
  };
  try {
    return visit(value, 0);
  } catch {
    return false;
  }
}
