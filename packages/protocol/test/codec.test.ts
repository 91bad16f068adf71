import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { INFLATE_MIN_SLICE_BYTES, inflateToText, MAX_INFLATE_CHUNK_BYTES } from '../src/codec.js';
import {
  COMPRESSION_THRESHOLD_BYTES,
  DEFAULT_MAX_INFLATED_BYTES,
  decodePayload,
  decodePayloadWithInfo,
  encodePayload,
  parseFrame,
  ToolProtocolError,
} from '../src/index.js';
import { CPU_BOUND, codeOf, nested, zeroBomb } from './helpers.js';

function wrapper(gzipBytes: Uint8Array, extra: Record<string, unknown> = {}) {
  return {
    $ansightEncoding: 'gzip-base64-json',
    contentType: 'application/json',
    originalByteCount: 1,
    compressedByteCount: gzipBytes.byteLength,
    data: Buffer.from(gzipBytes).toString('base64'),
    ...extra,
  };
}

describe('encodePayload', () => {
  it('leaves a small payload alone', () => {
    const encoded = encodePayload({ hello: 'world' });
    expect(encoded.encoded).toBe(false);
    expect(encoded.payload).toEqual({ hello: 'world' });
    expect(encoded.json).toBe('{"hello":"world"}');
  });

  it('does not wrap at 32767 bytes and does wrap at 32768', () => {
    // {"t":"…"} is 8 bytes of structure around the string.
    const below = { t: 'a'.repeat(COMPRESSION_THRESHOLD_BYTES - 9) };
    const at = { t: 'a'.repeat(COMPRESSION_THRESHOLD_BYTES - 8) };
    expect(JSON.stringify(below).length).toBe(COMPRESSION_THRESHOLD_BYTES - 1);
    expect(encodePayload(below).encoded).toBe(false);
    expect(JSON.stringify(at).length).toBe(COMPRESSION_THRESHOLD_BYTES);
    expect(encodePayload(at).encoded).toBe(true);
  });

  it('counts UTF-8 bytes, not UTF-16 units', () => {
    // 11,000 three-byte characters: 11,008 units but 33,008 bytes.
    const payload = { t: '€'.repeat(11_000) };
    const encoded = encodePayload(payload);
    expect(encoded.encoded).toBe(true);
    expect(encoded.originalByteCount).toBe(33_008);
  });

  it('compresses a 64 KiB payload and decodes it back exactly', () => {
    const payload = { description: 'tool '.repeat(13_108), list: [1, 2, 3] };
    const encoded = encodePayload(payload);
    expect(encoded.encoded).toBe(true);
    const wrapped = encoded.payload as Record<string, unknown>;
    expect(Object.keys(wrapped)).toEqual([
      '$ansightEncoding',
      'contentType',
      'originalByteCount',
      'compressedByteCount',
      'data',
    ]);
    expect(wrapped.originalByteCount).toBe(JSON.stringify(payload).length);
    expect(wrapped.compressedByteCount).toBeLessThan(wrapped.originalByteCount as number);
    expect(encoded.json).toBe(JSON.stringify(wrapped));
    const decoded = decodePayloadWithInfo(wrapped);
    expect(decoded.payload).toEqual(payload);
    expect(decoded.encoded).toBe(true);
    expect(decoded.compressedByteCount).toBe(wrapped.compressedByteCount);
  });

  it('keeps an incompressible payload as it is (the wrapper would be larger)', () => {
    const noise = Buffer.from(crypto.getRandomValues(new Uint8Array(48 * 1024))).toString('base64');
    const encoded = encodePayload({ noise });
    expect(encoded.encoded).toBe(false);
    expect(encoded.payload).toEqual({ noise });
  });

  it('refuses what JSON cannot carry: cycles, BigInt, excessive depth', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => encodePayload(cyclic)).toThrow(/cycle/);
    expect(() => encodePayload({ n: 10n })).toThrow(/BigInt/);
    expect(() => encodePayload(nested(200))).toThrow(/deeper than 128/);
    expect(() => encodePayload(nested(128))).not.toThrow();
  });

  it('allows shared (non-cyclic) references', () => {
    const shared = { a: 1 };
    expect(encodePayload({ x: shared, y: shared }).json).toBe('{"x":{"a":1},"y":{"a":1}}');
  });
});

