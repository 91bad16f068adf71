import { LoweringError } from '../lowering-error.js';
import type { Json } from '../types.js';
import type { WebTypeName } from '../web-types.js';
import { chooseBranch } from './choose-branch.js';
import { anyNode } from './compile-schema.js';
import { describe } from './describe.js';
import { checkCount, checkNumber, checkString, mismatch, requireAll } from './json-checks.js';
import { firstDuplicate, jsonEqual } from './json-equal.js';
import { assertJson, fits } from './lift-walk.js';
import { isPlainObject, setOwn } from './plain.js';
import { countKeys } from './record.js';
import {
  type CheckNode,
  type JsonNode,
  type SchemaNode,
  T_ARRAY,
  T_BOOLEAN,
  T_INTEGER,
  T_NULL,
  T_NUMBER,
  T_OBJECT,
  T_STRING,
  type UnionNode,
  type WebNode,
} from './schema-node.js';
import type { WalkState } from './walk-state.js';
import { lowerBigInt } from './web/bigint.js';
import { binaryTypeOf, isBinaryName, lowerBinary } from './web/binary.js';
import { lowerBlob } from './web/blob.js';
import { lowerDate } from './web/date.js';
import { imageTypeOf, lowerImage } from './web/image.js';
import { lowerRegExp } from './web/regexp.js';
import { lowerUrl } from './web/url.js';

/**
 * Values -> JSON (LOWERING.md). One synchronous walk builds a fresh JSON tree, enforcing the
 * limits as it goes; Blob reads and PNG encodes fill their `data` strings afterwards as
 * WalkState tasks. Without a schema (or under `{}`) values lower by runtime type; under a
 * schema the walk follows it and checks the JSON it makes against the same keywords lift does.
 */

/** Error records nest at most this deep through `cause`; the innermost drops its cause. */
const MAX_ERROR_CAUSE_DEPTH = 4;

type Key = string | number;

export function lowerNode(
  node: SchemaNode,
  value: unknown,
  w: WalkState,
  depth: number,
  key: Key,
): Json {
  switch (node.kind) {
    case 'any':
      return lowerAny(value, w, depth, key, true, node.at);
    case 'json':
      return lowerJson(node, value, w, depth, key, true);
    case 'web':
      return lowerWeb(node, value, w, depth);
    case 'ref':
      return lowerNode(node.target as SchemaNode, value, w, depth, key);
    case 'never':
      return w.fail('constraint_failed', 'The schema here is false: no value fits.', node.at);
    case 'union':
      return lowerUnion(node, value, w, depth, key);
    case 'check':
      return lowerCheck(node, value, w, depth, key);
  }
}

/** Runs `check` now, or after the tasks when the subtree still has `data` to fill in. */
function whenFilled(w: WalkState, tasksBefore: number, check: () => void): void {
  if (w.tasks.length === tasksBefore) {
    check();
    return;
  }
  const path = w.capture();
  w.checks.push(() => {
    w.resume(path);
    check();
  });
}

function unsupported(value: unknown, w: WalkState, at: string): never {
  const what = describe(value);
  const hint =
    typeof value === 'object' ? ' (a class instance: give it toJSON, or pass plain data)' : '';
  return w.fail('unsupported_type', `${what} has no JSON lowering${hint}.`, at);
}

function nonFinite(value: number, w: WalkState, at: string): never {
  return w.fail('invalid_value', `${value} has no JSON form: JSON numbers are finite.`, at);
}

/** The schema-free walk, and the hot path: JSON-native data is copied in one pass. */
function lowerAny(
  value: unknown,
  w: WalkState,
  depth: number,
  key: Key,
  toJSON: boolean,
  at: string,
): Json {
  switch (typeof value) {
    case 'string':
      w.chars += value.length;
      w.items++;
      return value;
    case 'number':
      if (value - value !== 0) nonFinite(value, w, at);
      w.items++;
      // JSON.stringify(-0) is "0": JSON has one zero.
      return value === 0 ? 0 : value;
    case 'boolean':
      w.items++;
      return value;
    case 'object':
      if (value === null) {
        w.items++;
        return null;
      }
      return lowerObjectAny(value, w, depth, key, toJSON, at);
    case 'bigint':
      return lowerBigInt(value, w, at);
    default:
      return unsupported(value, w, at);
  }
}

