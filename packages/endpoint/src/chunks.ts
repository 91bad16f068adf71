/**
 * The endpoint's own lazily loaded parts, beside the
 * polyfill's (validators, lowering): the built-in `ui.*` tools' implementations, fflate, and the
 * HMAC for pages without `crypto.subtle` (the fourth, pairing from a link, is loaded by iife.ts,
 * its only user). Module builds let the bundler split each at its import(); the split IIFE
 * (`endpoint.iife.js`) fetches it from beside its own URL as `polyfill-<name>.js` (the one
 * pattern a page serves for every chunk), and a load that fails rejects with the polyfill's
 * ChunkLoadError; the standalone IIFE inlines each (scripts/build.ts).
 */

import { chunkFromScript } from '@toolwire/polyfill/wire';
import type { DeflateModule } from '@toolwire/protocol';
import { importDeflate } from '@toolwire/protocol';

/**
 * The page script being built (a define): both fetch these two parts by URL, the one-file
 * script too, as rarer parts; undefined in the module build.
 */
declare const __TOOLWIRE_IIFE__: 'split' | 'standalone' | undefined;

/** The built-in DOM tools (builtins/runtime.ts). */
export function loadBuiltinRuntime(): Promise<typeof import('./builtins/runtime.js')> {
  return typeof __TOOLWIRE_IIFE__ !== 'undefined'
    ? chunkFromScript('ui-builtins')
    : import('./builtins/runtime.js');
}

/** fflate's DEFLATE and gunzip, for the bridge and the in-line gzip fallback (compression.ts). */
export function loadDeflate(): Promise<DeflateModule> {
  return typeof __TOOLWIRE_IIFE__ !== 'undefined' ? chunkFromScript('deflate') : importDeflate();
}

/** HMAC-SHA-256 without WebCrypto (hmac-fallback.ts), for a page that is not a secure context. */
export function loadHmacFallback(): Promise<typeof import('./hmac-fallback.js')> {
  return typeof __TOOLWIRE_IIFE__ !== 'undefined' && __TOOLWIRE_IIFE__
    ? chunkFromScript('hmac')
    : import('./hmac-fallback.js');
}
