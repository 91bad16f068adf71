import { afterEach, describe, expect, it, vi } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { createAjvProvider } from '../src/ajv.js';
import type { Transport } from '../src/index.js';
import {
  createLinkedPair,
  createToolBridge,
  createToolClient,
  encodePayload,
  ToolProtocolError,
} from '../src/index.js';
import { tool } from './helpers.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A page end that records requests and lets the test answer them by hand. */
function manualPage(end: Transport) {
  const requests: Record<string, any>[] = [];
  end.onmessage = (frame) => requests.push(JSON.parse(frame));
  const reply = (
    requestId: string,
    type: string,
    payload: unknown,
    extra: Record<string, unknown> = {},
  ) =>
    end.send(
      JSON.stringify({
        type,
        id: `${requestId}.response`,
        replyTo: requestId,
        capability: 'tool.exec',
        payload,
        ...extra,
      }),
    );
  return { requests, reply };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolProtocolError);
    return (error as ToolProtocolError).code;
  }
  throw new Error('expected a rejection');
}

describe('createToolClient', () => {
  it('sends well-formed, uniquely identified requests', async () => {
    const [host, pageEnd] = createLinkedPair();
    const page = manualPage(pageEnd);
    const client = createToolClient(host, { sessionId: 'host-session' });
    const pending = [
      client.query({ detail: 'index' }),
      client.call({ toolId: 'a' }),
      client.batch({ calls: [] }),
    ];
    await until(() => page.requests.length === 3, 'the three requests arrived');
    expect(page.requests.map((r) => r.type)).toEqual(['tool.query', 'tool.call', 'tool.batch']);
    expect(new Set(page.requests.map((r) => r.id)).size).toBe(3);
    for (const r of page.requests) {
      expect(r).toMatchObject({ sessionId: 'host-session', capability: 'tool.exec' });
      expect(Date.parse(r.sentAt)).not.toBeNaN();
    }
    expect(client.pendingCount).toBe(3);
    client.close();
    await Promise.allSettled(pending);
  });

  it('correlates by replyTo, in any order', async () => {
    const [host, pageEnd] = createLinkedPair();
    const page = manualPage(pageEnd);
    const client = createToolClient(host);
    const first = client.call({ toolId: 'one' });
    const second = client.call({ toolId: 'two' });
    await until(() => page.requests.length === 2, 'both requests arrived');
    const [a, b] = page.requests;
    page.reply(b?.id, 'tool.result', {
      toolId: 'two',
      success: true,
      message: null,
      result: 2,
      evidence: null,
    });
    page.reply(a?.id, 'tool.result', {
      toolId: 'one',
      success: true,
      message: null,
      result: 1,
      evidence: null,
    });
    expect((await first).result).toBe(1);
    expect((await second).result).toBe(2);
    expect(client.pendingCount).toBe(0);
  });

  it('decodes a compressed response before correlating, and reports its byte counts', async () => {
    const [host, pageEnd] = createLinkedPair();
    const page = manualPage(pageEnd);
    const client = createToolClient(host);
    const response = client.request('tool.call', { toolId: 'big' });
    await until(() => page.requests.length === 1, 'the request arrived');
    const payload = {
      toolId: 'big',
      success: true,
      message: null,
      result: { text: 'z'.repeat(100_000) },
      evidence: null,
    };
    const encoded = encodePayload(payload);
    expect(encoded.encoded).toBe(true);
    page.reply(page.requests[0]?.id, 'tool.result', encoded.payload);
    const decoded = await response;
    expect(decoded.payload).toEqual(payload);
    expect(decoded.encoding).toEqual({
      originalByteCount: encoded.originalByteCount,
      compressedByteCount: encoded.compressedByteCount,
    });
  });

  it('a bad wrapper fails its request, the decoder’s code in the details', async () => {
    const [host, pageEnd] = createLinkedPair();
    const page = manualPage(pageEnd);
    const client = createToolClient(host);
    const call = client.call({ toolId: 'x' });
    await until(() => page.requests.length === 1, 'the request arrived');
    page.reply(page.requests[0]?.id, 'tool.result', {
      $ansightEncoding: 'gzip-base64-json',
      data: 'not base64!',
    });
    // Not the decoder's code itself: a page's tool.error can carry that one, about the request.
    const error = await call.catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'tool_protocol_invalid_response',
      details: { reason: 'payload_encoding', causeCode: 'tool_payload_decode_failed' },
    });
  });

  it('tool.error rejects call/query/batch with the wire code; request() resolves it', async () => {
    const [host, pageEnd] = createLinkedPair();
    const page = manualPage(pageEnd);
    const client = createToolClient(host);
    const call = client.call({ toolId: 'gone' });
    const raw = client.request('tool.call', { toolId: 'gone' });
    await until(() => page.requests.length === 2, 'both requests arrived');
    for (const r of page.requests) {
      page.reply(r.id, 'tool.error', {
        code: 'tool_not_found',
        message: 'No such tool.',
        retryable: false,
        details: null,
      });
    }
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolProtocolError);
    expect(error).toMatchObject({
      code: 'tool_not_found',
      message: 'No such tool.',
      retryable: false,
    });
    expect((await raw).type).toBe('tool.error');
  });

  it('a response of the wrong type fails with tool_protocol_invalid_response', async () => {
    const [host, pageEnd] = createLinkedPair();
    const page = manualPage(pageEnd);
    const client = createToolClient(host);
    const query = client.query();
    await until(() => page.requests.length === 1, 'the request arrived');
    page.reply(page.requests[0]?.id, 'tool.result', { success: true });
    expect(await codeOf(query)).toBe('tool_protocol_invalid_response');
  });

  it('refuses a caller-chosen id used before on this connection', async () => {
    const [host, pageEnd] = createLinkedPair();
    const page = manualPage(pageEnd);
    const client = createToolClient(host);
    const first = client.query({}, { id: 'fixed' });
    expect(await codeOf(client.query({}, { id: 'fixed' }))).toBe('tool_request_duplicate_id');
    await until(() => page.requests.length === 1, 'the request arrived');
    page.reply('fixed', 'tool.catalog', {
      schema: 'ansight.tool-catalog.v3',
      revision: 'r',
      unchanged: true,
    });
    await first;
    // Still refused after it completed: ids are unique per connection, not per moment.
    expect(await codeOf(client.query({}, { id: 'fixed' }))).toBe('tool_request_duplicate_id');
    // A barrier: a query sent after the refused ones arrives, and nothing came before it.
    const honest = client.query({}, { id: 'honest' });
    await until(() => page.requests.length >= 2, 'the later query arrived');
    expect(page.requests.map((r) => r.id)).toEqual(['fixed', 'honest']);
    client.close();
    await honest.catch(() => {});
  });

  it('times out after 20 s by default with tool_timeout, and clears its timer', async () => {
    vi.useFakeTimers();
    const [host] = createLinkedPair();
    const client = createToolClient(host);
    const call = client.call({ toolId: 'slow' });
    const outcome = codeOf(call);
    await vi.advanceTimersByTimeAsync(19_999);
    expect(client.pendingCount).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toBe('tool_timeout');
    expect(client.pendingCount).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('one timer serves every deadline: a shorter one sent later fails first, an answered one never fails', async () => {
    vi.useFakeTimers();
    const [host, pageEnd] = createLinkedPair();
    const page = manualPage(pageEnd);
    const client = createToolClient(host);
    // The honest path: answered before its deadline, it resolves, and nothing fails it later.
    const answered = client.call({ toolId: 'a' }, { timeoutMs: 1_000 });
    await vi.advanceTimersByTimeAsync(10);
    page.reply(page.requests[0]?.id, 'tool.result', { toolId: 'a', success: true, result: 1 });
    expect(await answered).toMatchObject({ result: 1 });
    // Sent after the first settled, while the timer still waits for its deadline.
    const long = codeOf(client.call({ toolId: 'long' }, { timeoutMs: 5_000 }));
    const short = codeOf(client.call({ toolId: 'short' }, { timeoutMs: 2_000 }));
    const settled: string[] = [];
    void long.then((code) => settled.push(`long ${code}`));
    void short.then((code) => settled.push(`short ${code}`));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(settled).toEqual([]);
    expect(client.pendingCount).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toEqual(['short tool_timeout']);
    expect(client.pendingCount).toBe(1);
    await vi.advanceTimersByTimeAsync(2_999);
    expect(settled).toEqual(['short tool_timeout']);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toEqual(['short tool_timeout', 'long tool_timeout']);
    expect(client.pendingCount).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    client.close();
  });

  it('fails every pending request at once when the transport closes, and clears all timers', async () => {
    vi.useFakeTimers();
    const [host, pageEnd] = createLinkedPair();
    manualPage(pageEnd);
    const closed = vi.fn();
    const client = createToolClient(host, { onClose: closed });
    const calls = [
      client.call({ toolId: 'a' }),
      client.query(),
      client.batch({ calls: [{ toolId: 'a' }] }),
    ];
    const codes = Promise.all(calls.map(codeOf));
    await vi.advanceTimersByTimeAsync(1);
    // One timer serves every pending request.
    expect(vi.getTimerCount()).toBe(1);
    pageEnd.close({ code: 1006, reason: 'socket dropped' });
    expect(await codes).toEqual([
      'tool_transport_closed',
      'tool_transport_closed',
      'tool_transport_closed',
    ]);
    expect(vi.getTimerCount()).toBe(0);
    expect(closed).toHaveBeenCalledWith({ code: 1006, reason: 'socket dropped' });
    expect(await codeOf(client.query())).toBe('tool_transport_closed');
  });

  it('an aborted signal rejects at once with tool_call_cancelled; onCancel hears of a sent one', async () => {
    const [host, pageEnd] = createLinkedPair();
    manualPage(pageEnd);
    const cancels: unknown[][] = [];
    const client = createToolClient(host, {
      onCancel: (...args) => cancels.push(args),
    });
    const controller = new AbortController();
    const call = client.call({ toolId: 'a' }, { signal: controller.signal });
    expect(client.pendingCount).toBe(1);
    controller.abort('enough');
    expect(await codeOf(call)).toBe('tool_call_cancelled');
    expect(cancels).toEqual([[expect.stringMatching(/^call-/), 'tool.call', 'enough']]);
    // Aborted before it was sent: refused, and nothing left to tell the page.
    expect(await codeOf(client.call({ toolId: 'a' }, { signal: AbortSignal.abort() }))).toBe(
      'tool_call_cancelled',
    );
    expect(cancels).toHaveLength(1);
    expect(client.pendingCount).toBe(0);
  });

  it('a request that is not idempotent: a timeout or a close after sending is not retryable', async () => {
    vi.useFakeTimers();
    try {
      const [host, pageEnd] = createLinkedPair();
      manualPage(pageEnd);
      const client = createToolClient(host, { timeoutMs: 100 });
      // The honest case: an idempotent request's timeout is worth retrying.
      const read = client.call({ toolId: 'r' }).catch((error) => error);
      const write = client.call({ toolId: 'w' }, { idempotent: false }).catch((error) => error);
      await vi.advanceTimersByTimeAsync(100);
      expect(await read).toMatchObject({ code: 'tool_timeout', retryable: true });
      expect(await write).toMatchObject({ code: 'tool_timeout', retryable: false });
      const readClosed = client.call({ toolId: 'r' }).catch((error) => error);
      const writeClosed = client.call({ toolId: 'w' }, { idempotent: false }).catch((e) => e);
      pageEnd.close({ code: 1006 });
      expect(await readClosed).toMatchObject({ code: 'tool_transport_closed', retryable: true });
      expect(await writeClosed).toMatchObject({ code: 'tool_transport_closed', retryable: false });
      // Never sent: retryable whatever the request.
      expect(
        await client.call({ toolId: 'w' }, { idempotent: false }).catch((e) => e),
      ).toMatchObject({ code: 'tool_transport_closed', retryable: true });
    } finally {
      vi.useRealTimers();
    }
  });

  it('progress() reaches the pending request that listens, only while it grows', async () => {
    const [host, pageEnd] = createLinkedPair();
    const page = manualPage(pageEnd);
    const client = createToolClient(host);
    const reports: unknown[] = [];
    const call = client.call({ toolId: 'a' }, { onProgress: (report) => reports.push(report) });
    const plain = client.call({ toolId: 'b' });
    const [listening, quiet] = (await until(() => page.requests.length === 2 && page.requests)) as [
      Record<string, any>,
      Record<string, any>,
    ];
    expect(client.progress(listening.id, { progress: 1, total: 4 })).toBe(true);
    expect(client.progress(listening.id, { progress: 1 })).toBe(false);
    expect(client.progress(listening.id, { progress: 0.5 })).toBe(false);
    expect(client.progress(listening.id, { progress: 3, message: 'three' })).toBe(true);
    expect(client.progress(quiet.id, { progress: 1 })).toBe(false);
    expect(client.progress('nobody', { progress: 1 })).toBe(false);
    expect(reports).toEqual([
      { progress: 1, total: 4 },
      { progress: 3, message: 'three' },
    ]);
    page.reply(listening.id, 'tool.result', { ok: true });
    page.reply(quiet.id, 'tool.result', { ok: true });
    await Promise.all([call, plain]);
    expect(client.progress(listening.id, { progress: 9 })).toBe(false);
  });

  it('hands other traffic and late replies to onMessage', async () => {
    const [host, pageEnd] = createLinkedPair();
    const other = vi.fn();
    createToolClient(host, { onMessage: other });
    pageEnd.send('{"type":"session.open","sdk":"toolwire"}');
    pageEnd.send('{"type":"tool.result","id":"late.response","replyTo":"late","payload":{}}');
    pageEnd.send('garbage');
    await until(() => other.mock.calls.length === 3, 'the three frames were handed on');
    expect(
      other.mock.calls.map(([message]) => (message as { type?: string } | undefined)?.type),
    ).toEqual(['session.open', 'tool.result', undefined]);
  });

  it('talks to a real bridge end to end', async () => {
    const [host, pageEnd] = createLinkedPair();
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => [tool('demo.echo', (args) => ({ ...args }))],
    });
    pageEnd.onmessage = async (frame) => {
      const response = await bridge.handle(frame);
      if (response) pageEnd.send(response.frame);
    };
    const client = createToolClient(host, { sessionId: 's' });
    const index = await client.query({ detail: 'index' });
    expect('tools' in index && index.tools.map((t) => t.id)).toEqual(['demo.echo']);
    expect((await client.call({ toolId: 'demo.echo', arguments: { a: [1, 'b'] } })).result).toEqual(
      { a: [1, 'b'] },
    );
  });
});