/**
 * Any object without a schema. The order of the tests is the precedence of the rules:
 * arrays, plain objects (toJSON first, [S11]), allow-listed web types (which ignore their own
 * toJSON), boxed primitives, then toJSON on anything else; what remains is a class instance.
 * The try turns a throwing getter, proxy trap or toJSON into read_failed at this path [S10].
 */
function lowerObjectAny(
  value: object,
  w: WalkState,
  depth: number,
  key: Key,
  toJSON: boolean,
  at: string,
): Json {
  try {
    if (Array.isArray(value)) return lowerArrayAny(value, w, depth, at);
    if (isPlainObject(value)) {
      if (toJSON && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
        return lowerAny(callToJSON(value, key), w, depth, key, false, at);
      }
      return lowerPlainAny(value as Record<string, unknown>, w, depth, at);
    }
    const type = webTypeOf(value);
    if (type !== undefined) return lowerWeb(runtimeNode(type, value, at), value, w, depth);
    const unboxed = unbox(value);
    if (unboxed !== value) return lowerAny(unboxed, w, depth, key, false, at);
    if (toJSON && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      return lowerAny(callToJSON(value, key), w, depth, key, false, at);
    }
    return unsupported(value, w, at);
  } catch (error) {
    return rethrow(error, w, at);
  }
}

/** A getter, a proxy trap or toJSON threw: report it as read_failed where it happened. */
function rethrow(error: unknown, w: WalkState, at: string): never {
  if (error instanceof LoweringError) throw error;
  return w.fail('read_failed', 'Reading the value threw.', at, error);
}

/** toJSON is called once per position, with the key as JSON.stringify passes it. */
function callToJSON(value: object, key: Key): unknown {
  return (value as { toJSON(key: string): unknown }).toJSON(String(key));
}

/** Arrays: index order, `length` items; extra properties and toJSON are not consulted [S12]. */
function lowerArrayAny(value: unknown[], w: WalkState, depth: number, at: string): Json[] {
  w.enter(value, depth, at);
  const out: Json[] = [];
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    w.path.push(i);
    if (item === undefined) holeOrUndefined(value, i, w, at);
    out.push(lowerAny(item, w, depth + 1, i, true, at));
    w.path.pop();
  }
  return out;
}

function holeOrUndefined(array: unknown[], i: number, w: WalkState, at: string): never {
  return w.fail(
    'unsupported_type',
    i in array
      ? 'undefined cannot stand in a JSON array (JSON.stringify would write null): use null.'
      : 'A hole in a sparse array has no JSON form (JSON.stringify would write null).',
    at,
  );
}

function lowerPlainAny(
  value: Record<string, unknown>,
  w: WalkState,
  depth: number,
  at: string,
): Json {
  w.enter(value, depth, at);
  const out: Record<string, Json> = {};
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    w.path.push(key);
    const item = value[key];
    if (item === undefined) {
      // An undefined property is left out, as JSON.stringify does.
      w.path.pop();
      continue;
    }
    w.chars += key.length;
    w.items++;
    const lowered = lowerAny(item, w, depth + 1, key, true, at);
    w.path.pop();
    if (key === '__proto__') setOwn(out, key, lowered);
    else out[key] = lowered;
  }
  return out;
}

/** new Number(1), new String('a'), new Boolean(false), Object(1n): the primitive inside. */
function unbox(value: object): unknown {
  try {
    if (value instanceof Number) return Number.prototype.valueOf.call(value);
    if (value instanceof String) return String.prototype.valueOf.call(value);
    if (value instanceof Boolean) return Boolean.prototype.valueOf.call(value);
    if (value instanceof BigInt) return BigInt.prototype.valueOf.call(value);
  } catch {
    // A forged prototype: not a real box.
  }
  return value;
}