describe('decodePayload', () => {
  it('passes a payload without the marker through untouched', () => {
    const payload = { $other: 1, data: 'x' };
    expect(decodePayload(payload)).toBe(payload);
    expect(decodePayload({ $ansightEncoding: '' })).toEqual({ $ansightEncoding: '' });
  });

  it('rejects an unknown encoding', () => {
    expect(
      codeOf(() => decodePayload({ $ansightEncoding: 'brotli-base64-json', data: 'AAAA' })),
    ).toBe('tool_payload_encoding_unsupported');
  });

  it('rejects missing, unpadded and non-base64 data', () => {
    // Pick a payload whose gzip length is not a multiple of 3, so its base64 needs padding.
    let gz = gzipSync(new TextEncoder().encode('{"a":1}'));
    for (let pad = ''; gz.byteLength % 3 === 0; pad += ' ')
      gz = gzipSync(new TextEncoder().encode(`{"a":1}${pad}`));
    const good = Buffer.from(gz).toString('base64');
    expect(good.endsWith('=')).toBe(true);
    expect(decodePayload(wrapper(gz))).toEqual({ a: 1 });
    expect(codeOf(() => decodePayload({ ...wrapper(gz), data: undefined }))).toBe(
      'tool_payload_decode_failed',
    );
    expect(codeOf(() => decodePayload({ ...wrapper(gz), data: 42 }))).toBe(
      'tool_payload_decode_failed',
    );
    expect(codeOf(() => decodePayload({ ...wrapper(gz), data: good.replace(/=+$/, '') }))).toBe(
      'tool_payload_decode_failed',
    );
    expect(codeOf(() => decodePayload({ ...wrapper(gz), data: `*${good.slice(1)}` }))).toBe(
      'tool_payload_decode_failed',
    );
    expect(
      codeOf(() => decodePayload({ ...wrapper(gz), data: `${good.slice(0, 4)} ${good.slice(5)}` })),
    ).toBe('tool_payload_decode_failed');
    expect(
      codeOf(() => decodePayload({ ...wrapper(gz), data: `${good.slice(0, 4)}=${good.slice(5)}` })),
    ).toBe('tool_payload_decode_failed');
    expect(codeOf(() => decodePayload({ ...wrapper(gz), data: `${good.slice(0, -4)}A===` }))).toBe(
      'tool_payload_decode_failed',
    );
    // base64url is a different alphabet, not accepted.
    expect(codeOf(() => decodePayload({ ...wrapper(gz), data: `-_${good.slice(2)}` }))).toBe(
      'tool_payload_decode_failed',
    );
  });

  it('rejects bytes that are not gzip, and a truncated gzip stream', () => {
    const notGzip = new TextEncoder().encode('{"this is":"plain"}....');
    expect(codeOf(() => decodePayload(wrapper(notGzip)))).toBe('tool_payload_decode_failed');
    const gz = gzipSync(new TextEncoder().encode(JSON.stringify({ text: 'abc'.repeat(10_000) })));
    expect(codeOf(() => decodePayload(wrapper(gz.subarray(0, gz.length - 40))))).toBe(
      'tool_payload_decode_failed',
    );
  });

  it('rejects invalid UTF-8, invalid JSON and deep JSON inside the gzip', () => {
    expect(
      codeOf(() => decodePayload(wrapper(gzipSync(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))))),
    ).toBe('tool_payload_decode_failed');
    expect(codeOf(() => decodePayload(wrapper(gzipSync(new TextEncoder().encode('{"a":')))))).toBe(
      'tool_payload_decode_failed',
    );
    const deep = new TextEncoder().encode(`${'['.repeat(500)}${']'.repeat(500)}`);
    expect(codeOf(() => decodePayload(wrapper(gzipSync(deep))))).toBe('tool_payload_too_deep');
  });

  it('refuses an honest oversize claim before inflating', () => {
    const gz = gzipSync(new TextEncoder().encode('{}'));
    expect(
      codeOf(() =>
        decodePayload(wrapper(gz, { originalByteCount: DEFAULT_MAX_INFLATED_BYTES + 1 })),
      ),
    ).toBe('tool_payload_too_large');
  });

  it('refuses a payload that inflates past the limit even when it claims to be small', () => {
    const json = new TextEncoder().encode(JSON.stringify({ text: 'x'.repeat(200_000) }));
    const gz = gzipSync(json);
    expect(
      decodePayload(wrapper(gz, { originalByteCount: 5 }), { maxInflatedBytes: json.length }),
    ).toBeTruthy();
    expect(
      codeOf(() =>
        decodePayload(wrapper(gz, { originalByteCount: 5 }), { maxInflatedBytes: json.length - 1 }),
      ),
    ).toBe('tool_payload_too_large');
  });

  it('refuses a 256 MiB gzip bomb with bounded memory, while inflating', CPU_BOUND, async () => {
    const bomb = await zeroBomb(256);
    expect(bomb.byteLength).toBeLessThan(512 * 1024);
    const limit = 8 * 1024 * 1024;

    // 1. Through the public API: the coded error.
    expect(
      codeOf(() =>
        decodePayload(wrapper(bomb, { originalByteCount: 2 }), { maxInflatedBytes: limit }),
      ),
    ).toBe('tool_payload_too_large');

    // 2. The bound itself: output produced before refusal, how far a chunk overshoots, and what
    //    the process actually allocated, sampled at every chunk.
    let produced = 0;
    let largestOvershoot = 0;
    const memory = () => {
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.arrayBuffers;
    };
    const before = memory();
    let peak = before;
    expect(() =>
      inflateToText(bomb, limit, (chunk, total) => {
        produced = total;
        // A step is sized from the budget left, so no chunk outgrows that budget by more
        // than one minimum step's worst case.
        const remainingBefore = Math.max(0, limit - (total - chunk.byteLength));
        largestOvershoot = Math.max(largestOvershoot, chunk.byteLength - remainingBefore);
        peak = Math.max(peak, memory());
      }),
    ).toThrow(ToolProtocolError);
    expect(largestOvershoot).toBeLessThanOrEqual(MAX_INFLATE_CHUNK_BYTES);
    expect(produced).toBeGreaterThan(limit);
    expect(produced).toBeLessThanOrEqual(limit + MAX_INFLATE_CHUNK_BYTES);
    // The limit plus one chunk, twice over for the text copy and fflate's growing output
    // buffer, plus 16 MiB of slack for the rest of the process; a naive gunzip needs 256 MiB.
    const bound = 2 * (limit + MAX_INFLATE_CHUNK_BYTES) + 16 * 1024 * 1024;
    expect(peak - before).toBeLessThan(bound);
    expect(bound).toBeLessThan((256 * 1024 * 1024) / 4);
    expect(INFLATE_MIN_SLICE_BYTES).toBe(4096);
  });
});

describe('parseFrame', () => {
  it('parses JSON and enforces the depth limit without recursion', () => {
    expect(parseFrame('{"a":[1,{"b":2}]}')).toEqual({ a: [1, { b: 2 }] });
    expect(() => parseFrame(`${'['.repeat(129)}${']'.repeat(129)}`)).toThrow(/deeper than 128/);
    expect(() => parseFrame(`${'['.repeat(128)}${']'.repeat(128)}`)).not.toThrow();
    // 100,000 levels: refused with a code, not a stack overflow.
    expect(codeOf(() => parseFrame(`${'['.repeat(100_000)}${']'.repeat(100_000)}`))).toBe(
      'tool_payload_too_deep',
    );
    expect(codeOf(() => parseFrame('{"a":'))).toBe('tool_payload_decode_failed');
  });
});
