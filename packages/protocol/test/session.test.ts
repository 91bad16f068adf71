// The session engine end to end (docs/wire.md "Session messages", "Deadlines, cancel and
// progress"): a PageSessionCore over a real tool bridge on one end of the in-memory linked pair,
// a HostSessionCore on the other. Time is the subject of most tests here: fake timers (and a
// fake Date, which heartbeats and deadlines read), while the pair delivers frames by microtask.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAjvProvider } from '../src/ajv.js';
import type {
  BridgeTool,
  HostSessionCoreOptions,
  LinkedTransport,
  PageSessionOptions,
  ProgressReport,
  ToolContext,
  TransportCloseInfo,
} from '../src/index.js';
import {
  createLinkedPair,
  createToolBridge,
  HostSessionCore,
  noProgress,
  PageSessionCore,
  SESSION_CLOSE,
  sessionPing,
  sessionWelcome,
  ToolProtocolError,
} from '../src/index.js';
import { tool } from './helpers.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Lets the pair's frames (one microtask each) and the bridge's awaits run, the clock held. */
const settle = () => vi.advanceTimersByTimeAsync(0);

interface Linked {
  page: PageSessionCore;
  host: HostSessionCore;
  pageEnd: LinkedTransport;
  hostEnd: LinkedTransport;
  /** Every frame each side received, parsed. */
  toPage: any[];
  toHost: any[];
  /** Frames the host's client handed on (late replies, pushes). */
  hostOther: Record<string, unknown>[];
  hostClosed: TransportCloseInfo[];
  pageClosed: TransportCloseInfo[];
  opened: unknown[];
}

/**
 * A whole session over the pair, on the fake clock. The bridge builds its catalog first, on the
 * real one (revisions are hashed by WebCrypto, which no fake clock moves).
 */
async function linked(
  tools: BridgeTool[],
  options: {
    host?: Partial<HostSessionCoreOptions>;
    page?: Partial<PageSessionOptions>;
    limits?: { callTimeoutMs?: number };
  } = {},
): Promise<Linked> {
  const bridge = createToolBridge({
    validator: createAjvProvider(),
    tools: () => tools,
    guard: 'full-access',
    ...(options.limits ? { limits: options.limits } : {}),
  });
  await bridge.snapshot();
  vi.useFakeTimers();
  const [hostEnd, pageEnd] = createLinkedPair();
  const result = {
    pageEnd,
    hostEnd,
    toPage: [],
    toHost: [],
    hostOther: [],
    hostClosed: [],
    pageClosed: [],
    opened: [],
  } as unknown as Linked;
  // Watch both wires: each core owns its end's onmessage, so wrap the sends.
  const pageSend = pageEnd.send.bind(pageEnd);
  pageEnd.send = (frame) => {
    result.toHost.push(JSON.parse(frame));
    pageSend(frame);
  };
  const hostSend = hostEnd.send.bind(hostEnd);
  hostEnd.send = (frame) => {
    result.toPage.push(JSON.parse(frame));
    hostSend(frame);
  };
  result.page = new PageSessionCore({
    transport: pageEnd,
    bridge,
    open: () => ({
      sdk: { name: 'test-page', version: '1' },
      page: { origin: 'https://app.test', url: 'https://app.test/', title: 'App' },
      session: 'page-key',
    }),
    onClose: (info) => result.pageClosed.push(info),
    ...options.page,
  });
  result.host = new HostSessionCore({
    id: 'session-1',
    transport: hostEnd,
    grant: 'write',
    hostRun: 'run-1',
    onOpen: (payload) => result.opened.push(payload),
    onMessage: (message) => result.hostOther.push(message),
    onClose: (info) => result.hostClosed.push(info),
    ...options.host,
  });
  result.page.start();
  return result;
}

/** A tool that runs until its signal aborts, keeping what it saw. */
function hanging(id: string, seen: { context?: ToolContext; reason?: unknown; runs: number }) {
  return tool(id, (_args, context) => {
    seen.runs++;
    seen.context = context;
    return new Promise((_, reject) => {
      context.signal.addEventListener('abort', () => {
        seen.reason = context.signal.reason;
        reject(context.signal.reason);
      });
    });
  });
}

const echo = tool('demo.echo', (args) => ({ ...args }));

