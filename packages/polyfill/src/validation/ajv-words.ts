/**
 * ajv's words for a failing keyword, for the @cfworker/json-schema engine (cfworker.ts): a check
 * reports the same `{path, reason, schemaPath}` whichever engine ran it (issue 16, item 2: the
 * light page checks with cfworker first, and ajv may take over mid-session).
 */

/** The value at a schema location (`#/properties/a/minimum`); undefined when it is not there. */
export function schemaAt(schema: unknown, location: string): unknown {
  let value = schema;
  const pointer = location.replace(/^#/, '');
  if (pointer === '') return value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
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
  if (keyword === 'additionalProperties') return 'must NOT have additional properties';
  const bound = BOUNDS[keyword];
  if (bound) return `must be ${bound} ${String(value)}`;
  const count = COUNTS[keyword];
  if (count) return `must NOT have ${count[0]} than ${String(value)} ${count[1]}`;
  return undefined;
}
