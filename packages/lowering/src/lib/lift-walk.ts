import { LoweringError } from '../lowering-error.js';
import type { Json } from '../types.js';
import { chooseBranch } from './choose-branch.js';
import { describe, jsonTypeName } from './describe.js';
import { checkCount, checkNumber, checkString, mismatch, requireAll } from './json-checks.js';
import { firstDuplicate, jsonEqual } from './json-equal.js';
import { Pending } from './pending.js';
import { isPlainObject, setOwn } from './plain.js';
import { field, liftRecord, stringField } from './record.js';
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
import { liftBigInt } from './web/bigint.js';
import { liftBinary } from './web/binary.js';
import { liftBlob } from './web/blob.js';
import { liftDate } from './web/date.js';
import { liftImage } from './web/image.js';
import { liftRegExp } from './web/regexp.js';
import { liftUrl } from './web/url.js';

/**
 * JSON -> values, led by the schema (LOWERING.md §"Strict lifting"). One synchronous walk that
 * validates and copies at once: every container is fresh, nothing aliases the input, and the
 * first mismatch throws with the path where it sits. PNG decoding is the only asynchronous
 * part; it runs as WalkState tasks afterwards.
 */
export function liftNode(node: SchemaNode, value: unknown, w: WalkState, depth: number): unknown {
  switch (node.kind) {
    case 'any':
      return liftAny(value, w, depth, node.at);
    case 'json':
      return liftJson(node, value, w, depth);
    case 'web':
      return liftWeb(node, value, w, depth);
    case 'ref':
      return liftNode(node.target as SchemaNode, value, w, depth);
    case 'never':
      return w.fail('constraint_failed', 'The schema here is false: no value fits.', node.at);
    case 'union':
      return liftUnion(node, value, w, depth);
    case 'check':
      return liftCheck(node, value, w, depth);
  }
}

/**
 * Checks a JSON value against an assertion-only node (allOf, not, propertyNames, keywords
 * beside $ref/anyOf/oneOf) without keeping the copy or charging the size budget twice.
 */
export function assertJson(node: SchemaNode, value: unknown, w: WalkState, depth: number): void {
  const mark = w.mark();
  try {
    liftNode(node, value, w, depth);
  } finally {
    w.restore(mark);
  }
}

function notJson(value: unknown, w: WalkState, at: string): never {
  return w.fail('not_json', `${describe(value)} is not JSON.`, at);
}

/** The schema-free copy: the hot path for `{}` and for the unconstrained parts of a schema. */
function liftAny(value: unknown, w: WalkState, depth: number, at: string): Json {
  switch (typeof value) {
    case 'string':
      w.chars += value.length;
      w.items++;
      return value;
    case 'number':
      if (value - value !== 0) notJson(value, w, at);
      w.items++;
      // JSON has one zero: -0 lifts as 0 (LOWERING.md §"Special values").
      return value === 0 ? 0 : value;
    case 'boolean':
      w.items++;
      return value;
    case 'object': {
      if (value === null) {
        w.items++;
        return null;
      }
      if (Array.isArray(value)) {
        // push keeps the copy a packed array; holes in the input read as undefined: not JSON.
        w.enter(value, depth, at);
        const out: Json[] = [];
        for (let i = 0; i < value.length; i++) {
          w.path.push(i);
          out.push(liftAny(value[i], w, depth + 1, at));
          w.path.pop();
        }
        return out;
      }
      // A Date, a Map or a class instance in the input did not come from JSON.parse:
      // refusing it keeps lift's output a function of JSON text alone.
      if (!isPlainObject(value)) notJson(value, w, at);
      w.enter(value, depth, at);
      const out: Record<string, Json> = {};
      const source = value as Record<string, unknown>;
      // Own enumerable keys only: a polluted Object.prototype cannot inject properties.
      for (const key of Object.keys(source)) {
        w.chars += key.length;
        w.items++;
        w.path.push(key);
        const item = liftAny(source[key], w, depth + 1, at);
        w.path.pop();
        if (key === '__proto__') setOwn(out, key, item);
        else out[key] = item;
      }
      return out;
    }
    default:
      return notJson(value, w, at);
  }
}

/**
 * A plain-keyword node: the JSON type first ([L1]: no coercion, so a type outside `types`
 * fails at once), then the value keywords, then the containers' children through their own
 * nodes. `types === 0` means the schema set no `type`, and every JSON type is allowed.
 */
