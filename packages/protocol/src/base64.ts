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

/**
 * Decodes padded base64; returns undefined for anything that is not exactly that. Strictness
 * comes from lengths rather than a regex over the whole text (a regex costs more than the
 * decode itself on megabytes): every decoder below skips or stops at foreign characters, so
 * any of them makes the output shorter than the text's length promises.
 */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  let padding = 0;
  while (padding < text.length && text.charCodeAt(text.length - 1 - padding) === 0x3d) padding++;
  if (padding > 2) return undefined;
  const expected = (text.length / 4) * 3 - padding;
  let bytes: Uint8Array | undefined;
  if (NodeBuffer) {
    // Node also accepts the URL-safe alphabet without complaint; refuse it explicitly.
    if (text.includes('-') || text.includes('_')) return undefined;
    const buffer = NodeBuffer.from(text, 'base64');
    bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  } else if (fromBase64) {
    try {
      bytes = fromBase64(text);
    } catch {
      return undefined;
    }
  } else {
    try {
      const binary = atob(text);
      bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    } catch {
      return undefined;
    }
  }
  return bytes.byteLength === expected ? bytes : undefined;
}
