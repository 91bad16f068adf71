import { randomBytes } from 'node:crypto';
import type { ToolPolicy } from '@toolwire/protocol';
import { sessionPing } from '@toolwire/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Latch } from '../../../test-support/wait.js';
import { latch, until } from '../../../test-support/wait.js';
import type { Host, HostOptions, HostSession } from '../src/index.js';
import { createHost } from '../src/index.js';
import type { FakePageOptions } from './helpers.js';
import { errorResponse, FakePage, tool } from './helpers.js';

let host: Host | undefined;
const pages: FakePage[] = [];

afterEach(async () => {
  vi.useRealTimers();
  for (const page of pages.splice(0)) page.socket.terminate();
  await host?.close();
  host = undefined;
});

async function setup(
  pageOptions: FakePageOptions = {},
  hostOptions: HostOptions = {},
): Promise<{ host: Host; page: FakePage; session: HostSession }> {
  host ??= await createHost({ origins: ['*'], ...hostOptions });
  const page = await FakePage.connect(host.url, pageOptions);
  pages.push(page);
  const session = await host.waitForSession({ filter: (s) => s.info?.key === page.key });
  return { host, page, session };
}

const echo = tool('demo.echo');
const write = tool('notes.add', () => ({ added: true }), { policy: 'write' });
const remove = tool('notes.delete', () => ({ deleted: true }), { policy: 'critical' });

describe('a new session', () => {
  it('reads session.open and fetches index, then definitions of every tool', async () => {
    const { page, session } = await setup({ tools: [echo, write] });
    expect(session.info).toEqual({
      sdk: { name: 'fake-page', version: '1.0.0' },
      page: { origin: 'null', url: 'http://fake.test/', title: 'Fake' },
      key: page.key,
      guard: null,
    });
    const [index, definitions, ...rest] = page.requests('tool.query');
    expect(rest).toEqual([]);
    expect(index).toMatchObject({
      sessionId: session.id,
      capability: 'tool.exec',
      payload: { detail: 'index', limit: 1000 },
    });
    expect(index.payload).not.toHaveProperty('ifRevision');
    expect(definitions.payload).toMatchObject({
      detail: 'definitions',
      ids: ['demo.echo', 'notes.add'],
    });
    expect(session.tools().map((t) => [t.id, t.policy])).toEqual([
      ['demo.echo', 'read'],
      ['notes.add', 'write'],
    ]);
    expect(session.catalog.get('demo.echo')?.argumentsSchema).toEqual({ type: 'object' });
    expect(session.catalog.revision).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('queries at once, without waiting for session.open', async () => {
    host = await createHost({ origins: ['*'] });
    const page = await FakePage.connect(host.url, { tools: [echo], open: false });
    pages.push(page);
    const session = await host.waitForSession();
    expect(session.info).toBeNull();
    expect(session.tools()).toHaveLength(1);
  });

  it('a page that refuses discovery has an empty catalog', async () => {
    const { session } = await setup({ tools: [echo], guard: 'disabled' });
    expect(session.tools()).toEqual([]);
    expect(session.isOpen).toBe(true);
  });
});

describe('catalog refreshes', () => {
  it('send both revisions; unchanged costs one small answer and no definitions', async () => {
    const { page, session } = await setup({ tools: [echo] });
    const before = page.requests('tool.query').length;
    expect(await session.refresh()).toBe('none');
    const sent = page.requests('tool.query').slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0].payload).toEqual({
      detail: 'index',
      limit: 1000,
      cursor: '',
      ifRevision: session.catalog.revision,
      ifAvailabilityRevision: session.catalog.availabilityRevision,
    });
  });

  it('on a push, fetch definitions only for new and changed tools', async () => {
    const { page, session } = await setup({ tools: [echo, write, remove] });
    const changes: string[] = [];
    session.on('catalog', (change) => changes.push(change));
    const before = page.requests('tool.query').length;
    const changedWrite = tool('notes.add', () => ({}), {
      policy: 'write',
      description: 'Adds a note, now better.',
    });
    page.setTools([echo, changedWrite, tool('late.tool')]);
    await page.pushChanged();
    await until(() => changes.length > 0);
    const sent = page.requests('tool.query').slice(before);
    expect(sent.map((m) => m.payload.detail)).toEqual(['index', 'definitions']);
    expect(sent[1].payload.ids).toEqual(['late.tool', 'notes.add']);
    expect(changes).toEqual(['tools']);
    expect(session.tools().map((t) => t.id)).toEqual(['demo.echo', 'late.tool', 'notes.add']);
    expect(session.catalog.get('notes.add')?.description).toBe('Adds a note, now better.');
  });

  it('availability changes arrive as `changes`, without a listing', async () => {
    let loaded = true;
    const map = tool(
      'map.capture',
      () => ({}),
      {},
      () => (loaded ? true : { available: false, code: 'map_not_loaded', retryable: true }),
    );
    const { page, session } = await setup({ tools: [echo, map] });
    loaded = false;
    expect(await session.refresh()).toBe('availability');
    expect(session.catalog.get('map.capture')?.runtime).toEqual({
      available: false,
      code: 'map_not_loaded',
      retryable: true,
    });
    expect(page.requests('tool.query').at(-1).payload.detail).toBe('index');
    loaded = true;
    expect(await session.refresh()).toBe('availability');
    expect(session.catalog.get('map.capture')).not.toHaveProperty('runtime');
  });

  it('a push with the revisions the host already has sends nothing', async () => {
    const { page, session } = await setup({ tools: [echo] });
    const before = page.received.length;
    await page.pushChanged();
    // The barrier: a ping after the push. The host handles frames in order and sends a query
    // in the same step as the push that asks for one, so by its pong any query has come.
    const ping = sessionPing(null);
    page.send(ping);
    await until(() => page.received.some((m) => m.replyTo === ping.id));
    expect(page.received.slice(before).map((m) => m.type)).toEqual(['session.pong']);
    expect(session.tools()).toHaveLength(1);
  });

  it('refreshes asked for during a refresh share one queued refresh', async () => {
    const { page, session } = await setup({ tools: [echo] });
    const before = page.requests('tool.query').length;
    await Promise.all([session.refresh(), session.refresh(), session.refresh()]);
    expect(page.requests('tool.query').length - before).toBe(2);
  });

  it('polls when asked to, for pages that never push', async () => {
    const { page } = await setup({ tools: [echo] }, { pollIntervalMs: 20 });
    const before = page.requests('tool.query').length;
    await until(() => page.requests('tool.query').length >= before + 2);
  });
});

