/**
 * Registration-time schema checks (docs/browser-api.md: "a schema that is not valid JSON Schema (or not
 * serializable): TypeError naming the offending path"). Synchronous and dependency-free, so
 * registering never waits for the validator to load; ajv still compiles the schema on the
 * first call and reports anything subtler there.
 */

const TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'integer', 'string']);
const SCHEMA_KEYS = [
  'items',
  'additionalProperties',
  'additionalItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'keys',
  'values',
] as const;
const SCHEMA_MAP_KEYS = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
] as const;
const SCHEMA_LIST_KEYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
const NUMBER_KEYS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
] as const;

/**
 * Where the walk is: the label and the keys below it, escaped only when a check fails (building
 * every path eagerly was a large share of a cold registration).
 */
type Trail = string[];

function fail(trail: Trail, problem: string, ...more: string[]): never {
  const [label, ...keys] = [...trail, ...more];
  const path = `${label}${keys.map((key) => `/${escapePointer(key)}`).join('')}`;
  throw new TypeError(`Invalid schema at ${path || '/'}: ${problem}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks that `value` is JSON data (what JSON.stringify would keep faithfully). `ancestors`
 * holds the objects above it, for cycles (a schema is shallow: a list beats a Set).
 */
function checkJson(value: unknown, trail: Trail, ancestors: object[]): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) fail(trail, `${value} is not a JSON number`);
    return;
  }
  if (typeof value !== 'object') fail(trail, `a ${typeof value} is not JSON`);
  if (ancestors.includes(value)) fail(trail, 'the schema refers back to itself (a cycle)');
  ancestors.push(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'string' || typeof item === 'boolean') continue;
      trail.push(String(i));
      checkJson(item, trail, ancestors);
      trail.pop();
    }
  } else if (isPlainObject(value)) {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const item = value[key];
      // Strings and booleans need no look (the common leaves), nor a trail entry.
      if (typeof item === 'string' || typeof item === 'boolean') continue;
      trail.push(key);
      checkJson(item, trail, ancestors);
      trail.pop();
    }
  } else fail(trail, `a ${value.constructor?.name ?? 'non-plain'} object is not JSON`);
  ancestors.pop();
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Checks a subschema one or two keys below the trail (no rest array per call). */
function checkSub(schema: unknown, trail: Trail, key: string, name?: string): void {
  trail.push(key);
  if (name === undefined) checkSchema(schema, trail);
  else {
    trail.push(name);
    checkSchema(schema, trail);
    trail.pop();
  }
  trail.pop();
}

type KeyKind = 'schema' | 'map' | 'list' | 'number';

/** What each keyword holds, looked up once per key the schema has (not per keyword known). */
const KINDS = new Map<string, KeyKind>([
  ...SCHEMA_KEYS.map((key) => [key, 'schema'] as const),
  ...SCHEMA_MAP_KEYS.map((key) => [key, 'map'] as const),
  ...SCHEMA_LIST_KEYS.map((key) => [key, 'list'] as const),
  ...NUMBER_KEYS.map((key) => [key, 'number'] as const),
]);

function checkSchema(schema: unknown, trail: Trail): void {
  if (typeof schema === 'boolean') return;
  if (!isPlainObject(schema)) fail(trail, 'a schema must be an object or a boolean');
  // One pass over the keys the schema has (a handful), rather than a look for every keyword.
  for (const key in schema) {
    if (!Object.hasOwn(schema, key)) continue;
    const value = schema[key];
    switch (key) {
      case 'type':
        checkType(value, trail);
        continue;
      case 'required':
        if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
          fail(trail, 'must be an array of strings', 'required');
        continue;
      case 'enum':
        if (!Array.isArray(value)) fail(trail, 'must be an array', 'enum');
        continue;
      case 'pattern':
        checkPattern(value, trail);
        continue;
      case 'webType':
        if (typeof value !== 'string') fail(trail, 'must be a string', 'webType');
        continue;
    }
    switch (KINDS.get(key)) {
      case 'schema':
        checkSub(value, trail, key);
        break;
      case 'map':
        if (!isPlainObject(value)) fail(trail, 'must be an object of schemas', key);
        for (const name in value)
          if (Object.hasOwn(value, name)) checkSub(value[name], trail, key, name);
        break;
      case 'list':
        if (!Array.isArray(value) || (key !== 'prefixItems' && value.length === 0))
          fail(trail, 'must be a non-empty array of schemas', key);
        for (let i = 0; i < value.length; i++) checkSub(value[i], trail, key, String(i));
        break;
      case 'number':
        if (typeof value !== 'number') fail(trail, 'must be a number', key);
        break;
    }
  }
}

function checkType(type: unknown, trail: Trail): void {
  if (typeof type === 'string' && TYPES.has(type)) return;
  const types = Array.isArray(type) ? type : [type];
  for (const item of types)
    if (typeof item !== 'string' || !TYPES.has(item))
      fail(trail, `unknown type ${JSON.stringify(item)}`, 'type');
}

function checkPattern(pattern: unknown, trail: Trail): void {
  if (typeof pattern !== 'string') fail(trail, 'must be a string', 'pattern');
  try {
    new RegExp(pattern, 'u');
  } catch {
    fail(trail, `${JSON.stringify(pattern)} is not a valid regular expression`, 'pattern');
  }
}

/**
 * Throws a TypeError naming the path of the first problem. Nothing is serialized: a caller
 * that compares two schemas stringifies them itself (only then is it needed).
 */
export function checkToolSchema(schema: unknown, label: string): void {
  if (!isPlainObject(schema)) fail([label], 'a tool schema must be a JSON object');
  // One trail and one ancestor list, reused; fresh ones when a getter in a schema registers a
  // tool while we walk (the walk reads properties: user code can run).
  const reuse = !walking;
  const trail = reuse ? TRAIL : [];
  const ancestors = reuse ? ANCESTORS : [];
  trail.length = 0;
  trail.push(label);
  ancestors.length = 0;
  walking = true;
  try {
    checkJson(schema, trail, ancestors);
    checkSchema(schema, trail);
  } finally {
    if (reuse) walking = false;
  }
}

const TRAIL: Trail = [];
const ANCESTORS: object[] = [];
let walking = false;
