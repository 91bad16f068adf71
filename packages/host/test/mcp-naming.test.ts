import { describe, expect, it } from 'vitest';
import type { McpSourceTool, McpWithheldTool } from '../src/index.js';
import { McpToolNames, sessionLabel, withheldNamed } from '../src/internal.js';

// MCP names for page tools, unique across tabs and stable for the bridge's lifetime
// (src/mcp/naming.ts). Pure: entries as a source would list them, no host.

const OWN = ['toolwire_pair', 'toolwire_sessions', 'toolwire_call'];
const A = 'aaaaaaaa-1111-4111-8111-111111111111';
const B = 'bbbbbbbb-2222-4222-8222-222222222222';
const C = 'cccccccc-3333-4333-8333-333333333333';
const CONNECTED: Record<string, number> = { [A]: 1, [B]: 2, [C]: 3 };

function entry(sessionId: string, id: string, connectedAt = CONNECTED[sessionId] ?? 9) {
  return {
    sessionId,
    connectedAt,
    pageUrl: 'http://fake.test/',
    tool: { id, name: id, description: '', policy: 'read' },
  } as unknown as McpSourceTool;
}

/** name -> "session:tool id" of one assignment. */
function assign(
  names: McpToolNames,
  entries: McpSourceTool[],
  open?: Parameters<McpToolNames['assign']>[1],
) {
  const map = names.assign(entries, open ?? entries.map((one) => one.sessionId));
  return Object.fromEntries(
    [...map].map(([name, one]) => [name, `${one.sessionId.slice(0, 1)}:${one.tool.id}`]),
  );
}

describe('MCP tool names across tabs', () => {
  it('one tab: the ids made MCP-safe, the labels from the session ids', () => {
    const names = new McpToolNames(OWN);
    expect(assign(names, [entry(A, 'demo.echo'), entry(A, 'notes.add')])).toEqual({
      demo_echo: 'a:demo.echo',
      notes_add: 'a:notes.add',
    });
    expect(sessionLabel(A)).toBe('aaaaaaaa');
    expect(sessionLabel('--')).toBe('session');
  });

  it('a shared id: the tab that connected first keeps the plain name, the others get their label', () => {
    const names = new McpToolNames(OWN);
    // Listed in any order: the connection order decides.
    expect(
      assign(names, [entry(C, 'demo.echo'), entry(B, 'demo.echo'), entry(A, 'demo.echo')]),
    ).toEqual({
      demo_echo: 'a:demo.echo',
      demo_echo__bbbbbbbb: 'b:demo.echo',
      demo_echo__cccccccc: 'c:demo.echo',
    });
  });

  it('names stay put as tabs come and go; a freed plain name goes to the next tab that offers it', () => {
    const names = new McpToolNames(OWN);
    assign(names, [entry(A, 'demo.echo'), entry(B, 'demo.echo')]);
    // A closes: B keeps its name (nothing shifts), the plain name is free.
    expect(assign(names, [entry(B, 'demo.echo')])).toEqual({
      demo_echo__bbbbbbbb: 'b:demo.echo',
    });
    // A reloads as C, after B: it takes the free plain name; B still keeps its own.
    expect(assign(names, [entry(B, 'demo.echo'), entry(C, 'demo.echo')])).toEqual({
      demo_echo: 'c:demo.echo',
      demo_echo__bbbbbbbb: 'b:demo.echo',
    });
    // B closes: C's name does not change either.
    expect(assign(names, [entry(C, 'demo.echo')])).toEqual({ demo_echo: 'c:demo.echo' });
  });

  it('a tool a tab unregisters keeps its name while the tab lives: no other tab takes it', () => {
    const names = new McpToolNames(OWN);
    assign(names, [entry(A, 'demo.echo')]);
    // A still open (it lists no tools now); B offers the same id meanwhile.
    expect(assign(names, [entry(B, 'demo.echo')], [A, B])).toEqual({
      demo_echo__bbbbbbbb: 'b:demo.echo',
    });
    expect(assign(names, [entry(A, 'demo.echo'), entry(B, 'demo.echo')])).toEqual({
      demo_echo: 'a:demo.echo',
      demo_echo__bbbbbbbb: 'b:demo.echo',
    });
  });

  it("hostile ids: the bridge's own names, another tab's labelled name, long and odd ids", () => {
    // The honest path first: B's labelled name when nothing is in the way.
    const honest = new McpToolNames(OWN);
    expect(assign(honest, [entry(A, 'demo.echo'), entry(B, 'demo.echo')])).toHaveProperty(
      'demo_echo__bbbbbbbb',
      'b:demo.echo',
    );
    const names = new McpToolNames(OWN);
    const long = 'x'.repeat(200);
    const listed = assign(names, [
      entry(A, 'toolwire_sessions'),
      entry(A, 'toolwire.call'),
      // A squats the name B's demo.echo would get.
      entry(A, 'demo_echo__bbbbbbbb'),
      entry(A, 'demo.echo'),
      entry(B, 'demo.echo'),
      entry(A, long),
      entry(B, long),
      entry(A, ''),
      entry(A, 'é\u202e\n'),
    ]);
    expect(listed).toEqual({
      toolwire_sessions_2: 'a:toolwire_sessions',
      toolwire_call_2: 'a:toolwire.call',
      demo_echo__bbbbbbbb: 'a:demo_echo__bbbbbbbb',
      demo_echo: 'a:demo.echo',
      demo_echo__bbbbbbbb_2: 'b:demo.echo',
      ['x'.repeat(64)]: `a:${long}`,
      [`${'x'.repeat(54)}__bbbbbbbb`]: `b:${long}`,
      tool: 'a:',
      ___: 'a:é\u202e\n',
    });
    for (const name of Object.keys(listed)) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    for (const own of OWN) expect(listed).not.toHaveProperty(own);
  });

  it('forgets the unlisted tools of a tab that churns through ids (bounded), keeps the listed', () => {
    const names = new McpToolNames(OWN);
    assign(names, [entry(A, 'keep.me')]);
    for (let round = 0; round < 3; round++) {
      const churn = Array.from({ length: 600 }, (_, i) => entry(A, `churn.${round}.${i}`));
      assign(names, [entry(A, 'keep.me'), ...churn]);
    }
    // The earlier rounds' names are free again: B takes a plain one.
    expect(assign(names, [entry(A, 'keep.me'), entry(B, 'churn.0.0')])).toEqual({
      keep_me: 'a:keep.me',
      churn_0_0: 'b:churn.0.0',
    });
  });
});