describe('a session, page to host', () => {
  it('the welcome first; session.open read; a call answered', async () => {
    const s = await linked([echo], {
      host: { heartbeatIntervalMs: 1000, compressPayloads: false },
    });
    await settle();
    expect(s.toPage[0]).toMatchObject({
      type: 'session.welcome',
      sessionId: 'session-1',
      payload: {
        sessionId: 'session-1',
        hostRun: 'run-1',
        maxToolPolicy: 'write',
        heartbeatIntervalMs: 1000,
        compressPayloads: false,
      },
    });
    expect(s.page.welcome).toEqual(s.toPage[0].payload);
    expect(s.opened).toEqual([
      {
        sdk: { name: 'test-page', version: '1' },
        page: { origin: 'https://app.test', url: 'https://app.test/', title: 'App' },
        session: 'page-key',
      },
    ]);
    const answer = s.host.send('tool.call', { toolId: 'demo.echo', arguments: { a: 1 } });
    await settle();
    expect(await answer).toMatchObject({ type: 'tool.result', payload: { result: { a: 1 } } });
    // The call carried the default deadline; it asked for no progress.
    const call = s.toPage.find((m) => m.type === 'tool.call');
    expect(call.payload).toEqual({ toolId: 'demo.echo', arguments: { a: 1 }, timeoutMs: 60_000 });
    s.host.close();
  });

  it('heartbeats: the page answers every ping and outlives many intervals', async () => {
    const s = await linked([echo], { host: { heartbeatIntervalMs: 100 } });
    await vi.advanceTimersByTimeAsync(2000);
    const pings = s.toPage.filter((m) => m.type === 'session.ping');
    expect(pings.length).toBeGreaterThanOrEqual(15);
    const pongs = s.toHost.filter((m) => m.type === 'session.pong');
    expect(pongs.map((m) => m.replyTo)).toEqual(pings.map((m) => m.id));
    expect(s.host.isOpen).toBe(true);
    expect(s.page.isOpen).toBe(true);
    // The host answers the page's pings too.
    s.pageEnd.send(JSON.stringify(sessionPing(null)));
    await settle();
    expect(s.toPage.at(-1)).toMatchObject({ type: 'session.pong' });
    s.host.close();
  });

  it('a page silent for three intervals is closed with 4008, its pending calls failed', async () => {
    vi.useFakeTimers();
    const [hostEnd, pageEnd] = createLinkedPair();
    // A page that opened its socket and then said nothing at all.
    pageEnd.onmessage = () => {};
    const closed: TransportCloseInfo[] = [];
    const host = new HostSessionCore({
      id: 's',
      transport: hostEnd,
      grant: 'read',
      heartbeatIntervalMs: 40,
      onClose: (info) => closed.push(info),
    });
    const pending = host.send('tool.call', { toolId: 'x' }).catch((error) => error);
    await vi.advanceTimersByTimeAsync(3 * 40 - 1);
    expect(host.isOpen).toBe(true);
    await vi.advanceTimersByTimeAsync(2 * 40);
    expect(host.isOpen).toBe(false);
    expect(closed).toEqual([
      { code: SESSION_CLOSE.silent, reason: 'the page stopped answering for 120 ms' },
    ]);
    expect(await pending).toMatchObject({ code: 'tool_transport_closed' });
  });

  it("the host's silent decision waits for `defer`: a frame read before it keeps the page", async () => {
    vi.useFakeTimers();
    const [hostEnd, pageEnd] = createLinkedPair();
    pageEnd.onmessage = () => {};
    const decisions: (() => void)[] = [];
    const host = new HostSessionCore({
      id: 's',
      transport: hostEnd,
      grant: 'read',
      heartbeatIntervalMs: 40,
      defer: (decide) => decisions.push(decide),
    });
    await vi.advanceTimersByTimeAsync(3 * 40);
    // The beat found the page silent, and left the decision for later.
    expect(decisions).toHaveLength(1);
    expect(host.isOpen).toBe(true);
    // The page's answer was waiting: read before the decision runs, it counts.
    pageEnd.send(JSON.stringify({ type: 'session.pong', id: 'p', replyTo: 'x', payload: {} }));
    await settle();
    decisions.shift()?.();
    expect(host.isOpen).toBe(true);
    // Silence again, and this time nothing comes before the decision.
    await vi.advanceTimersByTimeAsync(3 * 40);
    decisions.shift()?.();
    expect(host.isOpen).toBe(false);
    expect(host.closeInfo?.code).toBe(SESSION_CLOSE.silent);
  });

  it('a host silent for three of its intervals is dropped by the page with 4008, at once', async () => {
    vi.useFakeTimers();
    const [hostEnd, pageEnd] = createLinkedPair();
    const closes: TransportCloseInfo[] = [];
    let hostHeard: TransportCloseInfo | undefined;
    hostEnd.onclose = (info) => {
      hostHeard = info;
    };
    hostEnd.onmessage = () => {};
    const bridge = createToolBridge({ validator: createAjvProvider(), tools: () => [] });
    const page = new PageSessionCore({
      transport: pageEnd,
      bridge,
      open: () => ({
        sdk: { name: 'p', version: '1' },
        page: { origin: '', url: '', title: '' },
        session: 'k',
      }),
      onClose: (info) => closes.push(info),
    });
    page.start();
    hostEnd.send(
      JSON.stringify(
        sessionWelcome({
          sessionId: 's',
          hostRun: 'r',
          maxToolPolicy: 'read',
          heartbeatIntervalMs: 20,
        }),
      ),
    );
    // The honest host first: pings every 10 ms keep the page.
    for (let i = 0; i < 10; i++) {
      hostEnd.send(JSON.stringify(sessionPing('s')));
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(closes).toEqual([]);
    await vi.advanceTimersByTimeAsync(3 * 20 + 20);
    // Told at once, not after a close handshake a dead host never finishes.
    expect(closes).toEqual([{ code: SESSION_CLOSE.silent, reason: 'the host stopped answering' }]);
    await settle();
    expect(hostHeard?.code).toBe(SESSION_CLOSE.silent);
  });

  it('a frame above the page limit closes with 4009; unknown session messages are ignored', async () => {
    const s = await linked([echo], { page: { maxFrameBytes: 1000 } });
    await settle();
    s.hostEnd.send(JSON.stringify({ type: 'session.whatever', id: 'w', payload: {} }));
    const answer = s.host.send('tool.call', {
      toolId: 'demo.echo',
      arguments: { text: 'x'.repeat(100) },
    });
    await settle();
    expect((await answer).type).toBe('tool.result');
    expect(s.page.isOpen).toBe(true);
    const big = s.host
      .send('tool.call', { toolId: 'demo.echo', arguments: { text: 'x'.repeat(2000) } })
      .catch((error) => error);
    await settle();
    expect(await big).toMatchObject({ code: 'tool_transport_closed' });
    expect(s.pageClosed).toEqual([{ code: SESSION_CLOSE.tooBig, reason: 'message too big' }]);
    expect(s.hostClosed[0]?.code).toBe(SESSION_CLOSE.tooBig);
  });

  it("closing either end fails the host's pending requests at once", async () => {
    const seen = { runs: 0 } as { runs: number; reason?: unknown };
    const s = await linked([hanging('demo.hang', seen)]);
    const pending = s.host.send('tool.call', { toolId: 'demo.hang' }).catch((error) => error);
    await settle();
    expect(seen.runs).toBe(1);
    s.page.close({ code: 1001, reason: 'going away' });
    await settle();
    expect(await pending).toMatchObject({ code: 'tool_transport_closed', retryable: true });
    expect(s.hostClosed).toEqual([{ code: 1001, reason: 'going away' }]);
    expect(s.pageClosed).toEqual([{ code: 1001, reason: 'going away' }]);
  });
});

describe('cancel', () => {
  it("an aborted signal rejects at once, and the page aborts the tool's signal and answers", async () => {
    const seen = { runs: 0 } as { runs: number; reason?: unknown };
    const s = await linked([hanging('demo.hang', seen), echo]);
    await settle();
    // The honest path: a call nobody cancels is answered as usual, and sends no cancel.
    expect(
      (await Promise.all([s.host.send('tool.call', { toolId: 'demo.echo' }), settle()]))[0].type,
    ).toBe('tool.result');
    const controller = new AbortController();
    const outcome = s.host
      .send('tool.call', { toolId: 'demo.hang' }, { signal: controller.signal })
      .catch((error) => error);
    await settle();
    expect(seen.runs).toBe(1);
    controller.abort('the user pressed stop');
    // At once: no frame has moved yet.
    expect(await outcome).toMatchObject({ code: 'tool_call_cancelled', retryable: false });
    const call = s.toPage.find((m) => m.type === 'tool.call' && m.payload.toolId === 'demo.hang');
    await settle();
    expect(s.toPage.filter((m) => m.type === 'session.cancel')).toEqual([
      expect.objectContaining({
        sessionId: 'session-1',
        payload: { requestId: call.id, reason: 'the user pressed stop' },
      }),
    ]);
    expect(seen.reason).toBeInstanceOf(ToolProtocolError);
    expect(seen.reason).toMatchObject({ code: 'tool_call_cancelled' });
    // The page answered the request; the host had given up on it, so it is handed on.
    const answer = s.toHost.find((m) => m.replyTo === call.id);
    expect(answer).toMatchObject({ type: 'tool.error', payload: { code: 'tool_call_cancelled' } });
    expect(s.host.pendingCount).toBe(0);
  });

  it('a cancel for a request another connection sent, or none, changes nothing', async () => {
    const seen = { runs: 0 } as { runs: number; reason?: unknown };
    const s = await linked([hanging('demo.hang', seen)], { limits: { callTimeoutMs: 1000 } });
    const pending = s.host.send('tool.call', { toolId: 'demo.hang' }, { timeoutMs: 500 });
    await settle();
    const id = s.toPage.find((m) => m.type === 'tool.call').id;
    for (const requestId of ['nobody', `${id}x`]) {
      s.hostEnd.send(JSON.stringify({ type: 'session.cancel', id: 'c', payload: { requestId } }));
    }
    s.hostEnd.send(JSON.stringify({ type: 'session.cancel', id: 'c', payload: {} }));
    await settle();
    expect(seen.reason).toBeUndefined();
    // It ends by its deadline instead.
    await vi.advanceTimersByTimeAsync(700);
    expect(await pending).toMatchObject({ payload: { code: 'tool_execution_timeout' } });
  });

  it('a batch: the running item fails with it and the batch stops', async () => {
    const seen = { runs: 0 } as { runs: number; reason?: unknown };
    const ran: string[] = [];
    const first = tool('demo.first', () => {
      ran.push('first');
      return {};
    });
    const last = tool('demo.last', () => {
      ran.push('last');
      return {};
    });
    const s = await linked([first, hanging('demo.hang', seen), last]);
    const controller = new AbortController();
    const outcome = s.host
      .send(
        'tool.batch',
        { calls: [{ toolId: 'demo.first' }, { toolId: 'demo.hang' }, { toolId: 'demo.last' }] },
        { signal: controller.signal },
      )
      .catch((error) => error);
    await settle();
    expect(seen.runs).toBe(1);
    controller.abort();
    expect(await outcome).toMatchObject({ code: 'tool_call_cancelled' });
    await settle();
    const batch = s.toPage.find((m) => m.type === 'tool.batch');
    expect(s.toPage.find((m) => m.type === 'session.cancel')?.payload).toEqual({
      requestId: batch.id,
    });
    const answer = s.toHost.find((m) => m.replyTo === batch.id);
    expect(answer.type).toBe('tool.batch.result');
    expect(answer.payload).toMatchObject({
      success: false,
      completed: 2,
      requested: 3,
      stoppedEarly: true,
      results: [
        { index: 0, toolId: 'demo.first', success: true },
        { index: 1, toolId: 'demo.hang', success: false, error: { code: 'tool_call_cancelled' } },
      ],
    });
    expect(ran).toEqual(['first']);
  });
});

describe('progress', () => {
  it('asked for: reports reach onProgress growing, 50 ms apart, the last before the answer', async () => {
    let context: ToolContext | undefined;
    let finish!: (value: unknown) => void;
    const slow = tool('demo.slow', (_args, ctx) => {
      context = ctx;
      return new Promise((resolve) => {
        finish = resolve;
      });
    });
    const s = await linked([slow]);
    const reports: ProgressReport[] = [];
    const answer = s.host.send(
      'tool.call',
      { toolId: 'demo.slow' },
      { onProgress: (r) => reports.push(r) },
    );
    await settle();
    expect(s.toPage.find((m) => m.type === 'tool.call').payload).toMatchObject({ progress: true });
    const report = context?.reportProgress as ToolContext['reportProgress'];
    expect(report).not.toBe(noProgress);
    report(1, 10, 'one');
    report(2, 10);
    report(2, 10); // not growing: dropped
    report(3, 10, 'three');
    report(Number.NaN); // not a number: dropped
    await settle();
    // The first went at once; the others wait for the 50 ms, and the latest wins.
    expect(reports).toEqual([{ progress: 1, total: 10, message: 'one' }]);
    await vi.advanceTimersByTimeAsync(50);
    expect(reports).toEqual([
      { progress: 1, total: 10, message: 'one' },
      { progress: 3, total: 10, message: 'three' },
    ]);
    report(1); // lower than the last: dropped
    report(9, 10, 'almost');
    finish({ done: true });
    await settle();
    // Flushed before the answer, though 50 ms had not passed.
    expect(reports.at(-1)).toEqual({ progress: 9, total: 10, message: 'almost' });
    expect((await answer).type).toBe('tool.result');
    const types = s.toHost.map((m) => m.type).filter((t) => t !== 'session.open');
    expect(types).toEqual([
      'session.progress',
      'session.progress',
      'session.progress',
      'tool.result',
    ]);
    // Answered: the reporter says nothing more.
    report(10);
    await vi.advanceTimersByTimeAsync(100);
    expect(s.toHost.filter((m) => m.type === 'session.progress')).toHaveLength(3);
  });

  it('not asked for: the shared no-op reporter, and nothing on the wire', async () => {
    let context: ToolContext | undefined;
    const quiet = tool('demo.quiet', (_args, ctx) => {
      context = ctx;
      ctx.reportProgress(1);
      return {};
    });
    const s = await linked([quiet]);
    const answer = s.host.send('tool.call', { toolId: 'demo.quiet' });
    await settle();
    expect((await answer).type).toBe('tool.result');
    expect(context?.reportProgress).toBe(noProgress);
    expect(s.toPage.find((m) => m.type === 'tool.call').payload).not.toHaveProperty('progress');
    expect(s.toHost.filter((m) => m.type === 'session.progress')).toEqual([]);
  });
});

describe('deadlines', () => {
  it("the caller's timeoutMs travels; the page gives up then, before the host's grace", async () => {
    const seen = { runs: 0 } as { runs: number; reason?: unknown };
    const s = await linked([hanging('demo.hang', seen)]);
    const answer = s.host.send('tool.call', { toolId: 'demo.hang' }, { timeoutMs: 200 });
    await settle();
    expect(s.toPage.find((m) => m.type === 'tool.call').payload.timeoutMs).toBe(200);
    await vi.advanceTimersByTimeAsync(199);
    expect(seen.reason).toBeUndefined();
    // The sweep runs every 50 ms here: within one more sweep the page has given up.
    await vi.advanceTimersByTimeAsync(60);
    expect(seen.reason).toMatchObject({ code: 'tool_execution_timeout' });
    expect(await answer).toMatchObject({
      type: 'tool.error',
      payload: { code: 'tool_execution_timeout', retryable: true, details: { timeoutMs: 200 } },
    });
  });

  it("the page's own limit wins when it is smaller", async () => {
    const seen = { runs: 0 } as { runs: number; reason?: unknown };
    const s = await linked([hanging('demo.hang', seen)], { limits: { callTimeoutMs: 100 } });
    const answer = s.host.send('tool.call', { toolId: 'demo.hang' }, { timeoutMs: 10_000 });
    await vi.advanceTimersByTimeAsync(150);
    expect(await answer).toMatchObject({
      payload: { code: 'tool_execution_timeout', details: { timeoutMs: 100 } },
    });
  });

  it('the host gives up 2 s after the deadline when the page never answers', async () => {
    vi.useFakeTimers();
    const [hostEnd, pageEnd] = createLinkedPair();
    pageEnd.onmessage = () => {};
    const host = new HostSessionCore({ id: 's', transport: hostEnd, grant: 'write' });
    const read = host.send('tool.call', { toolId: 'r' }, { timeoutMs: 300 }).catch((e) => e);
    const write = host
      .send('tool.call', { toolId: 'w' }, { timeoutMs: 300, idempotent: false })
      .catch((e) => e);
    await vi.advanceTimersByTimeAsync(2299);
    expect(host.pendingCount).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(await read).toMatchObject({ code: 'tool_timeout', retryable: true });
    expect(await write).toMatchObject({ code: 'tool_timeout', retryable: false });
  });

  it("a batch's deadline covers the whole batch: the item running then fails and it stops", async () => {
    const step = tool(
      'demo.step',
      () => new Promise((resolve) => setTimeout(() => resolve({}), 80)),
    );
    const s = await linked([step]);
    const answer = s.host.send(
      'tool.batch',
      {
        calls: [{ toolId: 'demo.step' }, { toolId: 'demo.step' }, { toolId: 'demo.step' }],
        continueOnError: true,
      },
      { timeoutMs: 120 },
    );
    await vi.advanceTimersByTimeAsync(300);
    const { payload } = await answer;
    expect(payload).toMatchObject({
      success: false,
      completed: 2,
      requested: 3,
      stoppedEarly: true,
      results: [
        { index: 0, success: true },
        { index: 1, success: false, error: { code: 'tool_execution_timeout' } },
      ],
    });
  });

  it("a write tool's timeout on the page is not retryable", async () => {
    const seen = { runs: 0 } as { runs: number; reason?: unknown };
    const writer = hanging('demo.write', seen);
    writer.definition.policy = 'write';
    const s = await linked([writer]);
    const answer = s.host.send('tool.call', { toolId: 'demo.write' }, { timeoutMs: 100 });
    await vi.advanceTimersByTimeAsync(200);
    expect(await answer).toMatchObject({
      payload: { code: 'tool_execution_timeout', retryable: false },
    });
  });
});
