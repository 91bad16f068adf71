import { afterEach, describe, expect, it, vi } from 'vitest';
import { latch } from '../../../test-support/wait.js';
import { createAjvProvider } from '../src/ajv.js';
import type { BridgeTool, Guard, GuardPreset } from '../src/index.js';
import { createToolBridge, encodePayload, ToolProtocolError, toolFailure } from '../src/index.js';
import { exchange, nested, request, tool } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

function bridgeOf(tools: BridgeTool[], guard: GuardPreset | Guard = 'read-write', limits = {}) {
  return createToolBridge({
    validator: createAjvProvider(),
    tools: () => tools,
    guard,
    limits,
    onToolError: () => {},
  });
}

describe('routing and pass-through', () => {
  const bridge = bridgeOf([tool('demo.ping')]);

  it('passes through traffic that is not a tool request', async () => {
    const passThrough = [
      { type: 'tool.call', id: 'x', capability: 'ui.stream', payload: { toolId: 'demo.ping' } },
      { type: 'tool.query', id: 'x', capability: 'TOOL.EXEC' },
      { type: 'session.open', id: 'x', payload: {} },
      { type: 'tool.result', id: 'x.response', replyTo: 'x', payload: {} },
      { type: 'tool.catalog', id: 'x.response', replyTo: 'x', payload: {} },
      { id: 'x', payload: {} },
      { type: 42, id: 'x' },
      [1, 2, 3],
      'not json at all',
      '{"type":"session.open"',
      42,
      null,
      undefined,
    ];
    for (const message of passThrough)
      expect(await bridge.handle(message), JSON.stringify(message)).toBeUndefined();
  });

  it('answers a tool request with capability absent, null, empty or tool.exec', async () => {
    for (const capability of [undefined, null, '', 'tool.exec']) {
      const response = await exchange(bridge, { ...request('tool.query', {}), capability });
      expect(response.type).toBe('tool.catalog');
    }
  });

  it('answers unparseable text that is clearly a tool request with tool_protocol_invalid_request', async () => {
    const response = await exchange(bridge, '{"type":"tool.call","id":"c1","payload":{');
    expect(response.type).toBe('tool.error');
    expect(response.id).toMatch(/^tool\.error\.[0-9a-f]{32}$/);
    expect(response.replyTo).toBeUndefined();
    expect(response.payload.code).toBe('tool_protocol_invalid_request');
  });

  it('reads the envelope: blank id, non-string sessionId', async () => {
    const blank = await exchange(bridge, { ...request('tool.query', {}), id: '  ' });
    expect(blank.payload.code).toBe('tool_protocol_invalid_request');
    expect(blank.replyTo).toBeUndefined();
    const badSession = await exchange(bridge, { ...request('tool.query', {}), sessionId: 7 });
    expect(badSession.payload.code).toBe('tool_protocol_invalid_request');
    expect(badSession.replyTo).toBe(badSession.id.replace(/\.response$/, ''));
  });

  it('copies the session id and correlates by replyTo', async () => {
    const message = request('tool.query', {});
    const response = await exchange(bridge, message);
    expect(response).toMatchObject({
      id: `${message.id}.response`,
      replyTo: message.id,
      sessionId: 'session-1',
      capability: 'tool.exec',
    });
    expect(Date.parse(response.sentAt as string)).not.toBeNaN();
  });

  it('refuses a request nested deeper than the limit with a code', async () => {
    const deep = request('tool.call', { toolId: 'demo.ping', arguments: nested(400) });
    const fromObject = await exchange(bridge, deep);
    expect(fromObject.payload.code).toBe('tool_payload_too_deep');
    expect(fromObject.replyTo).toBe(deep.id);
    const fromText = await exchange(bridge, JSON.stringify(deep));
    expect(fromText.payload.code).toBe('tool_payload_too_deep');
  });

  it('decodes a compressed request payload, and refuses a bad encoding with its code', async () => {
    const wrapped = encodePayload({ toolId: 'demo.ping', arguments: { pad: 'p'.repeat(40_000) } });
    expect(wrapped.encoded).toBe(true);
    const ok = await exchange(bridge, request('tool.call', wrapped.payload));
    expect(ok.type).toBe('tool.result');
    const bad = await exchange(
      bridge,
      request('tool.call', { $ansightEncoding: 'zstd', data: 'AAAA' }),
    );
    expect(bad.payload.code).toBe('tool_payload_encoding_unsupported');
  });
});

