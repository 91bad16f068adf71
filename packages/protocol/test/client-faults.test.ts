import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import type { ToolClient, ToolClientOptions } from '../src/index.js';
import {
  createLinkedPair,
  createToolClient,
  encodePayload,
  ToolProtocolError,
} from '../src/index.js';

// Issue 13, part 9: a reply the host cannot read or match fails its call at once, with
// `tool_protocol_invalid_response` and the reason in its details, whenever the request id can
// be read; it never waits out the 20 s timeout. Replies that match no pending request are
// dropped and reported (onError, onMessage), never thrown. Each case first proves that the
// honest reply to the same request resolves, so none passes because nothing was answered.

const RESULT = { toolId: 'x', success: true, message: null, result: { ok: 1 }, evidence: null };
const CATALOG = { schema: 'ansight.tool-catalog.v3', revision: 'r', tools: [], count: 0 };

/** A client over the in-memory pair, and a page end that answers by hand with raw text. */
function setup(options: ToolClientOptions = {}) {
  const [hostEnd, pageEnd] = createLinkedPair();
  const requests: Record<string, any>[] = [];
  let arrived: (() => void) | undefined;
  pageEnd.onmessage = (frame) => {
    requests.push(JSON.parse(frame));
    arrived?.();
  };
  const client = createToolClient(hostEnd, options);
  const raw = (text: string) => pageEnd.send(text);
  const envelope = (
    requestId: string,
    type: string,
    payload: unknown,
    extra: Record<string, unknown> = {},
  ) => ({
    type,
    id: `${requestId}.response`,
    replyTo: requestId,
    sessionId: null,
    sentAt: new Date().toISOString(),
    capability: 'tool.exec',
    payload,
    ...extra,
  });
  const reply = (...args: Parameters<typeof envelope>) => raw(JSON.stringify(envelope(...args)));
  /** Sends a request and waits until the page end has it; resolves its id and outcome. */
  const send = async (make: (client: ToolClient) => Promise<unknown>) => {
    const before = requests.length;
    const outcome = make(client);
    // Caught here, awaited by the test: no unhandled rejection while it waits.
    outcome.catch(() => {});
    if (requests.length === before) await new Promise<void>((resolve) => (arrived = resolve));
    arrived = undefined;
    return { id: requests.at(-1)?.id as string, outcome };
  };
  return { client, raw, reply, envelope, send, requests };
}

/**
 * The error `promise` rejects with. Not the client's only timer (the 20 s timeout, whose error is
 * tool_timeout): the reply itself failed the request. A request that waited for the timeout
 * instead fails the test on its own time limit first.
 */