describe('calls', () => {
  it('go out with the session id and come back as the result payload', async () => {
    const { page, session } = await setup({ tools: [echo] });
    const result = await session.call('demo.echo', { text: 'hi' }, { callId: 'c-1' });
    expect(result).toMatchObject({ toolId: 'demo.echo', success: true, result: { text: 'hi' } });
    expect(page.requests('tool.call')[0]).toMatchObject({
      sessionId: session.id,
      payload: { toolId: 'demo.echo', arguments: { text: 'hi' }, callId: 'c-1' },
    });
  });

  it('are refused locally for an id the catalog does not list, after one refresh', async () => {
    const { page, session } = await setup({ tools: [echo] });
    const before = page.requests('tool.query').length;
    const error = await session.call('nope.tool').catch((e) => e);
    expect(error).toMatchObject({ code: 'tool_not_found', details: { source: 'host' } });
    expect(page.requests('tool.call')).toEqual([]);
    expect(page.requests('tool.query').length - before).toBe(1);
  });

  it('find a tool the page added without telling (the refresh before refusing)', async () => {
    const { page, session } = await setup({ tools: [echo] });
    page.setTools([echo, tool('late.tool', () => 'late')]);
    expect((await session.call('late.tool')).result).toBe('late');
  });

  it('above the grant are refused with tool_execution_denied (host-grant) and never sent', async () => {
    const { page, session } = await setup({ tools: [echo, write, remove] });
    expect(session.grant).toBe('read');
    // The honest path: a read tool goes through.
    await expect(session.call('demo.echo')).resolves.toMatchObject({ toolId: 'demo.echo' });
    for (const [id, policy] of [
      ['notes.add', 'write'],
      ['notes.delete', 'critical'],
    ] as const) {
      const error = await session.call(id).catch((e) => e);
      expect(error).toMatchObject({
        code: 'tool_execution_denied',
        retryable: false,
        message: `Tool "${id}" has policy "${policy}"; this host is granted up to "read".`,
        details: {
          deniedBy: 'host-grant',
          toolId: id,
          policy,
          maxToolPolicy: 'read',
          sessionId: session.id,
        },
      });
    }
    expect(page.requests('tool.call').map((m) => m.payload.toolId)).toEqual(['demo.echo']);
  });

  it.each([
    ['write', ['demo.echo', 'notes.add'], ['notes.delete']],
    ['critical', ['demo.echo', 'notes.add', 'notes.delete'], []],
  ] as const)('a %s grant allows what it covers', async (grant, allowed, refused) => {
    const { session } = await setup(
      { tools: [echo, write, remove] },
      { maxToolPolicy: grant as ToolPolicy },
    );
    for (const id of allowed) await expect(session.call(id)).resolves.toMatchObject({ toolId: id });
    for (const id of refused) {
      await expect(session.call(id)).rejects.toMatchObject({
        code: 'tool_execution_denied',
        details: { deniedBy: 'host-grant' },
      });
    }
  });

  it('the grant never raises the page guard', async () => {
    const { session } = await setup(
      { tools: [echo, write], guard: 'read-only' },
      { maxToolPolicy: 'critical' },
    );
    expect(session.tools().map((t) => t.id)).toEqual(['demo.echo']);
    await expect(session.call('notes.add')).rejects.toMatchObject({ code: 'tool_not_found' });
  });

  it("hidden by the page's guard it reports are refused with tool_execution_denied (page-guard)", async () => {
    const { page, session } = await setup(
      { tools: [echo, write], guard: 'read-only', reportGuard: true },
      { maxToolPolicy: 'critical' },
    );
    await expect(session.call('demo.echo')).resolves.toMatchObject({ toolId: 'demo.echo' });
    const error = await session.call('notes.add').catch((e) => e);
    expect(error).toMatchObject({
      code: 'tool_execution_denied',
      retryable: false,
      message: expect.stringContaining(
        `Tool "notes.add" (policy write) is hidden by the page's guard (read-only); the page's author sets the guard`,
      ),
      details: {
        deniedBy: 'page-guard',
        toolId: 'notes.add',
        policy: 'write',
        guard: 'read-only',
        sessionId: session.id,
      },
    });
    expect(error.details).not.toHaveProperty('maxToolPolicy');
    expect(page.requests('tool.call').map((m) => m.payload.toolId)).toEqual(['demo.echo']);
  });

  it('on tool_not_found: refresh without ifRevision, then retry once with a new id', async () => {
    let refuseNext = false;
    const { page, session } = await setup({
      tools: [echo],
      intercept: (message) => {
        if (message.type !== 'tool.call' || !refuseNext) return undefined;
        refuseNext = false;
        return errorResponse(message, 'tool_not_found');
      },
    });
    refuseNext = true;
    const before = page.received.length;
    const result = await session.call('demo.echo', { n: 1 });
    expect(result.result).toEqual({ n: 1 });
    const sent = page.received.slice(before);
    expect(sent.map((m) => m.type)).toEqual(['tool.call', 'tool.query', 'tool.call']);
    expect(sent[1].payload).toEqual({ detail: 'index', limit: 1000, cursor: '' });
    expect(sent[2].id).not.toBe(sent[0].id);
  });

  it('on tool_not_found for a tool really gone: the page error, and one call only', async () => {
    const { page, session } = await setup({ tools: [echo, tool('gone.tool')] });
    page.setTools([echo]);
    const error = await session.call('gone.tool').catch((e) => e);
    expect(error.code).toBe('tool_not_found');
    expect(error.details).toBeNull(); // the page's error, not the host's refusal
    expect(page.requests('tool.call')).toHaveLength(1);
    expect(session.catalog.get('gone.tool')).toBeUndefined();
  });

  it('the page retries nothing else: other errors come back as they are', async () => {
    const failing = tool('demo.fail', () => {
      throw new RangeError('on purpose');
    });
    const { page, session } = await setup({ tools: [failing] });
    await expect(session.call('demo.fail')).rejects.toMatchObject({
      code: 'tool_execution_exception',
    });
    expect(page.requests('tool.call')).toHaveLength(1);
  });

  it('time out with tool_timeout 2 s after the deadline they carry, when the page never answers', async () => {
    const held: any[] = [];
    const sent = latch();
    const { session } = await setup(
      {
        tools: [echo, write],
        intercept: (m) => {
          if (m.type !== 'tool.call') return undefined;
          held.push(m);
          if (held.length === 2) sent.open();
          return 'hold';
        },
      },
      { callTimeoutMs: 100, maxToolPolicy: 'write' },
    );
    // Time is the subject: from here on only the test's clock ends the call (and a catalog
    // refresh the call may need first cannot time out on the loaded real clock).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const read = session.call('demo.echo').catch((e) => e);
    const writing = session.call('notes.add').catch((e) => e);
    await sent.wait;
    // The deadline travels with the call: the page gives up then, the host 2 s later.
    expect(held.map((m) => m.payload.timeoutMs)).toEqual([100, 100]);
    await vi.advanceTimersByTimeAsync(2099);
    expect(session.pendingCount).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    // Retryable only for the tool that reads: the other may have acted.
    expect(await read).toMatchObject({ code: 'tool_timeout', retryable: true });
    expect(await writing).toMatchObject({ code: 'tool_timeout', retryable: false });
    expect(session.pendingCount).toBe(0);
  });

  it('all fail at once with tool_transport_closed when the page goes away', async () => {
    const { page, session } = await setup(
      {
        tools: [echo, write],
        intercept: (m) => (m.type === 'tool.call' ? 'hold' : undefined),
      },
      { maxToolPolicy: 'write' },
    );
    const calls = ['demo.echo', 'demo.echo', 'notes.add'].map((id) =>
      session.call(id).catch((e) => e),
    );
    await until(() => page.requests('tool.call').length === 3);
    // "At once": with the timers stopped from here on, no timer can end a call; only the close.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    page.socket.terminate();
    const errors = await Promise.all(calls);
    expect(errors.map((e) => e.code)).toEqual(Array(3).fill('tool_transport_closed'));
    // The write tool may have run before the page went: not worth retrying blindly.
    expect(errors.map((e) => e.retryable)).toEqual([true, true, false]);
    expect(session.isOpen).toBe(false);
    expect(host?.sessions).toEqual([]);
  });

  it('a reconnect of the same page replaces its old session and fails what was pending', async () => {
    const first = await setup({
      tools: [echo],
      key: 'same-page',
      intercept: (m) => (m.type === 'tool.call' ? 'hold' : undefined),
    });
    const pending = first.session.call('demo.echo').catch((e) => e);
    await until(() => first.page.requests('tool.call').length === 1);
    const second = await FakePage.connect(first.host.url, { tools: [echo], key: 'same-page' });
    pages.push(second);
    expect((await pending).code).toBe('tool_transport_closed');
    expect((await first.page.closed).code).toBe(4000);
    expect(first.host.sessions).toHaveLength(1);
    expect(first.host.sessions[0]?.info?.key).toBe('same-page');
  });

  it('record the byte counts of compressed responses', async () => {
    const big = tool('demo.big', () => ({ text: 'lorem ipsum dolor sit amet '.repeat(40_000) }));
    const { session } = await setup({ tools: [big] });
    const before = { ...session.stats };
    const result = await session.call('demo.big');
    expect((result.result as { text: string }).text).toHaveLength(1_080_000);
    expect(session.stats.encodedResponses - before.encodedResponses).toBe(1);
    expect(session.stats.originalBytes - before.originalBytes).toBeGreaterThan(1_080_000);
    const compressed = session.stats.compressedBytes - before.compressedBytes;
    expect(compressed).toBeGreaterThan(0);
    expect(compressed).toBeLessThan(100_000);
  });

  it('a frame beyond maxMessageBytes closes the session', async () => {
    // Random hex: gzip cannot shrink it below the limit.
    const big = tool('demo.big', () => ({ text: randomBytes(200_000).toString('hex') }));
    const { page, session } = await setup({ tools: [big] }, { maxMessageBytes: 64 * 1024 });
    const error = await session.call('demo.big').catch((e) => e);
    expect(error.code).toBe('tool_transport_closed');
    expect(session.isOpen).toBe(false);
    expect((await page.closed).code).toBe(1009);
  });
});

