import { ToolProtocolError } from './errors.js';

export const DEFAULT_MAX_DEPTH = 128;

/**
 * Throws `tool_payload_too_deep` when objects/arrays nest deeper than `maxDepth` (the root
 * container is depth 1). Iterative, so a 100,000-deep value cannot overflow the stack.
 */
export function assertDepth(value: unknown, maxDepth: number = DEFAULT_MAX_DEPTH): void {
  if (typeof value !== 'object' || value === null) return;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop() as object;
    const depth = depths.pop() as number;
    if (depth > maxDepth) {
      throw new ToolProtocolError(
        'tool_payload_too_deep',
        `JSON nests deeper than ${maxDepth} levels.`,
        {
          details: { maxDepth },
        },
      );
    }
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
}

/**
 * Compact JSON for a value about to go on the wire, refusing what JSON.stringify would mangle
 * or choke on: nesting beyond `maxDepth`, cycles, BigInt. Values JSON drops (undefined,
 * functions, symbols) follow JSON.stringify. Throws a plain Error describing the problem;
 * callers turn it into `tool_protocol_bridge_failed`.
 */
export function serializeJson(value: unknown, maxDepth: number = DEFAULT_MAX_DEPTH): string {
  checkSerializable(value, maxDepth);
  const json = JSON.stringify(value);
  return json === undefined ? 'null' : json;
}

/** The depth and cycle walk behind serializeJson: recursive, but bounded by maxDepth. */
export function checkSerializable(value: unknown, maxDepth: number = DEFAULT_MAX_DEPTH): void {
  const ancestors = new Set<object>();
  // The path is kept as a key stack and only joined when something fails, so the happy path
  // allocates no strings.
  const keys: (string | number)[] = [];
  const fail = (problem: string): never => {
    const path = keys.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('');
    throw new Error(`$${path} ${problem}`);
  };
  const visit = (node: unknown, depth: number): void => {
    if (typeof node === 'bigint') fail('is a BigInt, which JSON cannot hold.');
    if (typeof node !== 'object' || node === null) return;
    let target: object = node;
    const toJSON = (node as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      const replaced: unknown = toJSON.call(node);
      if (typeof replaced === 'bigint') fail('is a BigInt, which JSON cannot hold.');
      if (typeof replaced !== 'object' || replaced === null) return;
      target = replaced;
    }
    if (depth > maxDepth) fail(`nests deeper than ${maxDepth} levels.`);
    if (ancestors.has(target)) fail('is a cycle back to an ancestor.');
    ancestors.add(target);
    if (Array.isArray(target)) {
      for (let i = 0; i < target.length; i++) {
        keys.push(i);
        visit(target[i], depth + 1);
        keys.pop();
      }
    } else {
      for (const key in target) {
        if (!Object.hasOwn(target, key)) continue;
        keys.push(key);
        visit((target as Record<string, unknown>)[key], depth + 1);
        keys.pop();
      }
    }
    ancestors.delete(target);
  };
  visit(value, 1);
}

/**
 * Levels an envelope adds above a tool's value (envelope, payload, results[i], evidence,
 * name, result...). `maxDepth` bounds the value; frames get this much more room.
 */
export const FRAME_DEPTH_ALLOWANCE = 8;
