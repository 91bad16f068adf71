/**
 * The bridge told whether to compress (docs/wire.md "Large payloads", issue 16 item 3): `false`
 * sends even a large payload as it is; a GzipAsync wraps it (and the host's node:zlib reads the
 * member); a compressor that fails leaves the payload readable; absent, fflate's gzip as before
 * (loaded on first need: bridge-deflate-load.test.ts).
 */
import { gunzipSync } from 'node:zlib';
import { decodeBase64 } from '@toolwire/lowering';
import { describe, expect, it } from 'vitest';
import { createAjvProvider } from '../src/ajv.js';
import type { GzipAsync } from '../src/index.js';
import { createToolBridge } from '../src/index.js';
import { request, tool } from './helpers.js';

const rows = Array.from({ length: 2_000 }, (_, i) => ({ id: i, name: `row ${i}`, ok: true }));
const LARGE = { rows }; // about 70 KiB of compact JSON, compressible

/** CompressionStream's gzip, as the page uses it (Node 20 has it too). */
const streamGzip: GzipAsync = async (bytes) => {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
};

function bridgeWith(compress?: () => GzipAsync | false) {
  return createToolBridge({
    validator: createAjvProvider(),
    tools: () => [tool('big.rows', () => LARGE), tool('small.one', () => ({ ok: true }))],
    guard: 'read-write',
    onToolError: () => {},
    ...(compress ? { compress } : {}),
  });
}

async function call(bridge: ReturnType<typeof bridgeWith>, toolId: string) {
  const response = await bridge.handle(request('tool.call', { toolId, arguments: {} }));
  if (!response) throw new Error('no response');
  return JSON.parse(response.frame) as { type: string; payload: Record<string, unknown> };
}

describe('a bridge told whether to compress', () => {
  it('false: a large payload goes as it is', async () => {
    const frame = await call(
      bridgeWith(() => false),
      'big.rows',
    );
    expect(frame.type).toBe('tool.result');
    expect(frame.payload.$ansightEncoding).toBeUndefined();
    expect(frame.payload.result).toEqual(LARGE);
  });

  it('a GzipAsync: wrapped, a member node:zlib inflates to the payload', async () => {
    let asked = 0;
    const frame = await call(
      bridgeWith(() => {
        asked++;
        return streamGzip;
      }),
      'big.rows',
    );
    expect(asked).toBe(1);
    expect(frame.payload.$ansightEncoding).toBe('gzip-base64-json');
    const bytes = decodeBase64(String(frame.payload.data)) as Uint8Array;
    expect(frame.payload.compressedByteCount).toBe(bytes.byteLength);
    const text = gunzipSync(bytes).toString('utf8');
    expect(Buffer.byteLength(text)).toBe(frame.payload.originalByteCount);
    expect(JSON.parse(text).result).toEqual(LARGE);
  });

  it('a small payload is never handed to the compressor', async () => {
    let used = 0;
    const frame = await call(
      bridgeWith(() => async (bytes) => {
        used++;
        return streamGzip(bytes);
      }),
      'small.one',
    );
    expect(used).toBe(0);
    expect(frame.payload.result).toEqual({ ok: true });
  });

  it('a compressor that rejects leaves the payload as it is', async () => {
    const frame = await call(
      bridgeWith(() => async () => {
        throw new Error('no zlib today');
      }),
      'big.rows',
    );
    expect(frame.type).toBe('tool.result');
    expect(frame.payload.result).toEqual(LARGE);
  });

  it('absent: gzipped with fflate, as before', async () => {
    const frame = await call(bridgeWith(), 'big.rows');
    expect(frame.payload.$ansightEncoding).toBe('gzip-base64-json');
  });
});