describe('cancel and progress', () => {
  /** A tool that runs until its signal aborts, and says what aborted it. */
  function hanging(id: string, seen: { reason?: unknown; started: Latch }) {
    return tool(id, (_args, context) => {
      seen.started.open();
      return new Promise((_, reject) => {
        context.signal.addEventListener('abort', () => {
          seen.reason = context.signal.reason;
          reject(context.signal.reason);
        });
      });
    });
  }

  it('an aborted signal rejects at once and cancels the call on the page', async () => {
    const seen = { started: latch() } as { reason?: unknown; started: Latch };
    const { page, session } = await setup({ tools: [echo, hanging('demo.hang', seen)] });
    // The honest path: a call with a signal nobody aborts is answered, and nothing is cancelled.
    const idle = new AbortController();
    expect((await session.call('demo.echo', { a: 1 }, { signal: idle.signal })).result).toEqual({
      a: 1,
    });
    const controller = new AbortController();
    const outcome = session.call('demo.hang', {}, { signal: controller.signal }).catch((e) => e);
    await seen.started.wait;
    const cancelled = page.next('session.cancel');
    controller.abort(new Error('the user pressed stop'));
    expect(await outcome).toMatchObject({ code: 'tool_call_cancelled', retryable: false });
    expect(session.pendingCount).toBe(0);
    const call = page.requests('tool.call').at(-1);
    expect((await cancelled).payload).toEqual({
      requestId: call.id,
      reason: 'the user pressed stop',
    });
    await until(() => seen.reason !== undefined);
    expect(seen.reason).toMatchObject({ code: 'tool_call_cancelled' });
    expect(page.requests('session.cancel')).toHaveLength(1);
  });

  it('a signal aborted while the catalog is refreshed first cancels before anything is sent', async () => {
    let hold = false;
    const { page, session } = await setup({
      tools: [echo],
      intercept: (m) => (hold && m.type === 'tool.query' ? 'hold' : undefined),
    });
    hold = true;
    const controller = new AbortController();
    // Not listed: the call waits for a refresh the page never answers.
    const outcome = session.call('late.tool', {}, { signal: controller.signal }).catch((e) => e);
    const queries = page.requests('tool.query').length;
    await until(() => page.requests('tool.query').length > queries);
    controller.abort();
    expect(await outcome).toMatchObject({ code: 'tool_call_cancelled' });
    expect(page.requests('tool.call')).toEqual([]);
  });

  it('onProgress asks for progress and hears each report of its call', async () => {
    const step = latch();
    const counting = tool('demo.count', async (_args, context) => {
      context.reportProgress(1, 3, 'one');
      context.reportProgress(2, 3);
      await step.wait;
      context.reportProgress(3, 3, 'done');
      return { counted: 3 };
    });
    const { page, session } = await setup({ tools: [echo, counting] });
    const reports: unknown[] = [];
    const result = session.call('demo.count', {}, { onProgress: (report) => reports.push(report) });
    await until(() => reports.length === 2);
    expect(page.requests('tool.call').at(-1).payload).toMatchObject({
      toolId: 'demo.count',
      progress: true,
      timeoutMs: 60_000,
    });
    step.open();
    expect((await result).result).toEqual({ counted: 3 });
    expect(reports).toEqual([
      { progress: 1, total: 3, message: 'one' },
      { progress: 2, total: 3 },
      { progress: 3, total: 3, message: 'done' },
    ]);
    // A call without a listener asks for none.
    await session.call('demo.echo');
    expect(page.requests('tool.call').at(-1).payload).not.toHaveProperty('progress');
  });

  it('a batch carries one deadline and one cancel for all its calls', async () => {
    const seen = { started: latch() } as { reason?: unknown; started: Latch };
    const { page, session } = await setup({ tools: [echo, hanging('demo.hang', seen)] });
    const controller = new AbortController();
    const outcome = session
      .batch([{ toolId: 'demo.echo' }, { toolId: 'demo.hang' }, { toolId: 'demo.echo' }], {
        signal: controller.signal,
        timeoutMs: 5000,
      })
      .catch((e) => e);
    await seen.started.wait;
    expect(page.requests('tool.batch')[0].payload).toMatchObject({ timeoutMs: 5000 });
    controller.abort();
    expect(await outcome).toMatchObject({ code: 'tool_call_cancelled' });
    await until(() => seen.reason !== undefined);
    expect(seen.reason).toMatchObject({ code: 'tool_call_cancelled' });
    expect(page.requests('session.cancel')[0].payload).toEqual({
      requestId: page.requests('tool.batch')[0].id,
    });
  });
});

describe('batches', () => {
  it('are checked item by item before anything is sent', async () => {
    const { page, session } = await setup({ tools: [echo, write] });
    const error = await session
      .batch([{ toolId: 'demo.echo' }, { toolId: 'notes.add' }])
      .catch((e) => e);
    expect(error).toMatchObject({
      code: 'tool_execution_denied',
      details: { index: 1, deniedBy: 'host-grant', toolId: 'notes.add' },
    });
    expect(page.requests('tool.batch')).toEqual([]);
  });

  it('run on the page, in order; items without a tool id are the page’s to refuse', async () => {
    const { session } = await setup({ tools: [echo] });
    const result = await session.batch(
      [{ toolId: 'demo.echo', arguments: { a: 1 } }, 7 as never, { toolId: 'demo.echo' }],
      { continueOnError: true },
    );
    expect(result).toMatchObject({ success: false, requested: 3, stoppedEarly: false });
    expect(result.results.map((item) => item.success)).toEqual([true, false, true]);
    expect(result.results[1]).toMatchObject({
      success: false,
      error: { code: 'tool_batch_call_invalid' },
    });
  });
});