describe('tool.query', () => {
  const tools = [
    tool('map.capture', () => ({}), {
      description: 'Captures the map.',
      prerequisiteToolIds: ['route.open', 'demo.ping', 'route.open'],
      keywords: ['snapshot'],
    }),
    tool('route.open', () => ({}), { policy: 'write', description: 'Opens a route on the map.' }),
    tool('demo.ping'),
    tool('admin.wipe', () => ({}), { policy: 'critical' }),
  ];

  it('index with query + limit returns only the match, no schemas, sorted prerequisites', async () => {
    const bridge = bridgeOf(tools);
    const { payload } = await exchange(
      bridge,
      request('tool.query', { detail: 'index', query: 'map', limit: 1 }),
    );
    expect(payload.tools).toHaveLength(1);
    expect(payload.count).toBe(1);
    const [entry] = payload.tools;
    expect(entry.id).toBe('map.capture');
    expect(entry).not.toHaveProperty('argumentsSchema');
    expect(entry).not.toHaveProperty('resultSchema');
    expect(entry.prerequisiteToolIds).toEqual(['demo.ping', 'route.open']);
    // totalCount and categories count every visible tool, not the filtered set.
    expect(payload.totalCount).toBe(3);
    expect(payload.categories).toEqual({ demo: 1, map: 1, route: 1 });
  });

  it('every query term must match; punctuation splits terms', async () => {
    const bridge = bridgeOf(tools);
    const ids = async (payload: object) =>
      (
        await exchange(bridge, request('tool.query', { detail: 'index', ...payload }))
      ).payload.tools.map((t: { id: string }) => t.id);
    expect(await ids({ query: 'map route' })).toEqual(['map.capture', 'route.open']);
    expect(await ids({ query: 'ROUTE.open' })).toEqual(['map.capture', 'route.open']);
    expect(await ids({ query: 'snapshot', feature: 'capture' })).toEqual(['map.capture']);
    expect(await ids({ query: 'nothing-matches-this' })).toEqual([]);
    expect(await ids({ policy: 'WRITE' })).toEqual(['route.open']);
    expect(await ids({ ids: ['demo.ping', '', 'admin.wipe'] })).toEqual(['demo.ping']);
    expect(await ids({ maxResults: 2 })).toEqual(['demo.ping', 'map.capture']);
    expect(await ids({ limit: 0 })).toEqual(['demo.ping']);
  });

  it('the guard decides visibility; critical tools need full-access', async () => {
    const readOnly = await exchange(
      bridgeOf(tools, 'read-only'),
      request('tool.query', { detail: 'index' }),
    );
    expect(readOnly.payload.tools.map((t: { id: string }) => t.id)).toEqual([
      'demo.ping',
      'map.capture',
    ]);
    const full = await exchange(
      bridgeOf(tools, 'full-access'),
      request('tool.query', { detail: 'index' }),
    );
    expect(full.payload.totalCount).toBe(4);
    expect(readOnly.payload.revision).not.toBe(full.payload.revision);
  });

  it('availability change gives `changes` with only the unavailable tool', async () => {
    let loaded = true;
    const withAvailability = [
      ...tools.slice(1),
      {
        ...tools[0],
        availability: () =>
          loaded ? true : { available: false, code: 'map_not_loaded', reason: '' },
      },
    ] as BridgeTool[];
    const bridge = bridgeOf(withAvailability);
    const first = (await exchange(bridge, request('tool.query', { detail: 'index' }))).payload;
    loaded = false;
    const conditional = {
      detail: 'index',
      ifRevision: first.revision,
      ifAvailabilityRevision: first.availabilityRevision,
    };
    const changed = (await exchange(bridge, request('tool.query', conditional))).payload;
    expect(changed.unchanged).toBe(true);
    expect(changed.revision).toBe(first.revision);
    expect(changed.availabilityRevision).not.toBe(first.availabilityRevision);
    expect(changed.changes).toEqual({
      'map.capture': { available: false, code: 'map_not_loaded' },
    });
    expect(changed).not.toHaveProperty('tools');
    // Only ifRevision: "unchanged" without looking at availability (docs/wire.md rule 1).
    const onlyRevision = (
      await exchange(bridge, request('tool.query', { ifRevision: first.revision }))
    ).payload;
    expect(onlyRevision).toEqual({
      schema: 'ansight.tool-catalog.v3',
      revision: first.revision,
      unchanged: true,
    });
    // With the new availability revision, unchanged again.
    const again = (
      await exchange(
        bridge,
        request('tool.query', {
          ...conditional,
          ifAvailabilityRevision: changed.availabilityRevision,
        }),
      )
    ).payload;
    expect(Object.keys(again)).toEqual(['schema', 'revision', 'unchanged']);
    // Back to available: the original availability revision returns.
    loaded = true;
    const back = (await exchange(bridge, request('tool.query', { detail: 'index' }))).payload;
    expect(back.availabilityRevision).toBe(first.availabilityRevision);
  });

  it('a definitions query ignores ifRevision and always lists', async () => {
    const bridge = bridgeOf(tools);
    const first = (await exchange(bridge, request('tool.query', {}))).payload;
    const defs = (
      await exchange(
        bridge,
        request('tool.query', {
          detail: 'definitions',
          ifRevision: first.revision,
          ids: ['demo.ping'],
        }),
      )
    ).payload;
    expect(defs.tools).toHaveLength(1);
    expect(defs.tools[0].argumentsSchema).toEqual({ type: 'object' });
    expect(defs).not.toHaveProperty('availabilityRevision');
    expect(defs).not.toHaveProperty('totalCount');
  });

  it('an availability() that throws marks its tool unavailable instead of breaking the catalog', async () => {
    const broken = {
      ...tool('demo.broken'),
      availability: () => {
        throw new Error('no map');
      },
    };
    const { payload } = await exchange(
      bridgeOf([broken, tool('demo.ping')]),
      request('tool.query', { detail: 'index' }),
    );
    expect(payload.tools[0]).toMatchObject({
      id: 'demo.broken',
      runtime: { available: false, code: 'tool_unavailable' },
      executable: false,
    });
    expect(payload.tools[1]).not.toHaveProperty('runtime');
  });

  it('an executableOnly query drops unavailable and unexecutable tools', async () => {
    const off = { ...tool('demo.off'), availability: () => ({ available: false }) };
    const { payload } = await exchange(
      bridgeOf([off, tool('demo.ping')]),
      request('tool.query', { detail: 'index', executableOnly: true }),
    );
    expect(payload.tools.map((t: { id: string }) => t.id)).toEqual(['demo.ping']);
  });

  it('invalid and duplicate definitions are left out and reported', async () => {
    const reported: string[] = [];
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => [
        tool('demo.ping'),
        tool('demo.ping', () => ({}), { name: 'Second' }),
        tool(''),
        tool('x', () => ({}), { policy: 'admin' as never }),
      ],
      guard: 'full-access',
      onToolError: (error) => reported.push(error.message),
    });
    const { payload } = await exchange(bridge, request('tool.query', { detail: 'index' }));
    expect(payload.tools.map((t: { id: string; name: string }) => [t.id, t.name])).toEqual([
      ['demo.ping', 'demo.ping'],
    ]);
    expect(reported).toHaveLength(3);
  });
});

