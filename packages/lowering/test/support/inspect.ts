/**
 * A plain, comparable picture of a value: what each web type holds (bytes, type, name, pixels
 * aside), so that `expect(await inspect(a)).toEqual(await inspect(b))` fails whenever the two
 * differ in anything the lowering promises to keep. vitest's own equality sees two Blobs (or
 * two DataViews over different offsets) as equal; this does not.
 */
export async function inspect(value: unknown): Promise<unknown> {
  switch (typeof value) {
    case 'number':
      return Object.is(value, -0) ? '-0' : value;
    case 'bigint':
      return { bigint: value.toString() };
    case 'undefined':
      return { undefined: true };
    case 'object':
      break;
    default:
      return value;
  }
  if (value === null) return null;
  if (Array.isArray(value)) return Promise.all(value.map(inspect));
  if (value instanceof Date) return { Date: value.getTime() };
  if (value instanceof Map) {
    const entries = [];
    for (const [k, v] of value) entries.push([await inspect(k), await inspect(v)]);
    return { Map: entries };
  }
  if (value instanceof Set) return { Set: await Promise.all([...value].map(inspect)) };
  if (value instanceof ArrayBuffer) return { ArrayBuffer: [...new Uint8Array(value)] };
  if (ArrayBuffer.isView(value)) {
    const tag =
      value instanceof DataView ? 'DataView' : Object.prototype.toString.call(value).slice(8, -1);
    return {
      [tag]: [...new Uint8Array(value.buffer, value.byteOffset, value.byteLength)],
      byteOffset: value.byteOffset,
      bufferLength: value.buffer.byteLength,
    };
  }
  if (typeof File === 'function' && value instanceof File) {
    const bytes = [...new Uint8Array(await value.arrayBuffer())];
    return {
      File: { type: value.type, name: value.name, lastModified: value.lastModified, bytes },
    };
  }
  if (typeof Blob === 'function' && value instanceof Blob) {
    return { Blob: { type: value.type, bytes: [...new Uint8Array(await value.arrayBuffer())] } };
  }
  if (typeof DOMException === 'function' && value instanceof DOMException) {
    return { DOMException: { name: value.name, message: value.message, code: value.code } };
  }
  if (value instanceof Error) {
    const natives = [EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError];
    const native = natives.find((ctor) => value instanceof ctor)?.name ?? 'Error';
    const out: Record<string, unknown> = { native, name: value.name, message: value.message };
    const code = (value as { code?: unknown }).code;
    if (code !== undefined) out.code = code;
    if (Object.hasOwn(value, 'cause')) out.cause = await inspect(value.cause);
    return { Error: out };
  }
  if (value instanceof RegExp) return { RegExp: [value.source, value.flags] };
  if (value instanceof URL) return { URL: value.href };
  const proto = Object.getPrototypeOf(value);
  const entries: [string, unknown][] = [];
  for (const key of Object.keys(value)) {
    entries.push([key, await inspect((value as Record<string, unknown>)[key])]);
  }
  return {
    object: proto === Object.prototype ? 'Object' : proto === null ? 'null' : 'other',
    entries,
  };
}
