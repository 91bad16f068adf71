/**
 * Plain data: the only objects that lower copies property by property and that lift accepts
 * as JSON objects. A prototype of null, or one whose own prototype is null (Object.prototype
 * of this realm or another frame's), makes an object plain; class instances are not.
 */
export function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null;
}

/**
 * Writes an own data property. `out[key] = value` would call the `__proto__` setter and swap
 * the prototype; defining it keeps `__proto__` (like `constructor` and `prototype`) plain data.
 */
export function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(out, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    out[key] = value;
  }
}
