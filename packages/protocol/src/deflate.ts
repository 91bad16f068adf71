/**
 * What the codec needs of fflate, in one module so that it can be loaded on first need
 * (deflate-load.ts): the streaming gunzip (codec.ts `inflateTextWith`) and the gzip member
 * writer over fflate's DEFLATE (gzip.ts), and the strict base64 decoder a compressed request's
 * data is read with (codec.ts `decodeWith`). A page fetches it only when a compressed payload
 * must be inflated, or gzipped without CompressionStream.
 */
export { decodeBase64 } from '@toolwire/lowering';
export { Gunzip } from 'fflate';
export { gzip } from './gzip.js';
