import { crc32 as zlibCrc32, gunzipSync as zlibGunzip } from 'node:zlib';
import { gunzipSync, gzipSync } from 'fflate';
import { describe, expect, it, vi } from 'vitest';
import { createAjvProvider } from '../src/ajv.js';
import { utf8Bytes } from '../src/codec.js';
import { crc32, gzip } from '../src/gzip.js';
import {
  createLinkedPair,
  createToolBridge,
  createToolClient,
  decodePayload,
  decodePayloadWithInfo,
  encodePayload,
  parseFrame,
  ToolProtocolError,
} from '../src/index.js';
import { CPU_BOUND, codeOf, request, tool } from './helpers.js';

/** Deterministic bytes: text-like (compressible) or noise. */
function bytesOf(length: number, kind: 'text' | 'noise'): Uint8Array {
  const out = new Uint8Array(length);
  let state = 0x12345678 ^ length;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = kind === 'text' ? 97 + ((state >>> 24) % 8) : state >>> 24;
  }
  return out;
}

describe('crc32 (slicing-by-8)', CPU_BOUND, () => {
  it('matches zlib for every length 0..64, at odd offsets, and on a megabyte', () => {
    const data = bytesOf(1 << 20, 'noise');
    for (let length = 0; length <= 64; length++) {
      for (const offset of [0, 1, 3, 7]) {
        const view = data.subarray(offset, offset + length);
        expect(crc32(view)).toBe(zlibCrc32(view));
      }
    }
    expect(crc32(data)).toBe(zlibCrc32(data));
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });
});

describe('gzip', CPU_BOUND, () => {
  it('is byte for byte what fflate gzipSync makes with mtime 0, at every level', () => {
    for (const length of [0, 1, 100, 40_000]) {
      for (const kind of ['text', 'noise'] as const) {
        const data = bytesOf(length, kind);
        for (const level of [0, 1, 6, 9] as const) {
          expect(Buffer.from(gzip(data, level))).toEqual(
            Buffer.from(gzipSync(data, { level, mtime: 0 })),
          );
        }
      }
    }
  });

  it('makes one gzip member that fflate and node:zlib both inflate exactly', () => {
    const data = bytesOf(100_000, 'text');
    const member = gzip(data);
    expect(Buffer.from(gunzipSync(member))).toEqual(Buffer.from(data));
    expect(zlibGunzip(member)).toEqual(Buffer.from(data));
  });
});

describe('utf8Bytes', () => {
  it('equals TextEncoder.encode for ASCII, multi-byte text, pairs at the buffer edge and lone surrogates', () => {
    const encoder = new TextEncoder();
    const cases = [
      '',
      'a',
      'plain ascii '.repeat(1000),
      'héllo wörld ✓ '.repeat(500),
      `${'a'.repeat(1000)}${'😀'.repeat(1000)}`,
      '😀'.repeat(3),
      `${'x'.repeat(8)}😀`,
      `lone \ud800 high and \udc00 low`,
      '\u0800'.repeat(10_000),
    ];
    for (const text of cases) {
      expect(Buffer.from(utf8Bytes(text))).toEqual(Buffer.from(encoder.encode(text)));
    }
  });
});

describe('encodePayload with the new gzip', () => {
  it('wraps a large payload that node:zlib gunzips to the same JSON', () => {
    const payload = { text: 'tool call echo page host '.repeat(4000), n: [1, 2, 3] };
    const encoded = encodePayload(payload);
    expect(encoded.encoded).toBe(true);
    const wrapper = encoded.payload as { data: string; originalByteCount: number };
    const inflated = zlibGunzip(Buffer.from(wrapper.data, 'base64')).toString('utf8');
    expect(inflated).toBe(JSON.stringify(payload));
    expect(wrapper.originalByteCount).toBe(Buffer.byteLength(inflated));
    expect(decodePayload(encoded.payload)).toEqual(payload);
  });
});