async function failsAtOnce(promise: Promise<unknown>): Promise<ToolProtocolError> {
  const outcome = await promise.then(
    () => 'resolved',
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(ToolProtocolError);
  expect((outcome as ToolProtocolError).code).not.toBe('tool_timeout');
  return outcome as ToolProtocolError;
}

const gzipBase64 = (text: string) => Buffer.from(gzipSync(Buffer.from(text))).toString('base64');

describe('a reply that cannot be used fails its request at once', () => {
  describe('a bad $ansightEncoding wrapper', () => {
    const wrapper = (fields: Record<string, unknown>) => ({
      $ansightEncoding: 'gzip-base64-json',
      contentType: 'application/json',
      ...fields,
    });
    const cases: [string, Record<string, unknown>, string][] = [
      ['bad base64', wrapper({ data: 'not base64!' }), 'tool_payload_decode_failed'],
      [
        'bytes that are not gzip',
        wrapper({ data: Buffer.from('plain text, not gzip').toString('base64') }),
        'tool_payload_decode_failed',
      ],
      [
        'gzip of text that is not JSON',
        wrapper({ data: gzipBase64('{"broken":') }),
        'tool_payload_decode_failed',
      ],
      [
        'an unknown encoding',
        { $ansightEncoding: 'brotli-base64-json', data: gzipBase64('{}') },
        'tool_payload_encoding_unsupported',
      ],
      [
        'more than the limit once inflated (its size claim a lie)',
        wrapper({
          originalByteCount: 10,
          data: gzipBase64(JSON.stringify({ pad: 'z'.repeat(8192) })),
        }),
        'tool_payload_too_large',
      ],
    ];
    for (const [name, payload, causeCode] of cases) {
      it(name, async () => {
        const { reply, send } = setup({ limits: { maxInflatedBytes: 4096 } });
        // Honest: a compressed result within the limit is decoded.
        const big = { ...RESULT, result: { text: 'z'.repeat(3000) } };
        const honest = encodePayload(big, { thresholdBytes: 1 });
        expect(honest.encoded).toBe(true);
        const first = await send((client) => client.call({ toolId: 'x' }));
        reply(first.id, 'tool.result', honest.payload);
        expect(await first.outcome).toEqual(big);

        const second = await send((client) => client.call({ toolId: 'x' }));
        reply(second.id, 'tool.result', payload);
        const error = await failsAtOnce(second.outcome);
        expect(error.code).toBe('tool_protocol_invalid_response');
        expect(error.details).toMatchObject({
          requestId: second.id,
          reason: 'payload_encoding',
          causeCode,
        });
        expect(error.message).toContain(second.id);
      });
    }
  });

  describe('a frame that is not JSON, when its text names the request', () => {
    it('by replyTo', async () => {
      const { reply, raw, send, client } = setup();
      const first = await send((c) => c.call({ toolId: 'x' }));
      reply(first.id, 'tool.result', RESULT);
      expect(await first.outcome).toEqual(RESULT);

      const second = await send((c) => c.call({ toolId: 'x' }));
      const other = await send((c) => c.call({ toolId: 'x' }));
      raw(
        `{"type":"tool.result","id":"${second.id}.response","replyTo":"${second.id}","payload":{"result":` +
          '{unquoted: true}}}',
      );
      const error = await failsAtOnce(second.outcome);
      expect(error).toMatchObject({
        code: 'tool_protocol_invalid_response',
        details: {
          requestId: second.id,
          reason: 'unreadable',
          causeCode: 'tool_payload_decode_failed',
        },
      });
      // Only that request: the other one is still pending, and still answerable.
      expect(client.pendingCount).toBe(1);
      reply(other.id, 'tool.result', RESULT);
      expect(await other.outcome).toEqual(RESULT);
    });

    it('by an id ending in .response (no replyTo)', async () => {
      const { reply, raw, send } = setup();
      const first = await send((c) => c.query({ detail: 'index' }));
      reply(first.id, 'tool.catalog', CATALOG);
      expect(await first.outcome).toEqual(CATALOG);

      const second = await send((c) => c.query({ detail: 'index' }));
      raw(`{"type":"tool.catalog","id":"${second.id}.response","payload":{"tools":[1,2,}`);
      const error = await failsAtOnce(second.outcome);
      expect(error.details).toMatchObject({ requestId: second.id, reason: 'unreadable' });
    });

    it('nested too deep to read', async () => {
      const { reply, raw, send } = setup({ limits: { maxDepth: 8 } });
      const first = await send((c) => c.call({ toolId: 'x' }));
      reply(first.id, 'tool.result', RESULT);
      expect(await first.outcome).toEqual(RESULT);

      const second = await send((c) => c.call({ toolId: 'x' }));
      const deep = `${'['.repeat(64)}${']'.repeat(64)}`;
      const frame = JSON.stringify({
        type: 'tool.result',
        replyTo: second.id,
        payload: { result: 'DEEP' },
      });
      raw(frame.replace('"DEEP"', deep));
      const error = await failsAtOnce(second.outcome);
      expect(error.details).toMatchObject({
        reason: 'unreadable',
        causeCode: 'tool_payload_too_deep',
      });
    });
  });

  it('a response whose type does not answer the request (tool.catalog for a tool.call)', async () => {
    const { reply, send } = setup();
    const first = await send((c) => c.call({ toolId: 'x' }));
    reply(first.id, 'tool.result', RESULT);
    expect(await first.outcome).toEqual(RESULT);

    const second = await send((c) => c.call({ toolId: 'x' }));
    reply(second.id, 'tool.catalog', CATALOG);
    const error = await failsAtOnce(second.outcome);
    expect(error).toMatchObject({
      code: 'tool_protocol_invalid_response',
      details: {
        requestId: second.id,
        reason: 'type_mismatch',
        expected: 'tool.result',
        received: 'tool.catalog',
      },
    });
  });

  it('a type that is no response at all, naming the request by replyTo', async () => {
    const { reply, send } = setup();
    const first = await send((c) => c.batch({ calls: [{ toolId: 'x' }] }));
    const batch = { success: true, completed: 1, requested: 1, stoppedEarly: false, results: [] };
    reply(first.id, 'tool.batch.result', batch);
    expect(await first.outcome).toEqual(batch);

    const second = await send((c) => c.batch({ calls: [{ toolId: 'x' }] }));
    reply(second.id, 'tool.batch.results', batch);
    const error = await failsAtOnce(second.outcome);
    expect(error.details).toMatchObject({
      reason: 'type_invalid',
      expected: 'tool.batch.result',
      received: 'tool.batch.results',
    });
  });

  it('a response without replyTo, its id ending in .response', async () => {
    const { reply, raw, envelope, send } = setup();
    const first = await send((c) => c.call({ toolId: 'x' }));
    reply(first.id, 'tool.result', RESULT);
    expect(await first.outcome).toEqual(RESULT);

    const second = await send((c) => c.call({ toolId: 'x' }));
    const { replyTo: _dropped, ...withoutReplyTo } = envelope(second.id, 'tool.result', RESULT);
    raw(JSON.stringify(withoutReplyTo));
    const error = await failsAtOnce(second.outcome);
    expect(error.details).toMatchObject({ requestId: second.id, reason: 'reply_to_missing' });
  });

  describe('a response without a usable payload', () => {
    const cases: [string, string, unknown][] = [
      ['no payload', 'tool.result', undefined],
      ['a payload that is an array', 'tool.result', [RESULT]],
      ['a payload that is a string', 'tool.result', 'ok'],
      ['a tool.error without a code', 'tool.error', { message: 'no code' }],
    ];
    for (const [name, type, payload] of cases) {
      it(name, async () => {
        const { reply, send } = setup();
        const first = await send((c) => c.request('tool.call', { toolId: 'x' }));
        reply(first.id, 'tool.error', {
          code: 'tool_not_found',
          message: 'gone',
          retryable: false,
        });
        expect(await first.outcome).toMatchObject({ type: 'tool.error' });

        const second = await send((c) => c.request('tool.call', { toolId: 'x' }));
        reply(second.id, type, payload);
        const error = await failsAtOnce(second.outcome);
        expect(error).toMatchObject({
          code: 'tool_protocol_invalid_response',
          details: { requestId: second.id, reason: 'payload_invalid' },
        });
      });
    }
  });
});

describe('replies that match no pending request', () => {
  it('are dropped and reported, never thrown; pending requests are untouched', async () => {
    const errors: ToolProtocolError[] = [];
    const others: unknown[] = [];
    const { reply, raw, send, client } = setup({
      onError: (error) => errors.push(error),
      onMessage: (message) => others.push(message),
    });
    const pending = await send((c) => c.call({ toolId: 'x' }));
    const barrier = await send((c) => c.call({ toolId: 'x' }));
    // Unknown ids, readable or not, and a frame that names nothing.
    reply('never-sent', 'tool.result', RESULT);
    raw('{"type":"tool.result","replyTo":"never-sent-either","payload":');
    raw('not json at all');
    // A barrier: an honest reply sent after them on the same ordered channel is answered, so
    // the three were handled by then.
    reply(barrier.id, 'tool.result', RESULT);
    expect(await barrier.outcome).toEqual(RESULT);
    expect(client.pendingCount).toBe(1);
    expect(errors.map((error) => [error.code, (error.details as any).reason])).toEqual([
      ['tool_protocol_invalid_response', 'unmatched'],
      ['tool_protocol_invalid_response', 'unreadable'],
      ['tool_protocol_invalid_response', 'unreadable'],
    ]);
    expect(errors[0]?.details).toMatchObject({ requestId: 'never-sent' });
    expect(others).toHaveLength(3);
    // The pending request still gets its honest answer.
    reply(pending.id, 'tool.result', RESULT);
    expect(await pending.outcome).toEqual(RESULT);
  });

  it('a late reply after a timeout is reported as unmatched', async () => {
    vi.useFakeTimers();
    try {
      const errors: ToolProtocolError[] = [];
      const { reply, send } = setup({ timeoutMs: 50, onError: (error) => errors.push(error) });
      const late = send((c) => c.call({ toolId: 'x' }));
      await vi.advanceTimersByTimeAsync(1);
      const { id, outcome } = await late;
      await vi.advanceTimersByTimeAsync(60);
      await expect(outcome).rejects.toMatchObject({ code: 'tool_timeout' });
      reply(id, 'tool.result', RESULT);
      await vi.advanceTimersByTimeAsync(1);
      expect(errors.map((error) => (error.details as any).reason)).toEqual(['unmatched']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a throwing onError hook does not break the connection', async () => {
    const { reply, send } = setup({
      onError: () => {
        throw new Error('hook bug');
      },
    });
    reply('never-sent', 'tool.result', RESULT);
    const next = await send((c) => c.call({ toolId: 'x' }));
    reply(next.id, 'tool.result', RESULT);
    expect(await next.outcome).toEqual(RESULT);
  });
});