describe('revision caching', () => {
  it('reads the tool source once until invalidate(), and rehashes only what changed', async () => {
    const tools = Array.from({ length: 50 }, (_, i) => tool(`t.tool${String(i).padStart(2, '0')}`));
    const source = vi.fn(() => tools);
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: source,
      guard: 'read-only',
    });
    const digest = vi.spyOn(crypto.subtle, 'digest');
    const first = (await exchange(bridge, request('tool.query', { detail: 'index' }))).payload;
    // 50 definitions + catalog revision + all-available revision.
    expect(digest).toHaveBeenCalledTimes(52);
    for (let i = 0; i < 5; i++) {
      await exchange(
        bridge,
        request('tool.query', {
          ifRevision: first.revision,
          ifAvailabilityRevision: first.availabilityRevision,
        }),
      );
      await exchange(bridge, request('tool.query', {}));
    }
    expect(source).toHaveBeenCalledTimes(1);
    expect(digest).toHaveBeenCalledTimes(52);

    tools.push(tool('t.new'));
    bridge.invalidate();
    const second = (await exchange(bridge, request('tool.query', { detail: 'index' }))).payload;
    expect(source).toHaveBeenCalledTimes(2);
    // Only the new definition, the catalog and the all-available state are hashed again.
    expect(digest).toHaveBeenCalledTimes(55);
    expect(second.revision).not.toBe(first.revision);
    expect(second.tools.find((t: { id: string }) => t.id === 't.tool00').definitionRevision).toBe(
      first.tools.find((t: { id: string }) => t.id === 't.tool00').definitionRevision,
    );
  });

  it('re-reads a guard function on invalidate()', async () => {
    let guard: GuardPreset = 'read-only';
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => [tool('w.one', () => ({}), { policy: 'write' })],
      guard: () => guard,
    });
    expect((await exchange(bridge, request('tool.query', {}))).payload.count).toBe(0);
    guard = 'read-write';
    expect((await exchange(bridge, request('tool.query', {}))).payload.count).toBe(0);
    bridge.invalidate();
    expect((await exchange(bridge, request('tool.query', {}))).payload.count).toBe(1);
  });

  it('a tool source that throws gives a coded error, and the next request tries again', async () => {
    let fail = true;
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => {
        if (fail) throw new Error('registry not ready');
        return [tool('demo.ping')];
      },
    });
    const first = await exchange(bridge, request('tool.query', {}));
    expect(first.payload.code).toBe('tool_protocol_bridge_failed');
    expect(first.payload.message).toContain('registry not ready');
    fail = false;
    expect((await exchange(bridge, request('tool.query', {}))).payload.count).toBe(1);
  });
});

