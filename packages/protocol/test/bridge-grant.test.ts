import { describe, expect, it } from 'vitest';
import { createAjvProvider } from '../src/ajv.js';
import type { BridgeTool, GuardPreset, ToolPolicy } from '../src/index.js';
import {
  catalogChanged,
  createToolBridge,
  readGuardReport,
  readWelcome,
  sessionWelcome,
} from '../src/index.js';
import { exchange, request, tool } from './helpers.js';

// The host's grant enforced in the page (issue 13): the bridge reads `grant()` at every
// execution, so a tool whose policy rose after the host read the catalog never runs above it.
// And `snapshot()`: what a page reports to its host without answering a request.

function counted() {
  const ran: string[] = [];
  const make = (id: string, policy: ToolPolicy) =>
    tool(
      id,
      () => {
        ran.push(id);
        return { ran: id };
      },
      { policy },
    );
  return { ran, make };
}

describe('the grant option', () => {
  it('refuses a tool above the grant with tool_execution_denied; a tool within it runs', async () => {
    const { ran, make } = counted();
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => [make('a.read', 'read'), make('a.write', 'write'), make('a.crit', 'critical')],
      guard: 'full-access',
      grant: () => 'read',
      onToolError: () => {},
    });
    const call = async (toolId: string) =>
      exchange(bridge, request('tool.call', { toolId, arguments: {} }));
    // The honest path first: a read tool runs under a read grant.
    expect((await call('a.read')).payload).toMatchObject({
      success: true,
      result: { ran: 'a.read' },
    });
    for (const [id, policy] of [
      ['a.write', 'write'],
      ['a.crit', 'critical'],
    ] as const) {
      const response = await call(id);
      expect(response.type).toBe('tool.error');
      expect(response.payload).toMatchObject({
        code: 'tool_execution_denied',
        message: `Tool "${id}" is denied: its policy "${policy}" exceeds the host's grant "read".`,
        retryable: false,
        details: { deniedBy: 'host-grant', policy, maxToolPolicy: 'read' },
      });
    }
    expect(ran).toEqual(['a.read']);
    // Discovery stays the guard's: the host still sees (and can explain) the write tools.
    const catalog = await exchange(bridge, request('tool.query', { detail: 'index' }));
    expect(catalog.payload.tools.map((t: { id: string }) => t.id).sort()).toEqual([
      'a.crit',
      'a.read',
      'a.write',
    ]);
  });

  it('is read at every call: a grant that changes applies to the next call', async () => {
    const { ran, make } = counted();
    let grant: ToolPolicy | undefined = 'write';
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => [make('a.write', 'write')],
      guard: 'full-access',
      grant: () => grant,
      onToolError: () => {},
    });
    const call = async () =>
      (await exchange(bridge, request('tool.call', { toolId: 'a.write' }))).payload;
    expect((await call()).success).toBe(true);
    grant = 'read';
    expect((await call()).code).toBe('tool_execution_denied');
    // No grant (a host that sent no welcome): the guard alone decides.
    grant = undefined;
    expect((await call()).success).toBe(true);
    expect(ran).toEqual(['a.write', 'a.write']);
  });

  it('never raises the page guard: a critical grant under read-only still refuses writes', async () => {
    const { ran, make } = counted();
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => [make('a.read', 'read'), make('a.write', 'write')],
      guard: 'read-only',
      grant: () => 'critical',
      onToolError: () => {},
    });
    expect(
      (await exchange(bridge, request('tool.call', { toolId: 'a.read' }))).payload.success,
    ).toBe(true);
    const denied = await exchange(bridge, request('tool.call', { toolId: 'a.write' }));
    // The page's own maximum refuses it, whatever the host granted.
    expect(denied.payload).toMatchObject({
      code: 'tool_execution_denied',
      message: expect.stringContaining(`exceeds the page's maximum "read"`),
      retryable: false,
      details: { deniedBy: 'page-guard', policy: 'write', maxPolicy: 'read' },
    });
    expect(ran).toEqual(['a.read']);
  });

  it('judges the policy as it is now, not as the catalog the host read said', async () => {
    const { ran, make } = counted();
    let tools: BridgeTool[] = [make('swap.tool', 'read')];
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => tools,
      guard: 'full-access',
      grant: () => 'read',
      onToolError: () => {},
    });
    const index = await exchange(bridge, request('tool.query', { detail: 'definitions' }));
    expect(index.payload.tools[0]).toMatchObject({ id: 'swap.tool', policy: 'read' });
    expect(
      (await exchange(bridge, request('tool.call', { toolId: 'swap.tool' }))).payload.success,
    ).toBe(true);
    // The page swaps the tool for a critical one under the same id; the host has not re-read.
    tools = [
      tool(
        'swap.tool',
        () => {
          ran.push('critical');
          return {};
        },
        { policy: 'critical' },
      ),
    ];
    bridge.invalidate();
    const swapped = await exchange(bridge, request('tool.call', { toolId: 'swap.tool' }));
    expect(swapped.payload).toMatchObject({
      code: 'tool_execution_denied',
      details: { deniedBy: 'host-grant', policy: 'critical', maxToolPolicy: 'read' },
    });
    expect(ran).toEqual(['swap.tool']);
  });

  it('applies to batch items and evidence tools too', async () => {
    const { ran, make } = counted();
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => [make('a.read', 'read'), make('a.write', 'write')],
      guard: 'full-access',
      grant: () => 'read',
      evidence: { probe: { toolId: 'a.write' } },
      onToolError: () => {},
    });
    const batch = await exchange(
      bridge,
      request('tool.batch', {
        calls: [{ toolId: 'a.read' }, { toolId: 'a.write' }, { toolId: 'a.read' }],
        continueOnError: true,
      }),
    );
    const outcomes = batch.payload.results as { success: boolean; error?: { code: string } }[];
    expect(outcomes.map((o) => o.success)).toEqual([true, false, true]);
    expect(outcomes[1]?.error?.code).toBe('tool_execution_denied');
    const withEvidence = await exchange(
      bridge,
      request('tool.call', { toolId: 'a.read', after: { include: ['probe'] } }),
    );
    expect(withEvidence.payload.success).toBe(true);
    expect(withEvidence.payload.evidence.probe).toMatchObject({
      success: false,
      error: { code: 'tool_execution_denied' },
    });
    expect(ran).toEqual(['a.read', 'a.read', 'a.read']);
  });
});

