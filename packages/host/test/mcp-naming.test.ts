import { describe, expect, it } from 'vitest';
import type { McpSourceTool, McpWithheldTool } from '../src/index.js';
import { McpToolNames, sessionLabel, withheldNamed } from '../src/internal.js';

// Issue 17 part 3: MCP names for page tools, unique across tabs and stable while a tab's session
// lives (src/mcp/naming.ts). Pure: entries as a source would list them, no host.

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
function assign(names: McpToolNames, entries: McpSourceTool[], open?: string[]) {
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
