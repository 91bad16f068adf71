/**
 * The page's gzip for large response payloads (docs/wire.md "Large payloads", issue 16 item 3):
 * only when the host's welcome did not say `compressPayloads: false`, and asynchronously.
 *
 * 1. CompressionStream('gzip') where the browser has it (every current one): native zlib, fed
 *    and drained through streams, so the page's script never runs a JavaScript deflate and the
 *    call's frame waits on a promise, not on a 20 ms loop. Its output is one standard gzip
 *    member, which the host's node:zlib inflater reads.
 * 2. Elsewhere, fflate in line (the protocol's `gzip`), as every page did before.
 */
import type { GzipAsync } from '@toolwire/protocol';
import { gzip } from '@toolwire/protocol';

async function streamGzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const inLine: GzipAsync = async (bytes) => gzip(bytes);

/** The best gzip this environment has, as a GzipAsync. */
export function pageGzip(): GzipAsync {
  return typeof CompressionStream === 'function' &&
    typeof Blob === 'function' &&
    typeof Response === 'function'
    ? streamGzip
    : inLine;
}
