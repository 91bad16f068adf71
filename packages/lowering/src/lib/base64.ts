/**
 * Strict, canonical, padded base64 (RFC 4648 §4; §3.5 canonical: the unused bits of the last
 * symbol are zero). Fastest primitive first: Node's Buffer, then the TC39
 * `Uint8Array.prototype.toBase64` / `Uint8Array.fromBase64`, then btoa/atob.
 */

interface NodeBuffer extends Omit<Uint8Array, 'toString'> {
  toString(encoding?: 'base64'): string;
}
interface NodeBufferStatic {
  from(data: ArrayBufferLike, offset: number, length: number): NodeBuffer;
  from(data: string, encoding: 'base64'): NodeBuffer;
  byteLength(text: string, encoding: 'utf8'): number;
}
type FromBase64 = (text: string, options: { lastChunkHandling: 'strict' }) => Uint8Array;

const NodeBuffer = (globalThis as { Buffer?: NodeBufferStatic }).Buffer;
const nativeFrom = (Uint8Array as unknown as { fromBase64?: FromBase64 }).fromBase64;
const nativeTo = (Uint8Array.prototype as { toBase64?: (this: Uint8Array) => string }).toBase64;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const SHAPE = /^[A-Za-z0-9+/]*={0,2}$/;

/** Length of base64 text for `n` bytes. */
export function base64Length(n: number): number {
  return Math.ceil(n / 3) * 4;
}

export function encodeBase64(bytes: Uint8Array): string {
  if (NodeBuffer)
    return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  if (nativeTo) return nativeTo.call(bytes);
  let binary = '';
  const step = 0x8000; // fromCharCode takes bytes as arguments: keep each call small.
  for (let i = 0; i < bytes.length; i += step) {
    binary += String.fromCharCode(...bytes.subarray(i, i + step));
  }
  return btoa(binary);
}

/**
 * The byte count `text` decodes to, or -1 when it is not canonical padded base64 by its
 * length and its last symbols. O(1): the body is checked while decoding.
 */
export function decodedLength(text: string): number {
  const n = text.length;
  if (n % 4 !== 0) return -1;
  if (n === 0) return 0;
  const pad = text.charCodeAt(n - 1) === 61 ? (text.charCodeAt(n - 2) === 61 ? 2 : 1) : 0;
  if (pad > 0) {
    // The symbol before the padding carries 4 (==) or 2 (=) unused low bits, which must be 0.
    const last = ALPHABET.indexOf(text.charAt(n - 1 - pad));
    if (last < 0 || (last & (pad === 2 ? 0x0f : 0x03)) !== 0) return -1;
  }
  return (n / 4) * 3 - pad;
}

/**
 * Decodes canonical padded base64 into a fresh Uint8Array that owns its whole buffer (never a
 * view into a shared pool), or returns undefined for anything else: other alphabets,
 * whitespace, missing or misplaced padding, non-zero unused bits.
 */
export function decodeBase64(text: string): Uint8Array | undefined {
  const expected = decodedLength(text);
  if (expected < 0) return undefined;
  if (NodeBuffer) {
    // Buffer decodes leniently: it skips characters outside the alphabet (so the length
    // comes out short), stops at '=' (short again), accepts base64url's '-' and '_', and
    // reads a code unit above 0x7f by its low byte. The length, ASCII and '-'/'_' checks
    // close each of those doors at memchr speed, unlike a regular expression over the text.
    if (NodeBuffer.byteLength(text, 'utf8') !== text.length) return undefined;
    if (text.includes('-') || text.includes('_')) return undefined;
    const decoded = NodeBuffer.from(text, 'base64');
    if (decoded.length !== expected) return undefined;
    return ownBuffer(decoded as unknown as Uint8Array);
  }
  if (!SHAPE.test(text)) return undefined;
  if (nativeFrom) {
    try {
      return ownBuffer(nativeFrom(text, { lastChunkHandling: 'strict' }));
    } catch {
      return undefined;
    }
  }
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes.length === expected ? bytes : undefined;
}

/** Small Buffers live in an 8 KiB pool shared with other decodes: never hand that out. */
function ownBuffer(view: Uint8Array): Uint8Array {
  if (view.byteOffset === 0 && view.buffer.byteLength === view.byteLength) {
    return new Uint8Array(view.buffer, 0, view.byteLength);
  }
  return new Uint8Array(view);
}
