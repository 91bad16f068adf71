/** Structured-mode `webType` checks: does a value have the runtime type a schema names? */

/** Unknown names never match: a schema naming a type this realm lacks rejects, not passes. */
export function matchesWebType(webType: string, value: unknown): boolean {
  if (webType === 'BigInt') return typeof value === 'bigint';
  if (webType === 'TypedArray') return ArrayBuffer.isView(value) && !(value instanceof DataView);
  if (webType === 'Error') return value instanceof Error || isInstance('DOMException', value);
  // Typed arrays, Blob, Map... are all globals: the name is the constructor to test against.
  if (webType in globalThis) return isInstance(webType, value);
  return false;
}

function isInstance(name: string, value: unknown): boolean {
  const type = (globalThis as Record<string, unknown>)[name];
  return typeof type === 'function' && value instanceof (type as new () => unknown);
}
