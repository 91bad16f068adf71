import { constants, deflateRawSync, gzipSync } from 'node:zlib';
import type { InflateText } from '@toolwire/protocol';
import { decodePayload, encodePayload, inflateToText, ToolProtocolError } from '@toolwire/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { Host } from '../src/index.js';
import { createHost } from '../src/index.js';
import { NODE_INFLATE_CHUNK_BYTES, nodeInflateText } from '../src/internal.js';
import { FakePage, tool } from './helpers.js';

function wrapper(gzipBytes: Uint8Array, originalByteCount = 1) {
  return {
    $ansightEncoding: 'gzip-base64-json',
    contentType: 'application/json',
    originalByteCount,
    compressedByteCount: gzipBytes.byteLength,
    data: Buffer.from(gzipBytes).toString('base64'),
  };
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolProtocolError);
    return (error as ToolProtocolError).code;
  }
  throw new Error('expected a ToolProtocolError');
}

/** Both decoders, through the public decodePayload path. */
const decoders: [string, InflateText | undefined][] = [
  ['node:zlib', nodeInflateText],
  ['fflate (default)', undefined],
];

/**
 * A gzip stream of `mebibytes` MiB of zeros, made without holding them in memory and without
 * compressing them all (a gibibyte at level 9 is many seconds of CPU, more than a test's time
 * on a loaded machine): one MiB deflated and sync-flushed to a byte boundary, that block run
 * `mebibytes` times (it refers back only into itself), an empty final block, and the trailer.
 */
function zeroBomb(mebibytes: number): Uint8Array {
  const block = deflateRawSync(Buffer.alloc(1 << 20), {
    level: 9,
    finishFlush: constants.Z_SYNC_FLUSH,
  });
  const length = mebibytes * (1 << 20);
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 0xff]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32OfZeros(length), 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  const blocks = Array.from({ length: mebibytes }, () => block);
  // 0x03 0x00: a final block (fixed Huffman) holding only its end code.
  return new Uint8Array(Buffer.concat([header, ...blocks, Buffer.from([3, 0]), trailer]));
}

/**
 * The CRC-32 of `length` zero bytes, without reading them: the register's step over a zero
 * byte is linear, so `length` steps are that map raised to the `length`th power, by squaring.
 */
function crc32OfZeros(length: number): number {
  // A linear map on the 32-bit register is the list of what it makes of each bit.
  const apply = (map: number[], value: number): number => {
    let out = 0;
    for (let bit = 0; bit < 32; bit++) if ((value >>> bit) & 1) out ^= map[bit] as number;
    return out >>> 0;
  };
  let step = Array.from({ length: 32 }, (_, bit) => {
    let register = 2 ** bit;
    for (let i = 0; i < 8; i++) {
      register = register & 1 ? (register >>> 1) ^ 0xedb88320 : register >>> 1;
    }
    return register >>> 0;
  });
  let register = 0xffffffff;
  for (let n = length; n > 0; n = Math.floor(n / 2)) {
    if (n % 2) register = apply(step, register);
    step = step.map((image) => apply(step, image));
  }
  return (register ^ 0xffffffff) >>> 0;
}

async function compressionStreamGzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const payload = {
  toolId: 'demo.big',
  success: true,
  message: 'ünïcödé ✓ 😀',
  result: { text: 'tool call echo page host socket frame '.repeat(3000), n: [1, 2.5, null] },
  evidence: null,
};

