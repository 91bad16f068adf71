/**
 * Schemas that need no validator. Loading an engine costs a
 * page 8 KB gzipped (cfworker, the first) to 45 KB (ajv), so a schema that every input
 * satisfies, or every object, is checked here.
 *
 * Trivial, exactly: `true`; an object of annotations only (`{}`, `{description}`...: any value);
 * and `{type: "object"}` beside annotations, `properties` whose every schema is of the first kind,
 * and `additionalProperties` of the first kind (any non-array object, as ajv's and cfworker's
 * `type: "object"` say). Anything else constrains and goes to the engine: `required`, `format`
 * (checked), `webType`, `$ref`, and `{type: "object", properties: {a: {type: "string"}}}`.
 */
import type { Check } from './types.js';

/** Keywords that never reject a value (JSON Schema 2020-12's annotations, and `$schema`). */
const ANNOTATIONS = new Set([
  'title',
  'description',
  '$comment',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$schema',
]);

function acceptsAnything(schema: unknown): boolean {
  if (schema === true) return true;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return false;
  for (const key in schema) if (!ANNOTATIONS.has(key)) return false;
  return true;
}

function acceptsAnyObject(schema: object): boolean {
  if ((schema as { type?: unknown }).type !== 'object') return false;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' || ANNOTATIONS.has(key)) continue;
    if (key === 'additionalProperties' && acceptsAnything(value)) continue;
    if (key !== 'properties' || typeof value !== 'object' || value === null) return false;
    for (const sub of Object.values(value)) if (!acceptsAnything(sub)) return false;
  }
  return true;
}

const ANY: Check = () => null;
const OBJECT: Check = (data) =>
  typeof data === 'object' && data !== null && !Array.isArray(data)
    ? null
    : [{ path: '', reason: 'must be object', schemaPath: '#/type' }];
const known = new WeakMap<object, Check | null>();

/** A check that needs no validator, for a trivial schema (above); undefined for the others. */
export function trivialCheck(schema: object): Check | undefined {
  if (typeof schema !== 'object' || schema === null) return schema === true ? ANY : undefined;
  let check = known.get(schema);
  if (check === undefined) {
    check = acceptsAnything(schema) ? ANY : acceptsAnyObject(schema) ? OBJECT : null;
    known.set(schema, check);
  }
  return check ?? undefined;
}