/** The web type of a runtime value, by realm-local brand (instanceof / internal slots). */
function webTypeOf(value: object): WebTypeName | undefined {
  if (value instanceof Date) return 'Date';
  if (value instanceof Map) return 'Map';
  if (value instanceof Set) return 'Set';
  const binary = binaryTypeOf(value);
  if (binary !== undefined) return binary;
  if (typeof DOMException === 'function' && value instanceof DOMException) return 'DOMException';
  if (value instanceof Error) return 'Error';
  if (value instanceof RegExp) return 'RegExp';
  if (typeof URL === 'function' && value instanceof URL) return 'URL';
  if (typeof Blob === 'function' && value instanceof Blob) {
    return typeof File === 'function' && value instanceof File ? 'File' : 'Blob';
  }
  return imageTypeOf(value);
}

/** The web node a schema-less value lowers by; a Map takes the object form if all keys are strings. */
function runtimeNode(webType: WebTypeName, value: object, at: string): WebNode {
  const any = anyNode(at);
  let objectForm = false;
  if (webType === 'Map') {
    objectForm = true;
    for (const key of (value as Map<unknown, unknown>).keys()) {
      if (typeof key !== 'string') {
        objectForm = false;
        break;
      }
    }
  }
  return { kind: 'web', at, webType, keys: any, values: any, objectForm, items: any, cause: any };
}

/**
 * A plain-keyword node: the same checks lift makes ([L12]), applied to the JSON this walk
 * produces, so lower never writes what the published schema would refuse.
 */
function lowerJson(
  node: JsonNode,
  value: unknown,
  w: WalkState,
  depth: number,
  key: Key,
  toJSON: boolean,
): Json {
  const types = node.types;
  const tasksBefore = w.tasks.length;
  let out: Json;
  switch (typeof value) {
    case 'string':
      if (types !== 0 && (types & T_STRING) === 0) mismatch(node, value, w);
      w.chars += value.length;
      w.items++;
      if (node.stringChecks) checkString(node, value, w);
      out = value;
      break;
    case 'number':
      if (value - value !== 0) nonFinite(value, w, node.at);
      if (
        types !== 0 &&
        (types & T_NUMBER) === 0 &&
        ((types & T_INTEGER) === 0 || !Number.isInteger(value))
      ) {
        mismatch(node, value, w);
      }
      w.items++;
      if (node.numberChecks) checkNumber(node, value, w);
      out = value === 0 ? 0 : value;
      break;
    case 'boolean':
      if (types !== 0 && (types & T_BOOLEAN) === 0) mismatch(node, value, w);
      w.items++;
      out = value;
      break;
    case 'object': {
      if (value === null) {
        if (types !== 0 && (types & T_NULL) === 0) mismatch(node, value, w);
        w.items++;
        out = null;
        break;
      }
      const swap = replacement(node, value, w, key, toJSON);
      if (swap !== undefined) return lowerJson(node, swap.value, w, depth, key, false);
      out = lowerContainer(node, value, w, depth);
      break;
    }
    case 'bigint':
      return w.fail(
        'type_mismatch',
        'A BigInt needs {"webType": "BigInt"} in the schema.',
        node.at,
      );
    default:
      return unsupported(value, w, node.at);
  }
  if (node.enum !== undefined || node.hasConst) {
    const made = out;
    whenFilled(w, tasksBefore, () => {
      if (node.enum !== undefined && !node.enum.some((option) => jsonEqual(option, made))) {
        w.fail('constraint_failed', 'Not one of the enum values.', `${node.at}/enum`);
      }
      if (node.hasConst && !jsonEqual(node.const, made)) {
        w.fail('constraint_failed', 'Not the const value.', `${node.at}/const`);
      }
    });
  }
  return out;
}

/**
 * What a plain schema walks in place of a non-plain object: its toJSON result, or the
 * primitive in a box. A web value needs `webType` here; anything else is unsupported.
 */
