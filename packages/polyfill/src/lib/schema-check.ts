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
 * Where the walk is: the label and the keys below it, escaped only when a check fails (issue 16
 * item 5: building every path eagerly was a large share of a cold registration).
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

function checkSub(schema: unknown, trail: Trail, ...keys: string[]): void {
  for (const key of keys) trail.push(key);
  checkSchema(schema, trail);
  trail.length -= keys.length;
}

function checkSchema(schema: unknown, trail: Trail): void {
  if (typeof schema === 'boolean') return;
  if (!isPlainObject(schema)) fail(trail, 'a schema must be an object or a boolean');
  const type = schema.type;
  if (type !== undefined) {
    if (typeof type !== 'string' || !TYPES.has(type)) {
      const types = Array.isArray(type) ? type : [type];
      for (const item of types)
        if (typeof item !== 'string' || !TYPES.has(item))
          fail(trail, `unknown type ${JSON.stringify(item)}`, 'type');
    }
  }
  for (const key of SCHEMA_KEYS) if (key in schema) checkSub(schema[key], trail, key);
  for (const key of SCHEMA_MAP_KEYS) {
    if (!(key in schema)) continue;
    const map = schema[key];
    if (!isPlainObject(map)) fail(trail, 'must be an object of schemas', key);
    for (const name in map) if (Object.hasOwn(map, name)) checkSub(map[name], trail, key, name);
  }
  for (const key of SCHEMA_LIST_KEYS) {
    if (!(key in schema)) continue;
    const list = schema[key];
    if (!Array.isArray(list) || (key !== 'prefixItems' && list.length === 0))
      fail(trail, 'must be a non-empty array of schemas', key);
    for (let i = 0; i < list.length; i++) checkSub(list[i], trail, key, String(i));
  }
  for (const key of NUMBER_KEYS) {
    if (key in schema && typeof schema[key] !== 'number') fail(trail, 'must be a number', key);
  }
  if ('required' in schema) {
    const required = schema.required;
    if (!Array.isArray(required) || required.some((item) => typeof item !== 'string')) {
      fail(trail, 'must be an array of strings', 'required');
    }
  }
  if ('enum' in schema && !Array.isArray(schema.enum)) fail(trail, 'must be an array', 'enum');
  if ('pattern' in schema) {
    if (typeof schema.pattern !== 'string') fail(trail, 'must be a string', 'pattern');
    try {
      new RegExp(schema.pattern, 'u');
    } catch {
      fail(trail, `${JSON.stringify(schema.pattern)} is not a valid regular expression`, 'pattern');
    }
  }
  if ('webType' in schema && typeof schema.webType !== 'string')
    fail(trail, 'must be a string', 'webType');
}

/**
 * Throws a TypeError naming the path of the first problem. Nothing is serialized: a caller
 * that compares two schemas stringifies them itself (only then is it needed).
 */
export function checkToolSchema(schema: unknown, label: string): void {
  if (!isPlainObject(schema)) fail([label], 'a tool schema must be a JSON object');
  checkJson(schema, [label], []);
  checkSchema(schema, [label]);
}