function liftJson(node: JsonNode, value: unknown, w: WalkState, depth: number): unknown {
  const types = node.types;
  let out: unknown;
  switch (typeof value) {
    case 'string':
      if (types !== 0 && (types & T_STRING) === 0) mismatch(node, value, w);
      w.chars += value.length;
      w.items++;
      if (node.stringChecks) checkString(node, value, w);
      out = value;
      break;
    case 'number':
      // `x - x` is 0 for finite numbers only: one subtraction rejects NaN and both infinities.
      if (value - value !== 0) notJson(value, w, node.at);
      // `integer` is its own bit, so {"type": "integer"} admits 2 and refuses 2.5.
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
    case 'object':
      if (value === null) {
        if (types !== 0 && (types & T_NULL) === 0) mismatch(node, value, w);
        w.items++;
        out = null;
      } else if (Array.isArray(value)) {
        if (types !== 0 && (types & T_ARRAY) === 0) mismatch(node, value, w);
        out = liftArray(node, value, w, depth);
      } else {
        if (!isPlainObject(value)) notJson(value, w, node.at);
        if (types !== 0 && (types & T_OBJECT) === 0) mismatch(node, value, w);
        out = liftObject(node, value as Record<string, unknown>, w, depth);
      }
      break;
    default:
      notJson(value, w, node.at);
  }
  // Compared on the input, which the walk above has just proven to be JSON.
  if (node.enum !== undefined && !node.enum.some((option) => jsonEqual(option, value))) {
    w.fail('constraint_failed', 'Not one of the enum values.', `${node.at}/enum`);
  }
  if (node.hasConst && !jsonEqual(node.const, value)) {
    w.fail('constraint_failed', 'Not the const value.', `${node.at}/const`);
  }
  return out;
}

function liftObject(
  node: JsonNode,
  value: Record<string, unknown>,
  w: WalkState,
  depth: number,
): Record<string, unknown> {
  w.enter(value, depth, node.at);
  const keys = Object.keys(value);
  checkCount(node.minProperties, node.maxProperties, keys.length, w, node.at, 'Properties');
  const out: Record<string, unknown> = {};
  const properties = node.properties;
  // Required names are counted as their properties go by; only a shortfall looks closer.
  let found = 0;
  for (const key of keys) {
    w.chars += key.length;
    w.items++;
    w.path.push(key);
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
    const item = liftNode(sub, value[key], w, depth + 1);
    w.path.pop();
    // Inline store for the common key; setOwn only for `__proto__` (a megamorphic call here).
    if (key === '__proto__') setOwn(out, key, item);
    else out[key] = item;
    if (item instanceof Pending) item.fill.push((ready) => setOwn(out, key, ready));
  }
  if (found < node.requiredInProperties || node.requiredElsewhere) requireAll(node, value, w);
  return out;
}

/** prefixItems take the first items, `items` the rest; `items: false` closes the tuple. */
function liftArray(node: JsonNode, value: unknown[], w: WalkState, depth: number): unknown[] {
  w.enter(value, depth, node.at);
  checkCount(node.minItems, node.maxItems, value.length, w, node.at, 'Items');
  const prefix = node.prefixItems;
  const fixed = prefix === undefined ? 0 : prefix.length;
  const out: unknown[] = [];
  for (let i = 0; i < value.length; i++) {
    w.path.push(i);
    const sub = i < fixed ? (prefix as SchemaNode[])[i] : node.items;
    if (i >= fixed && sub?.kind === 'never') {
      w.fail('constraint_failed', `No items allowed after the first ${fixed}.`, sub.at);
    }
    const item = liftNode(sub as SchemaNode, value[i], w, depth + 1);
    w.path.pop();
    out.push(item);
    if (item instanceof Pending) item.fill.push((ready) => (out[i] = ready));
  }
  if (node.uniqueItems) {
    const duplicate = firstDuplicate(value as Json[]);
    if (duplicate >= 0) {
      w.path.push(duplicate);
      w.fail('duplicate_entry', 'Equal to an earlier item.', `${node.at}/uniqueItems`);
    }
  }
  return out;
}

function liftUnion(node: UnionNode, value: unknown, w: WalkState, depth: number): unknown {
  return chooseBranch(node, w, (branch) => liftNode(branch, value, w, depth));
}

/**
 * The producing node walks first, so web-type errors (the interesting ones) win; the asserting
 * nodes then judge the same input, which is JSON, so they never need web types ([L10]).
 */
function liftCheck(node: CheckNode, value: unknown, w: WalkState, depth: number): unknown {
  const out = liftNode(node.produce, value, w, depth);
  for (const branch of node.asserts) assertJson(branch, value, w, depth);
  if (node.negate !== undefined && fits(node.negate, value, w, depth)) {
    w.fail('constraint_failed', 'Matches the schema under "not".', node.negate.at);
  }
  return out;
}