describe('an injected inflate', () => {
  const payload = { text: 'abc '.repeat(20_000) };
  const wrapped = encodePayload(payload).payload;

  it('is used instead of the default, with the limit', () => {
    const inflate = vi.fn((compressed: Uint8Array, _maxBytes: number) =>
      Buffer.from(gunzipSync(compressed)).toString(),
    );
    const decoded = decodePayloadWithInfo(wrapped, { inflate, maxInflatedBytes: 1 << 20 });
    expect(decoded.payload).toEqual(payload);
    expect(inflate).toHaveBeenCalledTimes(1);
    expect(inflate.mock.calls[0]?.[1]).toBe(1 << 20);
  });

  it('keeps its coded errors, and any other throw becomes tool_payload_decode_failed', () => {
    const tooLarge = () => {
      throw new ToolProtocolError('tool_payload_too_large', 'too large');
    };
    expect(codeOf(() => decodePayload(wrapped, { inflate: tooLarge }))).toBe(
      'tool_payload_too_large',
    );
    const broken = () => {
      throw new RangeError('zlib said no');
    };
    expect(codeOf(() => decodePayload(wrapped, { inflate: broken }))).toBe(
      'tool_payload_decode_failed',
    );
  });

  it('is what a client decodes responses with', async () => {
    const [hostEnd, pageEnd] = createLinkedPair();
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => [tool('demo.big', () => payload)],
    });
    pageEnd.onmessage = async (frame) => {
      const response = await bridge.handle(frame);
      if (response) pageEnd.send(response.frame);
    };
    const inflate = vi.fn((compressed: Uint8Array) =>
      Buffer.from(gunzipSync(compressed)).toString(),
    );
    const client = createToolClient(hostEnd, { inflate });
    const result = await client.call({ toolId: 'demo.big' });
    expect(result.result).toEqual(payload);
    expect(inflate).toHaveBeenCalledTimes(1);
  });
});

describe('parseFrame depth check', () => {
  it('refuses a small deep frame and accepts brackets inside strings', () => {
    expect(codeOf(() => parseFrame(`{"a":${'['.repeat(200)}${']'.repeat(200)}}`))).toBe(
      'tool_payload_too_deep',
    );
    const brackets = JSON.stringify({ text: '[{'.repeat(500) });
    expect(parseFrame(brackets)).toEqual({ text: '[{'.repeat(500) });
    // At the limit (the scan alone would let it through; it counts exactly maxDepth openings).
    expect(() => parseFrame('[[[]]]', { maxDepth: 3 })).not.toThrow();
    expect(codeOf(() => parseFrame('[[[[]]]]', { maxDepth: 3 }))).toBe('tool_payload_too_deep');
    // Many openings, none deep: walked, accepted.
    expect(() => parseFrame(JSON.stringify(Array.from({ length: 300 }, () => ({}))))).not.toThrow();
  });
});

describe('a bridge response', () => {
  it('is its frame, written once in the wire key order; the envelope is that frame parsed', async () => {
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => [tool('demo.echo', (args) => args)],
    });
    for (const message of [
      request('tool.call', { toolId: 'demo.echo', arguments: { a: 'x"\\\u2028' } }),
      { type: 'tool.call', id: 'no-session', payload: { toolId: 'demo.echo' } },
      '{"type":"tool.call","payload":{}}',
    ]) {
      const response = await bridge.handle(message);
      if (!response) throw new Error('no response');
      const { envelope } = response;
      expect(response.frame).toBe(JSON.stringify(envelope));
      expect(Object.keys(envelope)).toEqual(
        typeof message === 'string'
          ? ['type', 'id', 'sessionId', 'sentAt', 'capability', 'payload']
          : ['type', 'id', 'replyTo', 'sessionId', 'sentAt', 'capability', 'payload'],
      );
      expect([response.type, response.id]).toEqual([envelope.type, envelope.id]);
      // Parsed once, then kept.
      expect(response.envelope).toBe(envelope);
    }
  });
});
