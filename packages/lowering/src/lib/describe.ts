/** A short name for a value in error messages; never runs user code beyond a prototype read. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
    return typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`;
  }
  try {
    const ctor = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(value) ?? {}, 'constructor');
    const name = typeof ctor?.value === 'function' ? (ctor.value as { name?: unknown }).name : '';
    return typeof name === 'string' && name !== '' ? `a ${name}` : 'an object';
  } catch {
    return 'an object';
  }
}

const TYPE_NAMES = ['null', 'boolean', 'object', 'array', 'number', 'integer', 'string'];

/** `types` bits of a JsonNode as words: `string or null`. */
export function typeWords(types: number): string {
  return TYPE_NAMES.filter((_, i) => types & (1 << i)).join(' or ');
}

/** The JSON Schema type name of a JSON value. */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}
