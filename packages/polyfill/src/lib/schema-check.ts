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

function fail(path: string, problem: string): never {
  throw new TypeError(`Invalid schema at ${path || '/'}: ${problem}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Checks that `value` is JSON data (what JSON.stringify would keep faithfully). */
function checkJson(value: unknown, path: string, seen: Set<object>): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) fail(path, `${value} is not a JSON number`);
    return;
  }
  if (typeof value !== 'object') fail(path, `a ${typeof value} is not JSON`);
  if (seen.has(value)) fail(path, 'the schema refers back to itself (a cycle)');
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) checkJson(value[i], `${path}/${i}`, seen);
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value))
      checkJson(item, `${path}/${escapePointer(key)}`, seen);
  } else fail(path, `a ${value.constructor?.name ?? 'non-plain'} object is not JSON`);
  seen.delete(value);
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function checkSchema(schema: unknown, path: string): void {
  if (typeof schema === 'boolean') return;
  if (!isPlainObject(schema)) fail(path, 'a schema must be an object or a boolean');
  const type = schema.type;
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    for (const item of types)
      if (typeof item !== 'string' || !TYPES.has(item))
        fail(`${path}/type`, `unknown type ${JSON.stringify(item)}`);
  }
  for (const key of SCHEMA_KEYS) if (key in schema) checkSchema(schema[key], `${path}/${key}`);
  for (const key of SCHEMA_MAP_KEYS) {
    if (!(key in schema)) continue;
    const map = schema[key];
    if (!isPlainObject(map)) fail(`${path}/${key}`, 'must be an object of schemas');
    for (const [name, sub] of Object.entries(map))
      checkSchema(sub, `${path}/${key}/${escapePointer(name)}`);
  }
  for (const key of SCHEMA_LIST_KEYS) {
    if (!(key in schema)) continue;
    const list = schema[key];
    if (!Array.isArray(list) || (key !== 'prefixItems' && list.length === 0))
      fail(`${path}/${key}`, 'must be a non-empty array of schemas');
    for (let i = 0; i < list.length; i++) checkSchema(list[i], `${path}/${key}/${i}`);
  }
  for (const key of NUMBER_KEYS) {
    if (key in schema && typeof schema[key] !== 'number')
      fail(`${path}/${key}`, 'must be a number');
  }
  if ('required' in schema) {
    const required = schema.required;
    if (!Array.isArray(required) || required.some((item) => typeof item !== 'string')) {
      fail(`${path}/required`, 'must be an array of strings');
    }
  }
  if ('enum' in schema && !Array.isArray(schema.enum)) fail(`${path}/enum`, 'must be an array');
  if ('pattern' in schema) {
    if (typeof schema.pattern !== 'string') fail(`${path}/pattern`, 'must be a string');
    try {
      new RegExp(schema.pattern, 'u');
    } catch {
      fail(
        `${path}/pattern`,
        `${JSON.stringify(schema.pattern)} is not a valid regular expression`,
      );
    }
  }
  if ('webType' in schema && typeof schema.webType !== 'string')
    fail(`${path}/webType`, 'must be a string');
}

/** Throws a TypeError naming the path of the first problem; returns the schema's JSON text. */
export function checkToolSchema(schema: unknown, label: string): string {
  if (!isPlainObject(schema)) fail(label, 'a tool schema must be a JSON object');
  checkJson(schema, label, new Set());
  checkSchema(schema, label);
  return JSON.stringify(schema);
}
