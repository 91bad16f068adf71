/** Structured-mode `webType` checks: does a value have the runtime type a schema names? */
const TYPED_ARRAYS = new Set([
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
]);

/** Unknown names never match: a schema naming a type this realm lacks rejects, not passes. */
export function matchesWebType(webType: string, value: unknown): boolean {
  if (webType === 'BigInt') return typeof value === 'bigint';
  if (webType === 'TypedArray') return ArrayBuffer.isView(value) && !(value instanceof DataView);
  if (webType === 'Error') return value instanceof Error || isInstance('DOMException', value);
  if (TYPED_ARRAYS.has(webType) || webType in globalThis) return isInstance(webType, value);
  return false;
}

function isInstance(name: string, value: unknown): boolean {
  const type = (globalThis as Record<string, unknown>)[name];
  return typeof type === 'function' && value instanceof (type as new () => unknown);
}