describe('a name stays with its origin, and with its tab when it comes back', () => {
  const BANK = 'http://bank.test';
  const EVIL = 'http://evil.test';
  /** An open session: its origin and its page's key. */
  const at = (id: string, connectedFrom: string, key: string) => ({ id, connectedFrom, key });

  it('honest: a tab that reconnects or reloads gets its names back, suffixed ones too', () => {
    const names = new McpToolNames(OWN);
    // Two bank tabs (keys k1, k2) with one id: the second's name is suffixed.
    expect(
      assign(
        names,
        [entry(A, 'bank.transfer'), entry(B, 'bank.transfer')],
        [at(A, BANK, 'k1'), at(B, BANK, 'k2')],
      ),
    ).toEqual({ bank_transfer: 'a:bank.transfer', bank_transfer__bbbbbbbb: 'b:bank.transfer' });
    // Both drop; B's tab reconnects first as C (its key k2): its own name, not the plain one.
    assign(names, [], []);
    expect(names.dormant('bank_transfer')).toEqual({ origin: BANK });
    expect(assign(names, [entry(C, 'bank.transfer')], [at(C, BANK, 'k2')])).toEqual({
      bank_transfer__bbbbbbbb: 'c:bank.transfer',
    });
    // A reload of the first tab (a new key): its origin's plain name.
    const D = 'dddddddd-4444-4444-8444-444444444444';
    expect(
      assign(
        names,
        [entry(C, 'bank.transfer'), entry(D, 'bank.transfer', 4)],
        [at(C, BANK, 'k2'), at(D, BANK, 'k3')],
      ),
    ).toEqual({ bank_transfer: 'd:bank.transfer', bank_transfer__bbbbbbbb: 'c:bank.transfer' });
    expect(names.dormant('bank_transfer')).toBeUndefined();
  });

  it('attack: another origin never gets a dormant name, by any id that reads alike', () => {
    const names = new McpToolNames(OWN);
    assign(names, [entry(A, 'bank.transfer')], [at(A, BANK, 'k1')]);
    // The bank's tab is gone; the other origin offers both ids, and claims the bank's key.
    const listed = assign(
      names,
      [entry(B, 'bank.transfer'), entry(B, 'bank_transfer')],
      [at(B, EVIL, 'k1')],
    );
    expect(listed).toEqual({
      bank_transfer__bbbbbbbb: 'b:bank.transfer',
      bank_transfer__bbbbbbbb_2: 'b:bank_transfer',
    });
    expect(names.dormant('bank_transfer')).toEqual({ origin: BANK });
    // The bank comes back: its name, the other origin's stay as they were.
    expect(
      assign(
        names,
        [entry(B, 'bank.transfer'), entry(B, 'bank_transfer'), entry(C, 'bank.transfer')],
        [at(B, EVIL, 'k1'), at(C, BANK, 'k9')],
      ),
    ).toEqual({ ...listed, bank_transfer: 'c:bank.transfer' });
  });

  it("bounded: an origin's dormant names past 1,000 are forgotten, oldest first; only its own", () => {
    const names = new McpToolNames(OWN);
    assign(names, [entry(A, 'bank.transfer')], [at(A, BANK, 'k1')]);
    for (let round = 0; round < 3; round++) {
      const D = `dddddddd-${round}`;
      const churn = Array.from({ length: 600 }, (_, i) => entry(D, `churn.${round}.${i}`));
      assign(names, churn, [at(D, EVIL, `e${round}`)]);
    }
    assign(names, [], []);
    // 1,800 dormant names of the other origin: 1,000 are kept, the newest; the bank's too.
    const kept = (round: number) =>
      Array.from({ length: 600 }, (_, i) => names.dormant(`churn_${round}_${i}`)).filter(
        (owner) => owner?.origin === EVIL,
      ).length;
    expect([kept(0), kept(1), kept(2)]).toEqual([0, 400, 600]);
    expect(names.dormant('bank_transfer')).toEqual({ origin: BANK });
    expect(assign(names, [entry(B, 'bank.transfer')], [at(B, EVIL, 'e9')])).toEqual({
      bank_transfer__bbbbbbbb: 'b:bank.transfer',
    });
  });
});

