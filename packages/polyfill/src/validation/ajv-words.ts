/**
 * ajv's words for a failing keyword, for the @cfworker/json-schema engine (cfworker.ts): a check
 * reports the same `{path, reason, schemaPath}` whichever engine ran it (the
 * light page checks with cfworker first, and ajv may take over mid-session).
 */

/**
 * A schema path's segment as written (`~1`, `~0`, percent-encoding) read back as a key. A
 * malformed escape (a `$ref` with a lone `%`) throws: its check fails as a schema that cannot
 * be checked (run.ts), which cfworker itself could not follow either.
 */
function keyOf(raw: string): string {
  return decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * A key as both engines write it in a schema path: a JSON Pointer segment (`~0`, `~1`),
 * percent-encoded as a URI fragment (ajv's way), `$` left as it is (`#/$defs/...`).
 */
export function segmentOf(key: string): string {
  return encodeURIComponent(key.replace(/~/g, '~0').replace(/\//g, '~1')).replace(/%24/g, '$');
}

/** The value at a schema location (`#/properties/a/minimum`); undefined when it is not there. */
export function schemaAt(schema: unknown, location: string): unknown {
  let value = schema;
  for (const raw of location.split('/').slice(1)) {
    const key = keyOf(raw);
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * A keyword's place in the schema itself, for a location that passes through `$ref`s
 * (cfworker's `#/properties/a/$ref/minLength`): each `$ref` is replaced by the place it leads
 * to (`#/$defs/a/minLength`), which is what ajv reports and what `schemaAt` can read, every
 * segment written as `segmentOf` writes it. Undefined when the location leaves the schema or
 * a `$ref` is not a local pointer (an `$id` or an `$anchor`).
 */
export function resolvedLocation(root: unknown, location: string): string | undefined {
  const parts = location.split('/').slice(1);
  let node = root;
  let path = '#';
  for (let index = 0; index < parts.length; index++) {
    const key = keyOf(parts[index] as string);
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    const value = (node as Record<string, unknown>)[key];
    // A keyword (a property named "$ref" would hold a schema, never a string).
    if (key === '$ref' && typeof value === 'string') {
      // A `$ref` that leads to itself (`#/$ref`) is no schema cfworker could check either.
      if (!/^#(\/|$)/.test(value)) return undefined;
      return resolvedLocation(root, [value, ...parts.slice(index + 1)].join('/'));
    }
    node = value;
    path += `/${segmentOf(key)}`;
  }
  return path;
}

const BOUNDS: Record<string, string> = {
  minimum: '>=',
  maximum: '<=',
  exclusiveMinimum: '>',
  exclusiveMaximum: '<',
};
const COUNTS: Record<string, [string, string]> = {
  minLength: ['fewer', 'characters'],
  maxLength: ['more', 'characters'],
  minItems: ['fewer', 'items'],
  maxItems: ['more', 'items'],
  minProperties: ['fewer', 'properties'],
  maxProperties: ['more', 'properties'],
};

/** ajv 8's English message for `keyword` failing with `value` (the keyword's schema value). */
export function ajvReason(keyword: string, value: unknown): string | undefined {
  if (keyword === 'type')
    return `must be ${Array.isArray(value) ? value.join(',') : String(value)}`;
  if (keyword === 'enum') return 'must be equal to one of the allowed values';
  if (keyword === 'const') return 'must be equal to constant';
  if (keyword === 'pattern') return `must match pattern "${String(value)}"`;
  if (keyword === 'format') return `must match format "${String(value)}"`;
  if (keyword === 'multipleOf') return `must be multiple of ${String(value)}`;
  if (keyword === 'not') return 'must NOT be valid';
  if (keyword === 'anyOf') return 'must match a schema in anyOf';
  if (keyword === 'oneOf') return 'must match exactly one schema in oneOf';
  if (keyword === 'additionalProperties') return 'must NOT have additional properties';
  const bound = BOUNDS[keyword];
  if (bound) return `must be ${bound} ${String(value)}`;
  const count = COUNTS[keyword];
  if (count) return `must NOT have ${count[0]} than ${String(value)} ${count[1]}`;
  return undefined;
}
