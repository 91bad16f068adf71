/**
 * The page's HMAC-SHA-256 for the handshake's proofs (docs/wire.md "The handshake"):
 * `crypto.subtle` where the page has it (secure contexts: https, and http on loopback; an
 * extension's service worker), else the lazily loaded fallback chunk (`@noble/hashes`), for a
 * page served over plain http at another address.
 */
import type { HmacSha256 } from '@toolwire/protocol';
import { loadHmacFallback } from './chunks.js';

const encoder = new TextEncoder();

let fallback: Promise<HmacSha256<Promise<Uint8Array>>> | undefined;

/** The HMAC this page uses: WebCrypto's, or the fallback's once loaded. */
export async function pageHmac(): Promise<HmacSha256<Promise<Uint8Array>>> {
  // Not a secure context: `crypto` is there, `crypto.subtle` is not.
  const subtle = crypto.subtle;
  if (subtle) {
    return async (key, message) =>
      new Uint8Array(
        await subtle.sign(
          'HMAC',
          await subtle.importKey(
            'raw',
            encoder.encode(key),
            { name: 'HMAC', hash: 'SHA-256' },
            false,
            ['sign'],
          ),
          encoder.encode(message),
        ),
      );
  }
  fallback ??= loadHmacFallback().then(
    (module) => async (key, message) => module.hmacSha256(key, message),
  );
  return fallback;
}