describe('tool.call', () => {
  it('passes arguments and context to the tool', async () => {
    const execute = vi.fn(() => ({ ok: true }));
    const bridge = bridgeOf([tool('demo.ctx', execute)]);
    const message = request('tool.call', {
      toolId: 'demo.ctx',
      arguments: { a: 1 },
      callId: 'mine',
    });
    await exchange(bridge, message);
    expect(execute).toHaveBeenCalledTimes(1);
    const [args, context] = execute.mock.calls[0] as unknown as [unknown, Record<string, unknown>];
    expect(args).toEqual({ a: 1 });
    expect(context).toMatchObject({
      requestId: message.id,
      sessionId: 'session-1',
      callId: 'mine',
      toolId: 'demo.ctx',
    });
    expect(context.signal).toBeInstanceOf(AbortSignal);
  });

  it('treats absent or null arguments as {}, and refuses non-object arguments before executing', async () => {
    const execute = vi.fn(() => ({}));
    const bridge = bridgeOf([tool('demo.args', execute)]);
    for (const args of [undefined, null]) {
      expect(
        (await exchange(bridge, request('tool.call', { toolId: 'demo.args', arguments: args })))
          .type,
      ).toBe('tool.result');
    }
    for (const args of ['text', 1, true, [1], []]) {
      const response = await exchange(
        bridge,
        request('tool.call', { toolId: 'demo.args', arguments: args }),
      );
      expect(response.payload.code, JSON.stringify(args)).toBe('tool_arguments_invalid');
    }
    expect(execute).toHaveBeenCalledTimes(2);
  });

  it('checks in docs/wire.md order: missing id, not found, denied, unavailable, arguments, schema', async () => {
    const execute = vi.fn(() => ({}));
    const strict = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const tools = [
      tool('w.write', execute, { policy: 'write', argumentsSchema: strict }),
      {
        ...tool('r.off', execute, { argumentsSchema: strict }),
        availability: () => ({ available: false, retryable: true }),
      },
      tool('r.on', execute, { argumentsSchema: strict }),
    ];
    const bridge = bridgeOf(tools, 'read-only');
    const code = async (payload: unknown) =>
      (await exchange(bridge, request('tool.call', payload))).payload;
    expect((await code({ arguments: 'bad' })).code).toBe('tool_call_missing_id');
    expect((await code({ toolId: 'nope', arguments: 'bad' })).code).toBe('tool_not_found');
    // A hidden tool is denied, not unknown, even with bad arguments.
    expect((await code({ toolId: 'w.write', arguments: 'bad' })).code).toBe(
      'tool_execution_denied',
    );
    const off = await code({ toolId: 'r.off', arguments: 'bad' });
    expect(off).toEqual({
      code: 'tool_unavailable',
      message: 'Tool "r.off" is not available right now.',
      retryable: true,
      details: { available: false, retryable: true },
    });
    expect((await code({ toolId: 'r.on', arguments: 'bad' })).code).toBe('tool_arguments_invalid');
    const schema = await code({ toolId: 'r.on', arguments: { n: 'one' } });
    expect(schema.code).toBe('tool_arguments_schema_invalid');
    expect(schema.details).toEqual([expect.objectContaining({ path: '$.n', keyword: 'type' })]);
    expect(execute).not.toHaveBeenCalled();
  });

  it('execution disabled denies every call but keeps discovery', async () => {
    const bridge = bridgeOf([tool('demo.ping')], {
      discoveryEnabled: true,
      executionEnabled: false,
      maxPolicy: 'critical',
    });
    const listing = (await exchange(bridge, request('tool.query', { detail: 'index' }))).payload;
    expect(listing.tools[0]).toMatchObject({ id: 'demo.ping', executable: false });
    const call = await exchange(bridge, request('tool.call', { toolId: 'demo.ping' }));
    expect(call.payload).toMatchObject({
      code: 'tool_execution_denied',
      message: 'Tool "demo.ping" is denied: execution is disabled on this page.',
      details: { deniedBy: 'page-guard', policy: 'read', executionEnabled: false },
    });
  });

  it('evaluates availability again right before executing', async () => {
    let calls = 0;
    const flaky = {
      ...tool('demo.flaky'),
      availability: () => (++calls > 1 ? { available: false, code: 'gone' } : true),
    };
    const bridge = bridgeOf([flaky]);
    const listing = (await exchange(bridge, request('tool.query', { detail: 'index' }))).payload;
    expect(listing.tools[0]).not.toHaveProperty('runtime');
    expect(
      (await exchange(bridge, request('tool.call', { toolId: 'demo.flaky' }))).payload.code,
    ).toBe('gone');
  });

  it('a tool that throws, rejects, or returns toolFailure', async () => {
    const bridge = bridgeOf([
      tool('t.throws', () => {
        throw new TypeError('bad input');
      }),
      tool('t.rejects', async () => Promise.reject('plain string')),
      tool('t.fails', () => toolFailure({ message: 'no luck' })),
      tool('t.retry', () => toolFailure({ message: 'busy', code: 'device_busy', retryable: true })),
    ]);
    const payload = async (toolId: string) =>
      (await exchange(bridge, request('tool.call', { toolId }))).payload;
    expect(await payload('t.throws')).toMatchObject({
      code: 'tool_execution_exception',
      details: { name: 'TypeError', message: 'bad input' },
    });
    expect(await payload('t.rejects')).toMatchObject({
      code: 'tool_execution_exception',
      details: { value: 'plain string' },
    });
    expect(await payload('t.fails')).toEqual({
      code: 'tool_execution_failed',
      message: 'no luck',
      retryable: false,
      details: null,
    });
    expect(await payload('t.retry')).toMatchObject({ code: 'device_busy', retryable: true });
  });

  it('cancel(requestId): the running tool is aborted and the call answered tool_call_cancelled', async () => {
    const started = latch();
    let signal: AbortSignal | undefined;
    const bridge = bridgeOf([
      tool('t.hangs', (_args, context) => {
        signal = context.signal;
        started.open();
        return new Promise(() => {});
      }),
    ]);
    // Nothing pending: a cancel is a no-op that says so.
    expect(bridge.cancel('nobody')).toBe(false);
    const message = request('tool.call', { toolId: 't.hangs' });
    const answer = exchange(bridge, message);
    await started.wait;
    // Another connection's scope does not reach it; its own (or none) does.
    expect(bridge.cancel(message.id, {})).toBe(false);
    expect(signal?.aborted).toBe(false);
    expect(bridge.cancel(message.id, undefined, 'stop')).toBe(true);
    expect(signal?.reason).toBeInstanceOf(ToolProtocolError);
    expect((await answer).payload).toMatchObject({
      code: 'tool_call_cancelled',
      retryable: false,
      message: `The caller cancelled request "${message.id}": stop`,
    });
    // Answered: no longer pending.
    expect(bridge.cancel(message.id)).toBe(false);
  });

  it('a call cancelled before its tool runs never runs it', async () => {
    const checking = latch();
    const release = latch<true>();
    const execute = vi.fn(() => ({}));
    const bridge = bridgeOf([
      tool('t.later', execute, {}, () => {
        checking.open();
        return release.wait;
      }),
    ]);
    const message = request('tool.call', { toolId: 't.later' });
    const answer = exchange(bridge, message);
    await checking.wait;
    expect(bridge.cancel(message.id)).toBe(true);
    release.open(true);
    expect((await answer).payload).toMatchObject({ code: 'tool_call_cancelled' });
    expect(execute).not.toHaveBeenCalled();
  });

  it("a payload's timeoutMs ends the tool when it is smaller than callTimeoutMs, and not otherwise", async () => {
    const hang = tool('t.hangs', () => new Promise(() => {}));
    const bridge = bridgeOf([hang], 'read-only', { callTimeoutMs: 60_000 });
    const short = await exchange(
      bridge,
      request('tool.call', { toolId: 't.hangs', timeoutMs: 30 }),
    );
    expect(short.payload).toMatchObject({
      code: 'tool_execution_timeout',
      details: { timeoutMs: 30 },
    });
    // Garbage is no deadline: the page's own limit applies.
    const capped = bridgeOf([hang], 'read-only', { callTimeoutMs: 30 });
    for (const timeoutMs of [-5, 0, 'soon', Number.MAX_VALUE * 2]) {
      const response = await exchange(
        capped,
        request('tool.call', { toolId: 't.hangs', timeoutMs }),
      );
      expect(response.payload, String(timeoutMs)).toMatchObject({
        code: 'tool_execution_timeout',
        details: { timeoutMs: 30 },
      });
    }
  });

  it('a batch stopped between two items: the next one fails without running, stoppedEarly', async () => {
    const ran: string[] = [];
    const step = (id: string) =>
      tool(id, () => {
        ran.push(id);
        return {};
      });
    const bridge = bridgeOf([step('b.one'), step('b.two')]);
    await bridge.snapshot();
    vi.useFakeTimers();
    // The first item waits 50 ms after its tool (its evidence delay): the window in between.
    const calls = [
      { toolId: 'b.one', callId: 'first', after: { include: [], delayMilliseconds: 50 } },
      { toolId: 'b.two', callId: 'second' },
    ];
    const results = async (extra: object, between: (id: string) => void) => {
      ran.length = 0;
      const message = request('tool.batch', { calls, continueOnError: true, ...extra });
      const answer = exchange(bridge, message);
      await vi.advanceTimersByTimeAsync(10);
      expect(ran).toEqual(['b.one']);
      between(message.id);
      await vi.advanceTimersByTimeAsync(100);
      return (await answer).payload;
    };
    // The honest batch: both run.
    expect(await results({}, () => {})).toMatchObject({ success: true, completed: 2 });
    // Cancelled in the window: the second never runs.
    const cancelled = await results({}, (id) => expect(bridge.cancel(id)).toBe(true));
    expect(ran).toEqual(['b.one']);
    expect(cancelled).toMatchObject({
      success: false,
      completed: 1,
      stoppedEarly: true,
      results: [
        { index: 0, callId: 'first', success: true },
        { index: 1, callId: 'second', toolId: 'b.two', error: { code: 'tool_call_cancelled' } },
      ],
    });
    // The batch's deadline passes in the window: the same, and retrying is safe.
    const late = await results({ timeoutMs: 30 }, () => {});
    expect(ran).toEqual(['b.one']);
    expect(late).toMatchObject({
      completed: 1,
      stoppedEarly: true,
      results: [
        { index: 0, success: true },
        { index: 1, error: { code: 'tool_execution_timeout', retryable: true } },
      ],
    });
  });

  it('a tool that hangs is abandoned after callTimeoutMs and its signal aborts', async () => {
    let signal: AbortSignal | undefined;
    const bridge = bridgeOf(
      [
        tool('t.hangs', (_args, context) => {
          signal = context.signal;
          return new Promise(() => {});
        }),
      ],
      'read-only',
      { callTimeoutMs: 30 },
    );
    const response = await exchange(bridge, request('tool.call', { toolId: 't.hangs' }));
    expect(response.payload).toMatchObject({ code: 'tool_execution_timeout', retryable: true });
    expect(signal?.aborted).toBe(true);
  });

  it('a timed-out tool is retryable only when its policy is read', async () => {
    const hangs = () => new Promise(() => {});
    const bridge = bridgeOf(
      [
        tool('t.read', hangs, { policy: 'read' }),
        tool('t.write', hangs, { policy: 'write' }),
        tool('t.critical', hangs, { policy: 'critical' }),
      ],
      'full-access',
      { callTimeoutMs: 30 },
    );
    const retryable: Record<string, unknown> = {};
    for (const toolId of ['t.read', 't.write', 't.critical']) {
      const response = await exchange(bridge, request('tool.call', { toolId }));
      expect(response.payload.code, toolId).toBe('tool_execution_timeout');
      retryable[toolId] = response.payload.retryable;
    }
    expect(retryable).toEqual({ 't.read': true, 't.write': false, 't.critical': false });
  });

  it('validates the result against resultSchema', async () => {
    const bridge = bridgeOf([
      tool('t.ok', () => ({ n: 1 }), { resultSchema: { type: 'object', required: ['n'] } }),
      tool('t.missing', () => ({}), { resultSchema: { type: 'object', required: ['n'] } }),
      tool('t.undefined', () => undefined, { resultSchema: { type: 'object' } }),
      tool('t.any', () => undefined, { resultSchema: {} }),
    ]);
    const payload = async (toolId: string) =>
      (await exchange(bridge, request('tool.call', { toolId }))).payload;
    expect((await payload('t.ok')).result).toEqual({ n: 1 });
    expect((await payload('t.missing')).code).toBe('tool_result_schema_invalid');
    expect((await payload('t.undefined')).code).toBe('tool_result_schema_invalid');
    expect(await payload('t.any')).toMatchObject({ success: true, result: null });
  });

  it('an uncompilable schema is the definition’s fault: tool_definition_invalid', async () => {
    const bridge = bridgeOf([
      tool('t.bad', () => ({}), { argumentsSchema: { type: 'not-a-type' } }),
    ]);
    const response = await exchange(bridge, request('tool.call', { toolId: 't.bad' }));
    expect(response.payload.code).toBe('tool_definition_invalid');
  });

  it('a result nested 300 deep gives tool_protocol_bridge_failed; 80 deep serializes', async () => {
    const bridge = bridgeOf([
      tool('t.deep', (args) => nested(Number(args.depth)), { resultSchema: {} }),
    ]);
    const deep = await exchange(
      bridge,
      request('tool.call', { toolId: 't.deep', arguments: { depth: 300 } }),
    );
    expect(deep.type).toBe('tool.error');
    expect(deep.payload.code).toBe('tool_protocol_bridge_failed');
    const fine = await exchange(
      bridge,
      request('tool.call', { toolId: 't.deep', arguments: { depth: 80 } }),
    );
    expect(fine.type).toBe('tool.result');
    expect(fine.payload.result).toEqual(nested(80));
  });

  it('cyclic and BigInt results give tool_protocol_bridge_failed', async () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.me = cyclic;
    const bridge = bridgeOf([
      tool('t.cycle', () => cyclic, { resultSchema: {} }),
      tool('t.bigint', () => ({ n: 1n }), { resultSchema: {} }),
    ]);
    for (const toolId of ['t.cycle', 't.bigint']) {
      const response = await exchange(bridge, request('tool.call', { toolId }));
      expect(response.payload.code, toolId).toBe('tool_protocol_bridge_failed');
    }
  });

  it('a result holding a function or a symbol gives tool_protocol_bridge_failed, not a schema failure', async () => {
    // Each holder is an object that passes its resultSchema: only serialization can refuse it.
    const holders: Record<string, () => unknown> = {
      't.fn-prop': () => ({ ok: true, callback: () => 1 }),
      't.fn-deep': () => ({ ok: true, list: [1, { inner: function named() {} }] }),
      't.symbol': () => ({ ok: true, tag: Symbol('x') }),
      't.fn-tojson': () => ({ ok: true, odd: { toJSON: () => () => 1 } }),
    };
    const schema = { resultSchema: { type: 'object', required: ['ok'] } };
    const bridge = bridgeOf([
      tool('t.plain', () => ({ ok: true, list: [1, { inner: 'x' }] }), schema),
      ...Object.entries(holders).map(([id, run]) => tool(id, run, schema)),
    ]);
    const plain = await exchange(bridge, request('tool.call', { toolId: 't.plain' }));
    expect(plain.type).toBe('tool.result');
    expect(plain.payload.result).toEqual({ ok: true, list: [1, { inner: 'x' }] });
    for (const toolId of Object.keys(holders)) {
      const response = await exchange(bridge, request('tool.call', { toolId }));
      expect(response.type, toolId).toBe('tool.error');
      expect(response.payload.code, toolId).toBe('tool_protocol_bridge_failed');
    }
    const fnProp = await exchange(bridge, request('tool.call', { toolId: 't.fn-deep' }));
    expect(fnProp.payload.message).toContain('$.result.list[1].inner is a function');
  });

  it('a large result is compressed; a small one is not', async () => {
    const bridge = bridgeOf([tool('t.big', (args) => ({ text: 'r'.repeat(Number(args.size)) }))]);
    const big = await bridge.handle(
      request('tool.call', { toolId: 't.big', arguments: { size: 100_000 } }),
    );
    expect(big?.envelope.payload).toHaveProperty('$ansightEncoding', 'gzip-base64-json');
    const small = await bridge.handle(
      request('tool.call', { toolId: 't.big', arguments: { size: 10 } }),
    );
    expect(small?.envelope.payload).toHaveProperty('success', true);
  });

  it('captures evidence only on success, through the evidence tool’s own call path', async () => {
    const tree = vi.fn(() => ({ nodes: 3 }));
    const shot = vi.fn(() => ({ png: 'AAAA' }));
    const bridge = bridgeOf(
      [
        tool('demo.act'),
        tool('demo.fail', () => toolFailure({ message: 'no' })),
        tool('ui.get_visual_tree', tree, {
          argumentsSchema: { type: 'object', properties: { depth: { type: 'integer' } } },
        }),
        tool('ui.get_screenshot', shot, { policy: 'write' }),
      ],
      'read-only',
    );
    const ok = await exchange(
      bridge,
      request('tool.call', {
        toolId: 'demo.act',
        after: {
          include: ['visualTree', 'screenshot', 'bogus'],
          visualTreeArguments: { depth: 2 },
          delayMilliseconds: 5,
        },
      }),
    );
    expect(ok.payload.evidence.visualTree).toMatchObject({
      toolId: 'ui.get_visual_tree',
      success: true,
      result: { nodes: 3 },
    });
    // The screenshot tool is write-policy under a read-only guard: its outcome is the denial.
    expect(ok.payload.evidence.screenshot).toMatchObject({
      success: false,
      error: { code: 'tool_execution_denied' },
    });
    expect(ok.payload.evidence).not.toHaveProperty('bogus');
    expect(tree).toHaveBeenCalledWith({ depth: 2 }, expect.anything());
    const badArgs = await exchange(
      bridge,
      request('tool.call', {
        toolId: 'demo.act',
        after: { include: ['tree'], visualTreeArguments: { depth: 'x' } },
      }),
    );
    expect(badArgs.payload.evidence.tree.error.code).toBe('tool_arguments_schema_invalid');
    tree.mockClear();
    const failed = await exchange(
      bridge,
      request('tool.call', { toolId: 'demo.fail', after: { include: ['visualTree'] } }),
    );
    expect(failed.type).toBe('tool.error');
    expect(tree).not.toHaveBeenCalled();
    // Default include is visualTree; calling the evidence tool itself skips it.
    const self = await exchange(
      bridge,
      request('tool.call', { toolId: 'ui.get_visual_tree', after: {} }),
    );
    expect(self.payload.evidence).toBeNull();
    const defaults = await exchange(
      bridge,
      request('tool.call', { toolId: 'demo.act', after: {} }),
    );
    expect(Object.keys(defaults.payload.evidence)).toEqual(['visualTree']);
  });

  it('clamps the evidence delay to 2000 ms', async () => {
    const bridge = bridgeOf([tool('demo.act'), tool('ui.get_visual_tree')], 'read-only', {
      callTimeoutMs: 0,
    });
    // Warm up first (ajv loads lazily through real I/O), then freeze the clock.
    await bridge.handle(request('tool.call', { toolId: 'demo.act', after: {} }));
    vi.useFakeTimers();
    const pending = bridge.handle(
      request('tool.call', { toolId: 'demo.act', after: { delayMilliseconds: 60_000 } }),
    );
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(1999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(2);
    expect(settled).toBe(true);
  });

  it('legacy flattened-string tools get strings and the reserved request ids', async () => {
    const execute = vi.fn((_args: unknown, _context: unknown) => ({}));
    const bridge = bridgeOf([
      tool('legacy.tool', execute, { argumentEncoding: 'flattened-string' }),
    ]);
    const message = request('tool.call', {
      toolId: 'legacy.tool',
      arguments: { n: 1, b: true, o: { x: [1] }, z: null },
    });
    await exchange(bridge, message);
    expect(execute.mock.calls[0]?.[0]).toEqual({
      n: '1',
      b: 'true',
      o: '{"x":[1]}',
      __ansight_requestId: message.id,
      __ansight_sessionId: 'session-1',
    });
    const listing = (await exchange(bridge, request('tool.query', { detail: 'definitions' })))
      .payload;
    expect(listing.tools[0].argumentEncoding).toBe('flattened-string');
  });
});