describe('nodeInflateText', () => {
  it('decodes what the page encodes (encodePayload) to the same text as fflate', () => {
    const encoded = encodePayload(payload);
    expect(encoded.encoded).toBe(true);
    const compressed = Buffer.from((encoded.payload as { data: string }).data, 'base64');
    expect(nodeInflateText(compressed, 1 << 20)).toBe(inflateToText(compressed, 1 << 20));
    expect(decodePayload(encoded.payload, { inflate: nodeInflateText })).toEqual(payload);
  });

  it('decodes a CompressionStream gzip payload, as fflate does', async () => {
    const bytes = new TextEncoder().encode(JSON.stringify(payload));
    const compressed = await compressionStreamGzip(bytes);
    expect(Array.from(compressed.subarray(0, 3))).toEqual([0x1f, 0x8b, 8]);
    for (const [, inflate] of decoders) {
      expect(
        decodePayload(wrapper(compressed, bytes.byteLength), inflate ? { inflate } : {}),
      ).toEqual(payload);
    }
  });

  it('allows exactly the limit and refuses one byte more, with the existing code', () => {
    const bytes = new TextEncoder().encode(JSON.stringify(payload));
    const compressed = gzipSync(bytes);
    for (const [name, inflate] of decoders) {
      const options = (maxInflatedBytes: number) => ({
        maxInflatedBytes,
        ...(inflate ? { inflate } : {}),
      });
      expect(decodePayload(wrapper(compressed), options(bytes.byteLength)), name).toEqual(payload);
      expect(codeOf(() => decodePayload(wrapper(compressed), options(bytes.byteLength - 1)))).toBe(
        'tool_payload_too_large',
      );
    }
    expect(codeOf(() => nodeInflateText(gzipSync('{}'), 0))).toBe('tool_payload_too_large');
    const error = (() => {
      try {
        nodeInflateText(compressed, 100);
      } catch (caught) {
        return caught as ToolProtocolError;
      }
    })();
    expect(error?.details).toEqual({ maxInflatedBytes: 100 });
  });

  it('refuses a 1 GiB gzip bomb while inflating: quickly, without the memory to hold it', async () => {
    const bomb = zeroBomb(1024);
    expect(bomb.byteLength).toBeLessThan(2 * 1024 * 1024);
    const limit = 8 * 1024 * 1024;
    const peakBefore = process.resourceUsage().maxRSS * 1024;
    const started = performance.now();
    expect(
      codeOf(() =>
        decodePayload(wrapper(bomb, 2), { maxInflatedBytes: limit, inflate: nodeInflateText }),
      ),
    ).toBe('tool_payload_too_large');
    const elapsed = performance.now() - started;
    const grew = process.resourceUsage().maxRSS * 1024 - peakBefore;
    // Inflating all of it would take a gibibyte (and seconds); stopping at the limit takes the
    // limit plus a chunk, once more for the joined buffer, and some slack.
    expect(grew).toBeLessThan(2 * (limit + NODE_INFLATE_CHUNK_BYTES) + 64 * 1024 * 1024);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('refuses corrupt, truncated, non-gzip and non-UTF-8 input with tool_payload_decode_failed', () => {
    const good = gzipSync(JSON.stringify(payload));
    const flipped = Buffer.from(good);
    const middle = Math.floor(flipped.length / 2);
    flipped[middle] = (flipped[middle] as number) ^ 0xff;
    const badCrc = Buffer.from(good);
    badCrc[badCrc.length - 6] = (badCrc[badCrc.length - 6] as number) ^ 1;
    const cases: [string, Uint8Array][] = [
      ['flipped byte in the deflate data', flipped],
      ['bad CRC', badCrc],
      ['truncated', good.subarray(0, good.length - 20)],
      ['not gzip', new TextEncoder().encode('{"plain":"json"}....')],
      ['invalid UTF-8', gzipSync(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))],
      ['invalid JSON', gzipSync('{"a":')],
    ];
    for (const [name, data] of cases) {
      expect(
        codeOf(() => decodePayload(wrapper(data), { inflate: nodeInflateText })),
        name,
      ).toBe('tool_payload_decode_failed');
    }
  });
});

describe('a host session', () => {
  let host: Host | undefined;
  let page: FakePage | undefined;
  afterEach(async () => {
    page?.socket.terminate();
    await host?.close();
  });

  it('decodes compressed answers and refuses a bomb past its limit (tool_payload_too_large)', async () => {
    const bomb = zeroBomb(64);
    host = await createHost({ origins: ['*'], limits: { maxInflatedBytes: 1024 * 1024 } });
    const big = tool('demo.big', () => payload);
    page = await FakePage.connect(host.url, {
      tools: [big, tool('demo.bomb')],
      intercept: (message) =>
        message.type === 'tool.call' && message.payload?.toolId === 'demo.bomb'
          ? {
              type: 'tool.result',
              id: `${message.id}.response`,
              replyTo: message.id,
              sessionId: message.sessionId,
              sentAt: new Date().toISOString(),
              capability: 'tool.exec',
              payload: wrapper(bomb, 10),
            }
          : undefined,
    });
    const session = await host.waitForSession({
      filter: (s) => s.catalog.get('demo.bomb') !== undefined,
    });
    expect((await session.call('demo.big')).result).toEqual(payload);
    expect(session.stats.encodedResponses).toBe(1);
    const error = await session.call('demo.bomb').catch((caught) => caught);
    expect(error).toBeInstanceOf(ToolProtocolError);
    // The reply, not the request, was refused: its own code, the decoder's in the details.
    expect(error.code).toBe('tool_protocol_invalid_response');
    expect(error.details).toMatchObject({
      reason: 'payload_encoding',
      causeCode: 'tool_payload_too_large',
    });
  });
});
