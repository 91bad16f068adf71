import { request as httpRequest } from 'node:http';
import type { BridgeTool, ProgressReport } from '@toolwire/protocol';
import { toolFailure } from '@toolwire/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { createHost } from '../src/index.js';
import { controlChannel, controlRequest, startControlServer } from '../src/internal.js';
import { FakePage, tool } from './helpers.js';

// The control API's share of a call's cancel, deadline and progress, with real sockets: the
// host, its control API (HTTP and the channel) and a `ws` page. What the page does with a
// `session.cancel` is the page's; here the host must send it, for the right request.

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A tool that runs until its signal aborts (or `ms`), noting why it stopped. */
function waiting(id: string, stops: unknown[], ms = 10_000): BridgeTool {
  return tool(
    id,
    (_, context) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve({ waited: ms }), ms);
        context.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          stops.push(context.signal.reason);
          reject(context.signal.reason);
        });
      }),
  );
}

/**
 * A host, its control API and a page with `demo.echo`, `slow.tool` (10 s) and `steps.tool`,
 * which reports progress when the call asks for it: 1/2 "half", a report that goes back, 2/2.
 */
async function controlled(options: { callTimeoutMs?: number } = {}) {
  const host = await createHost({ origins: ['*'], ...options });
  cleanup.push(() => host.close());
  const control = await startControlServer(host);
  cleanup.push(() => control.close());
  const stops: unknown[] = [];
  let page: FakePage | undefined;
  page = await FakePage.connect(host.url, {
    tools: [tool('demo.echo'), waiting('slow.tool', stops), tool('steps.tool', () => 'stepped')],
    intercept: (message) => {
      if (message.type !== 'tool.call' || message.payload?.toolId !== 'steps.tool') return;
      if (message.payload.progress !== true) return;
      for (const report of [
        { progress: 1, total: 2, message: 'half' },
        { progress: 0.5, total: 2, message: 'back' },
        { progress: 2, total: 2 },
      ]) {
        page?.send({
          type: 'session.progress',
          id: `progress-${Math.random()}`,
          sentAt: new Date().toISOString(),
          payload: { requestId: message.id, ...report },
        });
      }
      return undefined; // then the bridge answers
    },
  });
  cleanup.push(() => page?.socket.terminate());
  const session = await host.waitForSession({
    filter: (s) => s.catalog.get('slow.tool') !== undefined,
  });
  const target = { url: control.url, token: control.token };
  const calls = () => (page as FakePage).requests('tool.call');
  const cancels = () => (page as FakePage).requests('session.cancel');
  return { host, session, target, page: page as FakePage, stops, calls, cancels };
}

/** A raw POST to the control API, to be cut by the test; resolves the request and its end. */
function rawPost(target: { url: string; token: string }, path: string, body: object) {
  const text = JSON.stringify(body);
  const request = httpRequest(new URL(path, target.url), {
    method: 'POST',
    agent: false,
    headers: {
      Authorization: `Bearer ${target.token}`,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
    },
  });
  const ended = new Promise<string>((resolve) => {
    request.on('response', (response) => {
      let answer = '';
      response.on('data', (chunk) => {
        answer += chunk;
      });
      response.on('end', () => resolve(answer));
    });
    request.on('error', (error) => resolve(`error: ${error.message}`));
  });
  request.end(text);
  return { request, ended };
}

