/**
 * The page's gzip for large response payloads (docs/wire.md "Large payloads"):
 * only when the host's welcome did not say `compressPayloads: false`, and off the main thread.
 *
 * 1. In a dedicated Worker (made once, from a Blob URL) running CompressionStream('gzip'):
 *    Chromium runs a CompressionStream's deflate on the thread that feeds it, so on the page's
 *    main thread 1 MiB of records held it for one ~17 ms task; in the Worker the page's thread
 *    only copies the bytes over. The output is one standard gzip member (node:zlib reads it).
 * 2. Where there is no Worker, or it cannot start (a CSP without `blob:` in `worker-src`), or it
 *    fails: CompressionStream on this thread (native, asynchronous, but on it), else fflate in
 *    line (the protocol's `gzip`, loaded then: chunks.ts), as every page did before. A failed
 *    Worker is not tried again.
 */
import type { GzipAsync } from '@toolwire/protocol';
import { loadDeflate } from './chunks.js';

async function streamGzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const inLine: GzipAsync = async (bytes) => (await loadDeflate()).gzip(bytes);

/** The Worker's whole program: gzip each message's bytes, answer by id, transfer the result. */
const WORKER_SOURCE = `onmessage = async (event) => {
  const { id, bytes } = event.data;
  try {
    const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'));
    const out = await new Response(stream).arrayBuffer();
    postMessage({ id, out }, [out]);
  } catch (error) {
    postMessage({ id, error: String(error) });
  }
};`;

interface Pending {
  resolve(bytes: Uint8Array): void;
  reject(error: Error): void;
}

/** One Worker for the page's life, many requests in flight by id; undefined once it failed. */
function workerGzip(fallback: GzipAsync): GzipAsync {
  let worker: Worker | undefined;
  let failed = false;
  let next = 0;
  const pending = new Map<number, Pending>();
  const fail = () => {
    failed = true;
    worker?.terminate();
    worker = undefined;
    for (const entry of pending.values()) entry.reject(new Error('the gzip worker failed'));
    pending.clear();
  };
  const start = (): Worker | undefined => {
    if (worker || failed) return worker;
    try {
      // The URL is kept (not revoked): the Worker may load it after this returns.
      const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' }));
      worker = new Worker(url);
    } catch {
      failed = true;
      return undefined;
    }
    worker.onmessage = (event: MessageEvent<{ id: number; out?: ArrayBuffer; error?: string }>) => {
      const entry = pending.get(event.data.id);
      pending.delete(event.data.id);
      if (!entry) return;
      if (event.data.out) entry.resolve(new Uint8Array(event.data.out));
      else entry.reject(new Error(event.data.error ?? 'gzip failed'));
    };
    worker.onerror = fail;
    worker.onmessageerror = fail;
    return worker;
  };
  return async (bytes) => {
    const running = start();
    if (!running) return fallback(bytes);
    try {
      return await new Promise<Uint8Array>((resolve, reject) => {
        const id = ++next;
        pending.set(id, { resolve, reject });
        // Copied, not transferred: if the Worker fails, the fallback still has the bytes.
        running.postMessage({ id, bytes });
      });
    } catch {
      return fallback(bytes);
    }
  };
}

let shared: GzipAsync | undefined;

/** The best gzip this environment has, as a GzipAsync (one for the page: one Worker). */
export function pageGzip(): GzipAsync {
  shared ??= choose();
  return shared;
}

function choose(): GzipAsync {
  const stream =
    typeof CompressionStream === 'function' &&
    typeof Blob === 'function' &&
    typeof Response === 'function';
  if (!stream) return inLine;
  return typeof Worker === 'function' && typeof URL.createObjectURL === 'function'
    ? workerGzip(streamGzip)
    : streamGzip;
}