function replacement(
  node: JsonNode,
  value: object,
  w: WalkState,
  key: Key,
  toJSON: boolean,
): { value: unknown } | undefined {
  if (Array.isArray(value)) return undefined;
  try {
    const plain = isPlainObject(value);
    const type = plain ? undefined : webTypeOf(value);
    if (type !== undefined) {
      w.fail('type_mismatch', `A ${type} needs {"webType": "${type}"} in the schema.`, node.at);
    }
    if (toJSON && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      return { value: callToJSON(value, key) };
    }
    if (plain) return undefined;
    const unboxed = unbox(value);
    return unboxed === value ? unsupported(value, w, node.at) : { value: unboxed };
  } catch (error) {
    return rethrow(error, w, node.at);
  }
}

/** A plain object or an array under a JSON node. */
function lowerContainer(node: JsonNode, value: object, w: WalkState, depth: number): Json {
  const types = node.types;
  try {
    if (Array.isArray(value)) {
      if (types !== 0 && (types & T_ARRAY) === 0) mismatch(node, value, w);
      return lowerArray(node, value, w, depth);
    }
    if (types !== 0 && (types & T_OBJECT) === 0) mismatch(node, value, w);
    return lowerObject(node, value as Record<string, unknown>, w, depth);
  } catch (error) {
    return rethrow(error, w, node.at);
  }
}

function lowerObject(
  node: JsonNode,
  value: Record<string, unknown>,
  w: WalkState,
  depth: number,
): Json {
  w.enter(value, depth, node.at);
  const out: Record<string, Json> = {};
  const properties = node.properties;
  let count = 0;
  let found = 0;
  for (const key of Object.keys(value)) {
    w.path.push(key);
    const item = value[key];
    if (item === undefined) {
      w.path.pop();
      continue;
    }
    count++;
    w.chars += key.length;
    w.items++;
    if (node.propertyNames !== undefined) assertJson(node.propertyNames, key, w, depth + 1);
    const rule = properties?.get(key);
    let sub: SchemaNode;
    if (rule !== undefined) {
      sub = rule.node;
      if (rule.required) found++;
    } else {
      sub = node.additional;
      if (sub.kind === 'never') {
        w.fail('unexpected_property', `Property "${key}" is not allowed.`, sub.at);
      }
    }
    const lowered = lowerNode(sub, item, w, depth + 1, key);
    w.path.pop();
    if (key === '__proto__') setOwn(out, key, lowered);
    else out[key] = lowered;
  }
  // An undefined property was left out, so `required` is checked on what was written.
  if (found < node.requiredInProperties || node.requiredElsewhere) requireAll(node, out, w);
  checkCount(node.minProperties, node.maxProperties, count, w, node.at, 'Properties');
  return out;
}

function lowerArray(node: JsonNode, value: unknown[], w: WalkState, depth: number): Json {
  w.enter(value, depth, node.at);
  checkCount(node.minItems, node.maxItems, value.length, w, node.at, 'Items');
  const tasksBefore = w.tasks.length;
  const prefix = node.prefixItems;
  const fixed = prefix === undefined ? 0 : prefix.length;
  const out: Json[] = [];
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    w.path.push(i);
    if (item === undefined) holeOrUndefined(value, i, w, node.at);
    const sub = i < fixed ? (prefix as SchemaNode[])[i] : node.items;
    if (i >= fixed && sub?.kind === 'never') {
      w.fail('constraint_failed', `No items allowed after the first ${fixed}.`, sub.at);
    }
    out.push(lowerNode(sub as SchemaNode, item, w, depth + 1, i));
    w.path.pop();
  }
  if (node.uniqueItems) {
    whenFilled(w, tasksBefore, () => {
      const duplicate = firstDuplicate(out);
      if (duplicate >= 0) {
        w.path.push(duplicate);
        w.fail('duplicate_entry', 'Equal to an earlier item.', `${node.at}/uniqueItems`);
      }
    });
  }
  return out;
}

function lowerUnion(node: UnionNode, value: unknown, w: WalkState, depth: number, key: Key): Json {
  return chooseBranch(node, w, (branch) => lowerNode(branch, value, w, depth, key));
}