describe('snapshot()', () => {
  const tools = () => [
    tool('b.write', () => ({}), { policy: 'write' }),
    tool('a.read'),
    tool('c.crit', () => ({}), { policy: 'critical' }),
    tool('a.write', () => ({}), { policy: 'write' }),
  ];

  it('reports the revisions a query reports, the guard, and the hidden tools sorted', async () => {
    const bridge = createToolBridge({ validator: createAjvProvider(), tools, guard: 'read-only' });
    const snapshot = await bridge.snapshot();
    const index = await exchange(bridge, request('tool.query', { detail: 'index' }));
    expect(snapshot.revision).toBe(index.payload.revision);
    expect(snapshot.availabilityRevision).toBe(index.payload.availabilityRevision);
    expect(snapshot.guard).toEqual({
      discoveryEnabled: true,
      executionEnabled: true,
      maxPolicy: 'read',
    });
    expect(snapshot.hidden).toEqual([
      { id: 'a.write', policy: 'write' },
      { id: 'b.write', policy: 'write' },
      { id: 'c.crit', policy: 'critical' },
    ]);
  });

  it('revisions(): the two a query reports, read without a request, following availability', async () => {
    let loaded = true;
    const list = [
      tool('a.read'),
      tool(
        'b.map',
        () => ({}),
        {},
        () => (loaded ? true : { available: false, reason: 'no map' }),
      ),
    ];
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => list,
      guard: 'read-only',
    });
    const before = await bridge.revisions();
    const index = await exchange(bridge, request('tool.query', { detail: 'index' }));
    expect(before).toEqual({
      revision: index.payload.revision,
      availabilityRevision: index.payload.availabilityRevision,
    });
    // Availability is evaluated at each read: the catalog revision stays, the other moves.
    loaded = false;
    const unavailable = await bridge.revisions();
    expect(unavailable.revision).toBe(before.revision);
    expect(unavailable.availabilityRevision).not.toBe(before.availabilityRevision);
    const changed = await exchange(bridge, request('tool.query', { detail: 'index' }));
    expect(changed.payload.availabilityRevision).toBe(unavailable.availabilityRevision);
    // A new tool, after invalidate(): a new catalog revision.
    list.push(tool('c.read'));
    bridge.invalidate();
    expect((await bridge.revisions()).revision).not.toBe(before.revision);
  });

  it('follows the guard: full-access hides nothing, read-write hides the critical tool', async () => {
    const expectations: [GuardPreset, string[]][] = [
      ['full-access', []],
      ['read-write', ['c.crit']],
    ];
    for (const [guard, hidden] of expectations) {
      const snapshot = await createToolBridge({
        validator: createAjvProvider(),
        tools,
        guard,
      }).snapshot();
      expect(
        snapshot.hidden.map((h) => h.id),
        guard,
      ).toEqual(hidden);
    }
  });

  it('sees changes after invalidate(), and a new hidden tool changes the report', async () => {
    const list = [tool('a.read')];
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => list,
      guard: 'read-only',
    });
    const before = await bridge.snapshot();
    expect(before.hidden).toEqual([]);
    list.push(tool('late.write', () => ({}), { policy: 'write' }));
    expect((await bridge.snapshot()).hidden).toEqual([]);
    bridge.invalidate();
    const after = await bridge.snapshot();
    expect(after.hidden).toEqual([{ id: 'late.write', policy: 'write' }]);
  });
});