/** Whether an assertion-only node accepts the value; for `not`. */
export function fits(node: SchemaNode, value: unknown, w: WalkState, depth: number): boolean {
  try {
    assertJson(node, value, w, depth);
    return true;
  } catch (error) {
    if (error instanceof LoweringError) return false;
    throw error;
  }
}

/**
 * The allow-list at work ([P1], [L2]): the schema's `webType`, never the data, picks the
 * constructor, and every case below builds its value from a fixed rule.
 */
function liftWeb(node: WebNode, value: unknown, w: WalkState, depth: number): unknown {
  const at = node.at;
  const type = node.webType;
  switch (type) {
    case 'Date':
      return liftDate(value, w, at);
    case 'BigInt':
      return liftBigInt(value, w, at);
    case 'Map':
      return node.objectForm
        ? liftMapObject(node, value, w, depth)
        : liftMapPairs(node, value, w, depth);
    case 'Set':
      return liftSet(node, value, w, depth);
    case 'Blob':
    case 'File':
      return liftBlob(type === 'File', value, w, depth, at);
    case 'ImageBitmap':
    case 'ImageData':
    case 'HTMLCanvasElement':
    case 'OffscreenCanvas':
      return liftImage(type, value, w, depth, at);
    case 'Error':
    case 'DOMException':
      return liftError(node, value, w, depth);
    case 'RegExp':
      return liftRegExp(value, w, depth, at);
    case 'URL':
      return liftUrl(value, w, at);
    default:
      return liftBinary(type, value, w, at);
  }
}

function expectArray(value: unknown, w: WalkState, at: string, what: string): unknown[] {
  if (!Array.isArray(value))
    w.fail('type_mismatch', `${what}, not ${jsonTypeName(value)}.`, `${at}/webType`);
  return value;
}

/** The object form ([T4]): each property name goes through `keys`, its value through `values`. */
function liftMapObject(
  node: WebNode,
  value: unknown,
  w: WalkState,
  depth: number,
): Map<unknown, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    w.fail('type_mismatch', 'A Map with string keys is a JSON object.', `${node.at}/webType`);
  }
  if (!isPlainObject(value)) notJson(value, w, node.at);
  w.enter(value, depth, node.at);
  const map = new Map<unknown, unknown>();
  const source = value as Record<string, unknown>;
  const path = w.path;
  for (const name of Object.keys(source)) {
    path.push(name);
    const key = liftNode(node.keys, name, w, depth + 1);
    const item = liftNode(node.values, source[name], w, depth + 1);
    path.pop();
    // JSON object keys are unique already, and distinct strings lift to distinct keys.
    map.set(key, item);
    if (key instanceof Pending) patchEntries(map, key);
    if (item instanceof Pending) patchEntries(map, item);
  }
  return map;
}

/** The pairs form ([T5]): an array of exactly-two-item arrays, keys unique by JSON form. */
function liftMapPairs(
  node: WebNode,
  value: unknown,
  w: WalkState,
  depth: number,
): Map<unknown, unknown> {
  const pairs = expectArray(value, w, node.at, 'A Map is an array of [key, value] pairs');
  w.enter(pairs, depth, node.at);
  const map = new Map<unknown, unknown>();
  const path = w.path;
  // A scalar JSON key that lifts to itself is a duplicate exactly when the Map does not grow
  // (SameValueZero is JSON equality for scalars, -0 being 0 already). Other keys are compared
  // by their JSON form at the end.
  let compareJson = false;
  for (let i = 0; i < pairs.length; i++) {
    path.push(i);
    const pair = expectArray(pairs[i], w, node.at, 'A Map entry is a [key, value] array');
    w.enter(pair, depth + 1, node.at);
    if (pair.length !== 2) {
      w.fail('invalid_value', 'A Map entry has exactly two items.', `${node.at}/webType`);
    }
    path.push(0);
    const json = pair[0];
    const key = liftNode(node.keys, json, w, depth + 2);
    path[path.length - 1] = 1;
    const item = liftNode(node.values, pair[1], w, depth + 2);
    path.pop();
    path.pop();
    const size = map.size;
    map.set(key, item);
    if (key !== json || (typeof json === 'object' && json !== null)) compareJson = true;
    else if (map.size === size) duplicateKey(w, node, i);
    if (key instanceof Pending) patchEntries(map, key);
    if (item instanceof Pending) patchEntries(map, item);
  }
  if (compareJson) {
    const duplicate = firstDuplicate(pairs.map((pair) => (pair as Json[])[0] as Json));
    if (duplicate >= 0) duplicateKey(w, node, duplicate);
  }
  return map;
}

function duplicateKey(w: WalkState, node: WebNode, index: number): never {
  w.path.push(index, 0);
  return w.fail('duplicate_entry', 'The same key as an earlier entry.', `${node.at}/webType`);
}