describe('cancel through the control API', () => {
  it('a call that answers sends no cancel; one whose HTTP asker goes away is cancelled at the page', async () => {
    const { session, target, calls, cancels } = await controlled();
    // The honest path first: answered, nothing cancelled.
    expect(
      await controlRequest(target, '/v1/call', { toolId: 'demo.echo', arguments: { a: 1 } }),
    ).toMatchObject({ ok: true, result: { result: { a: 1 } } });
    const raw = rawPost(target, '/v1/call', { toolId: 'slow.tool' });
    const call = await until(() => calls().find((one) => one.payload.toolId === 'slow.tool'));
    expect(session.pendingCount).toBe(1);
    raw.request.destroy(); // the CLI's process died, say
    await until(() => session.pendingCount === 0);
    const cancel = await until(() => cancels()[0]);
    expect(cancel.payload).toMatchObject({ requestId: call.id });
    expect(cancel.replyTo ?? null).toBeNull();
    expect(cancels()).toHaveLength(1);
  });

  it('a channel that drops mid-call cancels its calls at the page', async () => {
    const { session, target, calls, cancels } = await controlled();
    const channel = controlChannel(target);
    expect(await channel.request('/v1/call', { toolId: 'demo.echo' })).toMatchObject({ ok: true });
    const outcome = channel.request('/v1/call', { toolId: 'slow.tool' }).catch((error) => error);
    const call = await until(() => calls().find((one) => one.payload.toolId === 'slow.tool'));
    channel.close();
    expect(await outcome).toMatchObject({ kind: 'cut' });
    await until(() => session.pendingCount === 0);
    expect((await until(() => cancels()[0])).payload).toMatchObject({ requestId: call.id });
  });

  it('aborting a call on the channel cancels it at the page; the channel lives on', async () => {
    const { session, target, calls, cancels } = await controlled();
    const channel = controlChannel(target);
    cleanup.push(() => channel.close());
    const abort = new AbortController();
    const reason = new Error('the MCP client cancelled');
    const outcome = channel
      .request('/v1/call', { toolId: 'slow.tool' }, { signal: abort.signal })
      .catch((error) => error);
    const call = await until(() => calls().find((one) => one.payload.toolId === 'slow.tool'));
    abort.abort(reason);
    expect(await outcome).toBe(reason); // at once, not when the host answers
    await until(() => session.pendingCount === 0);
    expect((await until(() => cancels()[0])).payload).toMatchObject({ requestId: call.id });
    expect(await channel.request('/v1/call', { toolId: 'demo.echo' })).toMatchObject({ ok: true });
  });

  it('POST /v1/cancel names the call by its cancel key; the call answers tool_call_cancelled', async () => {
    const { session, target, calls, cancels } = await controlled();
    const cancelKey = 'cancel-key-of-the-test-0001';
    const outcome = controlRequest(target, '/v1/call', { toolId: 'slow.tool', cancelKey }).catch(
      (error) => error,
    );
    const call = await until(() => calls().find((one) => one.payload.toolId === 'slow.tool'));
    // Another key cancels nothing.
    expect(
      await controlRequest(target, '/v1/cancel', { cancelKey: 'another-key-0000000001' }),
    ).toEqual({ ok: true, cancelled: false });
    expect(session.pendingCount).toBe(1);
    expect(await controlRequest(target, '/v1/cancel', { cancelKey })).toEqual({
      ok: true,
      cancelled: true,
    });
    expect(await outcome).toMatchObject({ code: 'tool_call_cancelled', retryable: false });
    expect((await until(() => cancels()[0])).payload).toMatchObject({ requestId: call.id });
    // Done with: the key cancels nothing more, and may name a new call.
    expect(await controlRequest(target, '/v1/cancel', { cancelKey })).toMatchObject({
      cancelled: false,
    });
    await expect(
      controlRequest(target, '/v1/cancel', { cancelKey: 'short' }),
    ).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('a cancel that arrives before its call: the call is answered cancelled, never sent', async () => {
    const { target, calls } = await controlled();
    const cancelKey = 'cancel-key-that-came-first';
    expect(await controlRequest(target, '/v1/cancel', { cancelKey })).toEqual({
      ok: true,
      cancelled: false,
    });
    await expect(
      controlRequest(target, '/v1/call', { toolId: 'slow.tool', cancelKey }),
    ).rejects.toMatchObject({ code: 'tool_call_cancelled', retryable: false });
    await expect(
      controlRequest(target, '/v1/batch', {
        calls: [{ toolId: 'demo.echo' }],
        cancelKey: 'k'.repeat(20),
      }),
    ).resolves.toMatchObject({ ok: true });
    expect(calls()).toEqual([]);
  });
});

describe('deadlines through the control API', () => {
  it("timeoutMs travels to the page; without it, the host's callTimeoutMs", async () => {
    const { target, page, calls } = await controlled({ callTimeoutMs: 4321 });
    await controlRequest(target, '/v1/call', { toolId: 'demo.echo', timeoutMs: 1500 });
    await controlRequest(target, '/v1/call', { toolId: 'demo.echo' });
    await controlRequest(target, '/v1/batch', { calls: [{ toolId: 'demo.echo' }], timeoutMs: 900 });
    expect(calls().map((call) => call.payload.timeoutMs)).toEqual([1500, 4321]);
    expect(page.requests('tool.batch')[0]?.payload.timeoutMs).toBe(900);
  });

  it('refuses a timeoutMs that is not a whole number of ms, 1 or more', async () => {
    const { target, calls } = await controlled();
    for (const timeoutMs of [0, -5, 1.5, '1000', 2 ** 31]) {
      await expect(
        controlRequest(target, '/v1/call', { toolId: 'demo.echo', timeoutMs }),
      ).rejects.toMatchObject({ code: 'bad_request' });
    }
    expect(calls()).toEqual([]);
  });
});

describe('progress through the control API', () => {
  it('a client that asks gets rising reports before the answer, over HTTP and the channel', async () => {
    const { target, calls } = await controlled();
    const heard: ProgressReport[] = [];
    const answer = await controlRequest(
      target,
      '/v1/call',
      { toolId: 'steps.tool' },
      { onProgress: (report) => heard.push(report) },
    );
    expect(answer).toMatchObject({ ok: true, result: { result: 'stepped' } });
    expect(calls()[0]?.payload.progress).toBe(true);
    expect(heard).toEqual([
      { progress: 1, total: 2, message: 'half' },
      { progress: 2, total: 2 },
    ]);
    const channel = controlChannel(target);
    cleanup.push(() => channel.close());
    const overChannel: ProgressReport[] = [];
    expect(
      await channel.request(
        '/v1/call',
        { toolId: 'steps.tool' },
        { onProgress: (report) => overChannel.push(report) },
      ),
    ).toMatchObject({ ok: true, result: { result: 'stepped' } });
    expect(overChannel).toEqual(heard);
  });

  it('a client that does not ask: nothing is asked of the page, one plain JSON answer', async () => {
    const { target, calls } = await controlled();
    const raw = rawPost(target, '/v1/call', { toolId: 'steps.tool' });
    const type = new Promise<string>((resolve) =>
      raw.request.on('response', (response) => resolve(String(response.headers['content-type']))),
    );
    expect(JSON.parse(await raw.ended)).toMatchObject({ ok: true, result: { result: 'stepped' } });
    expect(await type).toMatch(/^application\/json/);
    expect(calls()[0]?.payload.progress).toBeUndefined();
  });
});

describe('codes through the control API', () => {
  it('a call fails with the code and retryable the session gave, over HTTP and the channel', async () => {
    const { target, page } = await controlled();
    const refusal = { code: 'tool_busy', message: 'try later', retryable: true, details: { a: 5 } };
    page.setTools([...page.tools, tool('coded.tool', () => toolFailure(refusal))]);
    const failure = await controlRequest(target, '/v1/call', { toolId: 'coded.tool' }).catch(
      (error) => error,
    );
    const channel = controlChannel(target);
    cleanup.push(() => channel.close());
    const overChannel = await channel
      .request('/v1/call', { toolId: 'coded.tool' })
      .catch((error) => error.error);
    for (const seen of [failure, overChannel]) {
      expect(seen).toMatchObject({ code: 'tool_busy', retryable: true, details: { a: 5 } });
    }
    // And not retryable when the page says so.
    page.setTools([
      ...page.tools.filter((one) => one.definition.id !== 'coded.tool'),
      tool('coded.tool', () => toolFailure({ ...refusal, retryable: false })),
    ]);
    await expect(
      controlRequest(target, '/v1/call', { toolId: 'coded.tool' }),
    ).rejects.toMatchObject({ code: 'tool_busy', retryable: false });
  });
});