describe('tool.batch', () => {
  it('a batch of three whose second fails: two results, stoppedEarly, the third never executed', async () => {
    const third = vi.fn(() => ({}));
    const bridge = bridgeOf([
      tool('b.one'),
      tool('b.two', () => toolFailure({ message: 'second fails' })),
      tool('b.three', third),
    ]);
    const { payload } = await exchange(
      bridge,
      request('tool.batch', {
        calls: [{ toolId: 'b.one', callId: 'x' }, { toolId: 'b.two' }, { toolId: 'b.three' }],
      }),
    );
    expect(payload).toMatchObject({
      success: false,
      completed: 2,
      requested: 3,
      stoppedEarly: true,
    });
    expect(payload.results).toHaveLength(2);
    expect(payload.results[0]).toMatchObject({ index: 0, callId: 'x', success: true });
    expect(payload.results[1]).toMatchObject({
      index: 1,
      callId: null,
      success: false,
      error: { message: 'second fails' },
    });
    expect(third).not.toHaveBeenCalled();
  });

  it('continueOnError runs every call, in order, sequentially', async () => {
    const order: string[] = [];
    let running = 0;
    const step = (name: string) => async () => {
      running++;
      expect(running).toBe(1);
      order.push(name);
      // Still running across a task (a zero-delay macrotask is the point): a bridge that started
      // the next call without waiting for this one would have started it by then (running 2).
      await new Promise((resolve) => setTimeout(resolve, 0));
      running--;
      return { name };
    };
    const bridge = bridgeOf([
      tool('b.a', step('a')),
      tool('b.b', () => toolFailure({ message: 'x' })),
      tool('b.c', step('c')),
    ]);
    const { payload } = await exchange(
      bridge,
      request('tool.batch', {
        continueOnError: true,
        calls: [{ toolId: 'b.a' }, { toolId: 'b.b' }, { toolId: 'b.c' }, 7],
      }),
    );
    expect(order).toEqual(['a', 'c']);
    expect(payload).toMatchObject({
      success: false,
      completed: 3,
      requested: 4,
      stoppedEarly: false,
    });
    expect(
      payload.results.map((r: { index: number; success: boolean }) => [r.index, r.success]),
    ).toEqual([
      [0, true],
      [1, false],
      [2, true],
      [3, false],
    ]);
    expect(payload.results[3].error.code).toBe('tool_batch_call_invalid');
  });

  it('all succeed: success true', async () => {
    const bridge = bridgeOf([tool('b.a')]);
    const { payload } = await exchange(
      bridge,
      request('tool.batch', { calls: [{ toolId: 'b.a' }, { toolId: 'b.a' }] }),
    );
    expect(payload).toMatchObject({
      success: true,
      completed: 2,
      requested: 2,
      stoppedEarly: false,
    });
  });

  it('a batch of 0 or 33 is refused, 32 runs; no calls array is refused', async () => {
    const execute = vi.fn(() => ({}));
    const bridge = bridgeOf([tool('b.a', execute)]);
    const calls = (n: number) => Array.from({ length: n }, () => ({ toolId: 'b.a' }));
    expect((await exchange(bridge, request('tool.batch', { calls: calls(0) }))).payload.code).toBe(
      'tool_batch_size_invalid',
    );
    expect((await exchange(bridge, request('tool.batch', { calls: calls(33) }))).payload.code).toBe(
      'tool_batch_size_invalid',
    );
    expect(execute).not.toHaveBeenCalled();
    expect(
      (await exchange(bridge, request('tool.batch', { calls: calls(32) }))).payload.completed,
    ).toBe(32);
    expect((await exchange(bridge, request('tool.batch', {}))).payload.code).toBe(
      'tool_batch_payload_invalid',
    );
    expect((await exchange(bridge, request('tool.batch', 'calls'))).payload.code).toBe(
      'tool_batch_payload_invalid',
    );
  });

  it('one unserializable item fails alone', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const bridge = bridgeOf([tool('b.ok'), tool('b.cycle', () => cyclic)]);
    const { payload } = await exchange(
      bridge,
      request('tool.batch', {
        continueOnError: true,
        calls: [{ toolId: 'b.cycle' }, { toolId: 'b.ok' }],
      }),
    );
    expect(payload.results[0].error.code).toBe('tool_protocol_bridge_failed');
    expect(payload.results[1].success).toBe(true);
  });

  it('an item whose result holds a function fails alone, and stops the batch', async () => {
    const bridge = bridgeOf([tool('b.ok'), tool('b.fn', () => ({ run: () => 1 }))]);
    const mixed = await exchange(
      bridge,
      request('tool.batch', {
        continueOnError: true,
        calls: [{ toolId: 'b.ok' }, { toolId: 'b.fn' }, { toolId: 'b.ok' }],
      }),
    );
    expect(mixed.payload.results.map((item: any) => item.success)).toEqual([true, false, true]);
    expect(mixed.payload.results[1].error.code).toBe('tool_protocol_bridge_failed');
    const stopped = await exchange(
      bridge,
      request('tool.batch', { calls: [{ toolId: 'b.fn' }, { toolId: 'b.ok' }] }),
    );
    expect(stopped.payload).toMatchObject({ completed: 1, stoppedEarly: true, success: false });
    expect(stopped.payload.results[0].error.code).toBe('tool_protocol_bridge_failed');
  });
});