describe('a withheld tool, by the names a call may use (withheldNamed)', () => {
  const held = (sessionId: string, id: string): McpWithheldTool => ({
    sessionId,
    pageUrl: 'http://fake.test/',
    id,
    policy: 'write',
    reason: 'grant',
    limit: 'read',
  });
  const at = (tool: McpWithheldTool | undefined) =>
    tool && `${tool.sessionId.slice(0, 1)}:${tool.id}`;

  it('the name it was listed under, its plain name, its name with its tab label', () => {
    const names = new McpToolNames(OWN);
    const given = (session: string, id: string) => names.given(session, id);
    // Listed: A's keeps the plain name, B's has its label.
    assign(names, [entry(A, 'demo.echo'), entry(B, 'demo.echo')]);
    expect(names.given(B, 'demo.echo')).toBe('demo_echo__bbbbbbbb');
    // Both withheld now (the tabs still open): each name still means its own tab's tool.
    assign(names, [], [A, B]);
    const withheld = [held(A, 'demo.echo'), held(B, 'demo.echo')];
    expect(at(withheldNamed('demo_echo', withheld, given))).toBe('a:demo.echo');
    expect(at(withheldNamed('demo_echo__bbbbbbbb', withheld, given))).toBe('b:demo.echo');
    // Never listed: the plain name means the first, a label its own tab's.
    const never = [held(C, 'notes.add'), held(B, 'notes.add')];
    expect(at(withheldNamed('notes_add', never, given))).toBe('c:notes.add');
    expect(at(withheldNamed('notes_add__bbbbbbbb', never, given))).toBe('b:notes.add');
    expect(at(withheldNamed('notes_add__cccccccc', never))).toBe('c:notes.add');
  });

  it('hostile names: a squatted label, other labels, other tools mean nothing else', () => {
    // Honest first: B's labelled name when nothing is in the way.
    expect(at(withheldNamed('demo_echo__bbbbbbbb', [held(B, 'demo.echo')]))).toBe('b:demo.echo');
    // A squats B's labelled name, so B's tool was listed as `_2`; withheld, it keeps that name.
    const names = new McpToolNames(OWN);
    const given = (session: string, id: string) => names.given(session, id);
    assign(names, [entry(A, 'demo_echo__bbbbbbbb'), entry(A, 'demo.echo'), entry(B, 'demo.echo')]);
    assign(names, [entry(A, 'demo_echo__bbbbbbbb'), entry(A, 'demo.echo')], [A, B]);
    const withheld = [held(B, 'demo.echo')];
    expect(at(withheldNamed('demo_echo__bbbbbbbb_2', withheld, given))).toBe('b:demo.echo');
    for (const name of [
      'demo_echo__aaaaaaaa',
      'demo_echo__deadbeef',
      'demo_echo__bbbbbbbb_3',
      'demo_echo_',
      'notes_add__bbbbbbbb',
      'toolwire_call',
    ])
      expect(withheldNamed(name, withheld, given)).toBeUndefined();
  });
});