/** As in lift: produce, then let the asserting nodes judge the JSON that was produced. */
function lowerCheck(node: CheckNode, value: unknown, w: WalkState, depth: number, key: Key): Json {
  const tasksBefore = w.tasks.length;
  const out = lowerNode(node.produce, value, w, depth, key);
  whenFilled(w, tasksBefore, () => {
    for (const branch of node.asserts) assertJson(branch, out, w, depth);
    if (node.negate !== undefined && fits(node.negate, out, w, depth)) {
      w.fail('constraint_failed', 'Matches the schema under "not".', node.negate.at);
    }
  });
  return out;
}

/**
 * A `webType` position: the value must be that type ([L12]); its rule (in lib/web/) writes the
 * JSON form. Containers (Map, Set, Error) recurse here because their parts follow sub-schemas.
 */
function lowerWeb(node: WebNode, value: unknown, w: WalkState, depth: number): Json {
  const at = node.at;
  const type = node.webType;
  const wrong = (): never =>
    w.fail('type_mismatch', `Expected ${type}, got ${describe(value)}.`, `${at}/webType`);
  if (type === 'BigInt') {
    if (typeof value !== 'bigint') wrong();
    return lowerBigInt(value as bigint, w, at);
  }
  if (typeof value !== 'object' || value === null) return wrong();
  if (isBinaryName(type)) return lowerBinary(type, value, w, at);
  if (!accepts(type, value)) wrong();
  switch (type) {
    case 'Date':
      return lowerDate(value as Date, w, at);
    case 'Map':
      return node.objectForm
        ? lowerMapObject(node, value as Map<unknown, unknown>, w, depth)
        : lowerMapPairs(node, value as Map<unknown, unknown>, w, depth);
    case 'Set':
      return lowerSet(node, value as Set<unknown>, w, depth);
    case 'Blob':
    case 'File':
      return lowerBlob(type === 'File', value as Blob, w, depth, at) as Json;
    case 'ImageBitmap':
    case 'ImageData':
    case 'HTMLCanvasElement':
    case 'OffscreenCanvas':
      return lowerImage(type, value as ImageBitmap, w, depth, at) as Json;
    case 'Error':
    case 'DOMException':
      return lowerError(node, value as Error, w, depth);
    case 'RegExp':
      return lowerRegExp(value as RegExp, w, depth, at);
    case 'URL':
      return lowerUrl(value as URL, w);
  }
}

/** Exact brand, except that an Error slot takes any Error (DOMException too) and Blob takes File. */
function accepts(type: WebTypeName, value: object): boolean {
  const actual = webTypeOf(value);
  if (actual === type) return true;
  if (type === 'Error') return value instanceof Error;
  return type === 'Blob' && actual === 'File';
}

function undefinedEntry(w: WalkState, at: string, what: string): never {
  return w.fail('unsupported_type', `undefined cannot be a ${what}: JSON has no undefined.`, at);
}

/** The object form ([T4]): keys lower through `keys` to strings, in the Map's order. */
function lowerMapObject(
  node: WebNode,
  map: Map<unknown, unknown>,
  w: WalkState,
  depth: number,
): Json {
  w.enter(map, depth, node.at);
  const out: Record<string, Json> = {};
  for (const [key, item] of map) {
    // Key failures point at the Map itself: a JSON Pointer cannot address a property name.
    const name = lowerNode(node.keys, key, w, depth + 1, '');
    if (typeof name !== 'string') {
      w.fail('type_mismatch', 'Keys of a Map in object form lower to strings.', `${node.at}/keys`);
    }
    w.path.push(name);
    // A string key that lowers to itself is unique already; others (Dates...) may collide.
    if (name !== key && Object.hasOwn(out, name)) {
      w.fail('duplicate_entry', 'Two Map keys lower to the same JSON key.', `${node.at}/webType`);
    }
    if (item === undefined) undefinedEntry(w, node.at, 'Map value');
    setOwn(out, name, lowerNode(node.values, item, w, depth + 1, name));
    w.path.pop();
  }
  return out;
}

