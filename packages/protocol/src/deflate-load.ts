/**
 * fflate (deflate.ts), loaded on first need: the bridge inflates a request's compressed payload
 * and gzips a large response in line (when it is given no compressor) through this, so a page
 * that never meets a compressed payload never loads fflate.
 */
import type * as Deflate from './deflate.js';

/** The module deflate.ts: fflate's `Gunzip` and the codec's `gzip`. */
export type DeflateModule = typeof Deflate;

/**
 * Set in the endpoint's page scripts (a define, see packages/polyfill/src/lib/chunks.ts), which
 * fetch fflate as a chunk of their own and pass `loadDeflate` to the bridge.
 */
declare const __TOOLWIRE_IIFE__: 'split' | 'standalone' | undefined;

/** The bridge's default `loadDeflate`: this package's deflate.ts, by import(). */
export function importDeflate(): Promise<DeflateModule> {
  // The define makes the import() dead code in the split page script, which loads its own.
  return typeof __TOOLWIRE_IIFE__ !== 'undefined'
    ? Promise.reject(new Error('this page script loads fflate itself (loadDeflate)'))
    : import('./deflate.js');
}