function liftSet(node: WebNode, value: unknown, w: WalkState, depth: number): Set<unknown> {
  const items = expectArray(value, w, node.at, 'A Set is an array');
  w.enter(items, depth, node.at);
  const set = new Set<unknown>();
  const path = w.path;
  let compareJson = false;
  for (let i = 0; i < items.length; i++) {
    path.push(i);
    const json = items[i];
    const item = liftNode(node.items, json, w, depth + 1);
    path.pop();
    const size = set.size;
    set.add(item);
    if (item !== json || (typeof json === 'object' && json !== null)) compareJson = true;
    else if (set.size === size) duplicateItem(w, node, i);
    if (item instanceof Pending) patchItems(set, item);
  }
  if (compareJson) {
    const duplicate = firstDuplicate(items as Json[]);
    if (duplicate >= 0) duplicateItem(w, node, duplicate);
  }
  return set;
}

function duplicateItem(w: WalkState, node: WebNode, index: number): never {
  w.path.push(index);
  return w.fail('duplicate_entry', 'Equal to an earlier item.', `${node.at}/webType`);
}

/** Swaps a Pending key or value for the real one, keeping the Map's order. */
function patchEntries(map: Map<unknown, unknown>, pending: Pending): void {
  pending.fill.push((ready) => {
    const entries = [...map];
    map.clear();
    for (const [k, v] of entries) map.set(k === pending ? ready : k, v === pending ? ready : v);
  });
}

function patchItems(set: Set<unknown>, pending: Pending): void {
  pending.fill.push((ready) => {
    const items = [...set];
    set.clear();
    for (const item of items) set.add(item === pending ? ready : item);
  });
}

/** Native constructors an error record may name; anything else becomes an Error with that name. */
const NATIVE_ERRORS = new Map<string, ErrorConstructor>([
  ['Error', Error],
  ['EvalError', EvalError],
  ['RangeError', RangeError],
  ['ReferenceError', ReferenceError],
  ['SyntaxError', SyntaxError],
  ['TypeError', TypeError],
  ['URIError', URIError],
]);

/**
 * Error records ([E1]-[E5]). `name`, `message` and `code` are plain data; `cause` is lifted
 * through the `cause` schema (plain JSON without one, [M7]). The error is built last, so a
 * bad field fails before any constructor runs.
 */
function liftError(node: WebNode, value: unknown, w: WalkState, depth: number): Error {
  const dom = node.webType === 'DOMException';
  const rule = `${node.at}/webType`;
  const record = liftRecord(
    value,
    w,
    depth,
    node.at,
    node.webType,
    ['name', 'message'],
    ['code', 'cause'],
  );
  const name = field(w, 'name', () => stringField(w, record.name, rule, 'name'));
  const message = field(w, 'message', () => stringField(w, record.message, rule, 'message'));
  let code: string | number | undefined;
  if (record.code !== undefined) {
    code = field(w, 'code', () => {
      const given = record.code;
      if (typeof given === 'number' && Number.isFinite(given)) w.items++;
      else if (typeof given === 'string' && !dom) {
        w.chars += given.length;
        w.items++;
      } else
        w.fail('type_mismatch', dom ? 'code is a number.' : 'code is a string or number.', rule);
      return given;
    });
  }
  const hasCause = Object.hasOwn(record, 'cause');
  let cause: unknown;
  if (hasCause) {
    w.path.push('cause');
    cause = liftNode(node.cause, record.cause, w, depth + 1);
    w.path.pop();
  }
  let error: Error;
  if (dom) {
    if (typeof DOMException !== 'function') {
      w.fail('unsupported_in_environment', 'This environment has no DOMException.', node.at);
    }
    // DOMException derives its legacy code from the name; a record claiming another is wrong.
    error = new DOMException(message, name);
    if (code !== undefined && (error as DOMException).code !== code) {
      w.path.push('code');
      w.fail(
        'invalid_value',
        `DOMException ${name} has code ${(error as DOMException).code}.`,
        rule,
      );
    }
  } else {
    // Allow-listed: the record's name picks a native constructor only from this table.
    const Native = NATIVE_ERRORS.get(name);
    error = Native ? new Native(message) : new Error(message);
    if (!Native) {
      Object.defineProperty(error, 'name', { value: name, writable: true, configurable: true });
    }
    if (code !== undefined) (error as Error & { code: unknown }).code = code;
  }
  // Defined like the constructor's own `cause`: non-enumerable, so it does not look like data.
  if (hasCause) {
    const setCause = (ready: unknown): void => {
      Object.defineProperty(error, 'cause', { value: ready, writable: true, configurable: true });
    };
    setCause(cause);
    if (cause instanceof Pending) cause.fill.push(setCause);
  }
  return error;
}