describe('session messages', () => {
  it('readWelcome accepts the builder output and refuses wrong shapes', () => {
    const welcome = sessionWelcome({
      sessionId: 's',
      hostRun: 'r',
      maxToolPolicy: 'write',
      heartbeatIntervalMs: 200,
      proof: { nonce: 'n', mac: 'm' },
      hostId: 'h',
    });
    expect(readWelcome(JSON.parse(JSON.stringify(welcome)))).toEqual(welcome.payload);
    const bad = (payload: object) => readWelcome({ type: 'session.welcome', payload });
    expect(bad({ sessionId: 's', hostRun: 'r', maxToolPolicy: 'delete' })).toBeUndefined();
    expect(bad({ sessionId: 1, hostRun: 'r', maxToolPolicy: 'read' })).toBeUndefined();
    expect(readWelcome({ type: 'session.ping', payload: welcome.payload })).toBeUndefined();
    // A bad interval is "no heartbeat", an empty host id none.
    for (const heartbeatIntervalMs of [-1, Number.NaN, '200', Infinity]) {
      expect(
        bad({
          sessionId: 's',
          hostRun: 'r',
          maxToolPolicy: 'read',
          heartbeatIntervalMs,
          hostId: '',
        }),
      ).toEqual({ sessionId: 's', hostRun: 'r', maxToolPolicy: 'read', heartbeatIntervalMs: 0 });
    }
  });

  it('readGuardReport checks and clips what a page says', () => {
    expect(readGuardReport({ maxPolicy: 'everything' })).toBeUndefined();
    const report = readGuardReport({
      discoveryEnabled: true,
      executionEnabled: 'yes',
      maxPolicy: 'read',
      preset: 'x'.repeat(100),
      hidden: [
        { id: 'ok.write', policy: 'write' },
        { id: '', policy: 'write' },
        { id: 'bad.policy', policy: 'delete' },
        'junk',
        ...Array.from({ length: 1200 }, (_, i) => ({ id: `t${i}`, policy: 'critical' })),
      ],
    });
    expect(report?.executionEnabled).toBe(false);
    expect(report?.preset).toHaveLength(64);
    expect(report?.hidden[0]).toEqual({ id: 'ok.write', policy: 'write' });
    expect(report?.hidden.length).toBeLessThanOrEqual(1000);
    expect(catalogChanged({ revision: 'r' }).capability).toBe('tool.exec');
  });
});