function lowerMapPairs(
  node: WebNode,
  map: Map<unknown, unknown>,
  w: WalkState,
  depth: number,
): Json {
  w.enter(map, depth, node.at);
  const tasksBefore = w.tasks.length;
  const out: Json[][] = [];
  const path = w.path;
  // Map keys are unique by SameValueZero; a key that lowers to itself (a string, a finite
  // number, a boolean, null) keeps that uniqueness in JSON. Only other keys need comparing.
  let compareJson = false;
  let i = 0;
  for (const [key, item] of map) {
    path.push(i);
    const pair: Json[] = [null, null];
    // The pair is fresh, so it can never look like a cycle.
    w.enter(pair, depth + 1, node.at);
    path.push(0);
    if (key === undefined) undefinedEntry(w, node.at, 'Map key');
    const json = lowerNode(node.keys, key, w, depth + 2, 0);
    path[path.length - 1] = 1;
    if (item === undefined) undefinedEntry(w, node.at, 'Map value');
    pair[1] = lowerNode(node.values, item, w, depth + 2, 1);
    path.pop();
    path.pop();
    pair[0] = json;
    if (json !== key || (typeof json === 'object' && json !== null)) compareJson = true;
    out.push(pair);
    i++;
  }
  if (compareJson) {
    whenFilled(w, tasksBefore, () => {
      const duplicate = firstDuplicate(out.map((pair) => pair[0] as Json));
      if (duplicate >= 0) {
        w.path.push(duplicate, 0);
        w.fail('duplicate_entry', 'Two Map keys have the same JSON form.', `${node.at}/webType`);
      }
    });
  }
  return out;
}

function lowerSet(node: WebNode, set: Set<unknown>, w: WalkState, depth: number): Json {
  w.enter(set, depth, node.at);
  const tasksBefore = w.tasks.length;
  const out: Json[] = [];
  const path = w.path;
  let compareJson = false;
  let i = 0;
  for (const item of set) {
    path.push(i);
    if (item === undefined) undefinedEntry(w, node.at, 'Set item');
    const json = lowerNode(node.items, item, w, depth + 1, i);
    path.pop();
    if (json !== item || (typeof json === 'object' && json !== null)) compareJson = true;
    out.push(json);
    i++;
  }
  if (compareJson) {
    whenFilled(w, tasksBefore, () => {
      const duplicate = firstDuplicate(out);
      if (duplicate >= 0) {
        w.path.push(duplicate);
        w.fail('duplicate_entry', 'Two Set items have the same JSON form.', `${node.at}/webType`);
      }
    });
  }
  return out;
}

/**
 * Error records ([E1]-[E3]): what a caller needs to tell failures apart (name, message, code)
 * and why it happened (cause, bounded so a self-referencing cause ends). Everything is read
 * through typeof guards: errors must always lower, even odd ones, for ToolExecutionError.
 */
function lowerError(node: WebNode, error: Error, w: WalkState, depth: number): Json {
  w.enter(error, depth, node.at);
  try {
    const name = typeof error.name === 'string' ? error.name : 'Error';
    const message = typeof error.message === 'string' ? error.message : '';
    const code = errorCode(error);
    const out: Record<string, Json> = { name, message };
    countKeys(w, ['name', 'message']);
    w.chars += name.length + message.length;
    w.items += 2;
    if (code !== undefined) {
      countKeys(w, ['code']);
      if (typeof code === 'string') w.chars += code.length;
      w.items++;
      out.code = code;
    }
    // The stack is never read: it names files and lines of the page, not data (docs/browser-api.md).
    const bounded = w.openErrors < MAX_ERROR_CAUSE_DEPTH - 1;
    if (bounded && Object.hasOwn(error, 'cause') && error.cause !== undefined) {
      countKeys(w, ['cause']);
      w.path.push('cause');
      w.openErrors++;
      try {
        out.cause = lowerNode(node.cause, error.cause, w, depth + 1, 'cause');
      } finally {
        w.openErrors--;
      }
      w.path.pop();
    }
    return out;
  } catch (thrown) {
    return rethrow(thrown, w, node.at);
  }
}

/** DOMException's legacy numeric code (0 means none); any other error's string or number code. */
function errorCode(error: Error): string | number | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof DOMException === 'function' && error instanceof DOMException) {
    return typeof code === 'number' && code !== 0 ? code : undefined;
  }
  if (typeof code === 'string') return code;
  if (typeof code === 'number' && Number.isFinite(code)) return code;
  return undefined;
}
