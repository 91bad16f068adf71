/**
 * HMAC-SHA-256 in plain JavaScript (`@noble/hashes`), for pages without `crypto.subtle`: a page
 * served over plain http away from loopback is not a secure context. Loaded only there, as the
 * chunk `polyfill-hmac.js` (chunks.ts).
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';

const encoder = new TextEncoder();

/** HMAC-SHA-256 of the UTF-8 of `message` under the UTF-8 of `key`. */
export function hmacSha256(key: string, message: string): Uint8Array {
  return hmac(sha256, encoder.encode(key), encoder.encode(message));
}
