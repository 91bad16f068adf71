/**
 * fflate loaded on first need (issue 16, item 2): the bridge asks its `loadDeflate` only for a
 * request whose payload is gzipped, or to gzip a large response when it was given no
 * compressor; the frames are the ones encodePayload writes, and the codes are the codec's.
 */
import { describe, expect, it } from 'vitest';
import { createAjvProvider } from '../src/ajv.js';
import type { DeflateModule } from '../src/index.js';
import { createToolBridge, encodePayload, importDeflate, PAYLOAD_ENCODING } from '../src/index.js';
import { request, tool } from './helpers.js';

const LARGE = { rows: Array.from({ length: 2_000 }, (_, i) => ({ id: i, name: `row ${i}` })) };

function counted(load: () => Promise<DeflateModule> = importDeflate) {
  const calls = { count: 0 };
  return {
    calls,
    loadDeflate: () => {
      calls.count++;
      return load();
    },
  };
}

function bridgeWith(loadDeflate: () => Promise<DeflateModule>, compress = false) {
  return createToolBridge({
    validator: createAjvProvider(),
    tools: () => [tool('echo', (args) => ({ got: args })), tool('big.rows', () => LARGE)],
    guard: 'read-write',
    onToolError: () => {},
    loadDeflate,
    ...(compress ? {} : { compress: () => false as const }),
  });
}

async function send(bridge: ReturnType<typeof bridgeWith>, payload: unknown) {
  const response = await bridge.handle(request('tool.call', payload));
  if (!response) throw new Error('no response');
  return JSON.parse(response.frame) as { type: string; payload: Record<string, any> };
}

describe('the bridge loads fflate only when a payload needs it', () => {
  it('plain requests and small responses never load it', async () => {
    const { calls, loadDeflate } = counted();
    const frame = await send(bridgeWith(loadDeflate), { toolId: 'echo', arguments: { q: 'x' } });
    expect(frame.payload.result).toEqual({ got: { q: 'x' } });
    expect(calls.count).toBe(0);
  });

  it('a gzipped request payload loads it once and decodes as decodePayload does', async () => {
    const { calls, loadDeflate } = counted();
    const bridge = bridgeWith(loadDeflate);
    const args = { text: 'y'.repeat(40_000) };
    const wrapped = encodePayload({ toolId: 'echo', arguments: args });
    expect(wrapped.encoded).toBe(true);
    const frame = await send(bridge, wrapped.payload);
    expect(frame.payload.result).toEqual({ got: args });
    expect(calls.count).toBe(1);
  });

  it('a gzipped payload that is not gzip keeps the codec code', async () => {
    const { loadDeflate } = counted();
    const frame = await send(bridgeWith(loadDeflate), {
      $ansightEncoding: PAYLOAD_ENCODING,
      contentType: 'application/json',
      originalByteCount: 10,
      data: btoa('not gzip at all'),
    });
    expect(frame.type).toBe('tool.error');
    expect(frame.payload.code).toBe('tool_payload_decode_failed');
  });

  it('an unknown encoding is refused without loading it', async () => {
    const { calls, loadDeflate } = counted();
    const frame = await send(bridgeWith(loadDeflate), { $ansightEncoding: 'br', data: 'AA==' });
    expect(frame.payload.code).toBe('tool_payload_encoding_unsupported');
    expect(calls.count).toBe(0);
  });

  it('a loader that fails answers the call with a coded error, not a hang', async () => {
    const { loadDeflate } = counted(() => Promise.reject(new Error('chunk missing')));
    const wrapped = encodePayload({ toolId: 'echo', arguments: { text: 'z'.repeat(40_000) } });
    const frame = await send(bridgeWith(loadDeflate), wrapped.payload);
    expect(frame.type).toBe('tool.error');
    expect(frame.payload.code).toBe('tool_protocol_bridge_failed');
    expect(frame.payload.message).toContain('chunk missing');
  });

  it('without a compressor, a large response is gzipped with it: the bytes encodePayload writes', async () => {
    const { calls, loadDeflate } = counted();
    const frame = await send(bridgeWith(loadDeflate, true), { toolId: 'big.rows' });
    expect(calls.count).toBe(1);
    const expected = encodePayload({
      toolId: 'big.rows',
      success: true,
      message: null,
      result: LARGE,
      evidence: null,
    });
    expect(frame.payload).toEqual(expected.payload);
  });
});
