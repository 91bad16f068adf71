/**
 * Standard padded base64 (RFC 4648 §4), strict on input. Uses the fastest primitive the
 * runtime has: Node's Buffer, then the TC39 `Uint8Array.fromBase64`/`toBase64`, then atob/btoa.
 */

interface NodeBufferLike {
  from(
    data: ArrayBufferLike,
    offset: number,
    length: number,
  ): { toString(encoding: 'base64'): string };
  from(data: string, encoding: 'base64'): Uint8Array;
}
interface Uint8ArrayBase64 {
  fromBase64?: (text: string) => Uint8Array;
}

const NodeBuffer = (globalThis as { Buffer?: NodeBufferLike }).Buffer;
const fromBase64 = (Uint8Array as unknown as Uint8ArrayBase64).fromBase64;
const BASE64_SHAPE = /^[A-Za-z0-9+/]*={0,2}$/;

export function encodeBase64(bytes: Uint8Array): string {
  if (NodeBuffer)
    return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  const native = (bytes as Uint8Array & { toBase64?: () => string }).toBase64;
  if (typeof native === 'function') return native.call(bytes);
  let binary = '';
  const step = 0x8000; // String.fromCharCode takes its bytes as arguments: keep the call small.
  for (let i = 0; i < bytes.length; i += step) {
    binary += String.fromCharCode(...bytes.subarray(i, i + step));
  }
  return btoa(binary);
}

/** Decodes padded base64; returns undefined for anything that is not exactly that. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0 || !BASE64_SHAPE.test(text)) return undefined;
  if (NodeBuffer) {
    const buffer = NodeBuffer.from(text, 'base64');
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  }
  if (fromBase64) {
    try {
      return fromBase64(text);
    } catch {
      return undefined;
    }
  }
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}
