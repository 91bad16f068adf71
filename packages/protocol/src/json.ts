import { ToolProtocolError } from './errors.js';

export const DEFAULT_MAX_DEPTH = 128;

/** Above this limit the walk is iterative; at or below it, recursion is bounded by the limit. */
const RECURSIVE_WALK_MAX_DEPTH = 512;

/**
 * Throws `tool_payload_too_deep` when objects/arrays nest deeper than `maxDepth` (the root
 * container is depth 1). Recursive only while the recursion is bounded by a small limit (it
 * stops at `maxDepth + 1` frames, whatever the value's real depth), which is about twice as
 * fast; iterative for large limits, so a 100,000-deep value can never overflow the stack.
 */
export function assertDepth(value: unknown, maxDepth: number = DEFAULT_MAX_DEPTH): void {
  if (typeof value !== 'object' || value === null) return;
  const within =
    maxDepth <= RECURSIVE_WALK_MAX_DEPTH
      ? withinDepth(value, 1, maxDepth)
      : withinDepthIterative(value, maxDepth);
  if (!within) {
    throw new ToolProtocolError(
      'tool_payload_too_deep',
      `JSON nests deeper than ${maxDepth} levels.`,
      {
        details: { maxDepth },
      },
    );
  }
}

function withinDepth(node: object, depth: number, maxDepth: number): boolean {
  if (depth > maxDepth) return false;
  const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (typeof child === 'object' && child !== null && !withinDepth(child, depth + 1, maxDepth))
      return false;
  }
  return true;
}

function withinDepthIterative(value: object, maxDepth: number): boolean {
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop() as object;
    const depth = depths.pop() as number;
    if (depth > maxDepth) return false;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return true;
}

/**
 * Compact JSON for a value about to go on the wire, refusing what JSON.stringify would mangle
 * or choke on: nesting beyond `maxDepth`, cycles, BigInt, functions and symbols. `undefined`
 * follows JSON.stringify (a property left out, null in an array). Throws a plain Error describing the problem;
 * callers turn it into `tool_protocol_bridge_failed`.
 */
export function serializeJson(value: unknown, maxDepth: number = DEFAULT_MAX_DEPTH): string {
  checkSerializable(value, maxDepth);
  const json = JSON.stringify(value);
  return json === undefined ? 'null' : json;
}

/** A value JSON cannot carry; `keys` collects the path on the way out (innermost first). */
class Unserializable extends Error {
  keys: (string | number)[] = [];
}

/**
 * The depth and cycle walk behind serializeJson: recursive, but bounded by maxDepth. The path
 * of a failure is put together only when something fails (each level adds its key as the
 * error passes), so the happy path neither allocates strings nor keeps a key stack.
 */
export function checkSerializable(value: unknown, maxDepth: number = DEFAULT_MAX_DEPTH): void {
  try {
    visitSerializable(value, 1, maxDepth, new Set<object>());
  } catch (error) {
    if (!(error instanceof Unserializable)) throw error;
    const path = error.keys
      .reverse()
      .map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`))
      .join('');
    throw new Error(`$${path} ${error.message}`);
  }
}

function visitSerializable(
  node: unknown,
  depth: number,
  maxDepth: number,
  ancestors: Set<object>,
): void {
  if (typeof node !== 'object' || node === null) {
    refuseScalar(node);
    return;
  }
  let target: object = node;
  const toJSON = (node as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    const replaced: unknown = toJSON.call(node);
    if (typeof replaced !== 'object' || replaced === null) {
      refuseScalar(replaced);
      return;
    }
    target = replaced;
  }
  if (depth > maxDepth) throw new Unserializable(`nests deeper than ${maxDepth} levels.`);
  if (ancestors.has(target)) throw new Unserializable('is a cycle back to an ancestor.');
  ancestors.add(target);
  if (Array.isArray(target)) {
    let i = 0;
    try {
      for (; i < target.length; i++) visitSerializable(target[i], depth + 1, maxDepth, ancestors);
    } catch (error) {
      if (error instanceof Unserializable) error.keys.push(i);
      throw error;
    }
  } else {
    const keys = Object.keys(target);
    let i = 0;
    try {
      for (; i < keys.length; i++) {
        visitSerializable(
          (target as Record<string, unknown>)[keys[i] as string],
          depth + 1,
          maxDepth,
          ancestors,
        );
      }
    } catch (error) {
      if (error instanceof Unserializable) error.keys.push(keys[i] as string);
      throw error;
    }
  }
  ancestors.delete(target);
}

/**
 * What JSON cannot hold among non-objects. JSON.stringify throws on a BigInt, and drops a
 * function or a symbol without a word (a result that held one would arrive without it), so all
 * three are refused: the response reports them instead of losing them.
 */
function refuseScalar(node: unknown): void {
  switch (typeof node) {
    case 'bigint':
      throw new Unserializable('is a BigInt, which JSON cannot hold.');
    case 'function':
      throw new Unserializable('is a function, which JSON cannot hold.');
    case 'symbol':
      throw new Unserializable('is a symbol, which JSON cannot hold.');
  }
}

/**
 * Levels an envelope adds above a tool's value (envelope, payload, results[i], evidence,
 * name, result...). `maxDepth` bounds the value; frames get this much more room.
 */
export const FRAME_DEPTH_ALLOWANCE = 8;
