/**
 * Sanity checks of expectations.ts against docs/browser-api.md's table, without a test runner:
 * `npx tsx demo/frames/expectations.check.ts` prints one line and exits 0, or throws.
 */
import assert from 'node:assert/strict';
import type { Expectation, ViewId } from './expectations.js';
import { Expectations, exposure, grantsTools, toolsAllowlist } from './expectations.js';
import type { FrameSpec } from './scenarios.js';
import { FRAMES, frameById } from './scenarios.js';

const A = 'http://localhost:5173';
const B = 'http://127.0.0.1:5174';
const expectations = new Expectations({ A, B });
const rows = expectations.rows();
let checks = 0;

function frame(id: string): FrameSpec {
  const found = frameById(id);
  assert.ok(found, `no frame ${id}`);
  return found;
}

/** Asserts the expected `seen` of one tool in each listed view (null = not applicable). */
function expect(name: string, views: Partial<Record<ViewId, boolean | null>>): void {
  const row = rows.find((candidate) => candidate.tool.name === name);
  assert.ok(row, `no tool ${name}`);
  for (const [view, seen] of Object.entries(views) as [ViewId, boolean | null][]) {
    const actual: Expectation | null = row.expected[view];
    assert.equal(actual === null ? null : actual.seen, seen, `${name} / ${view}: ${actual?.why}`);
    checks++;
  }
}

// The allow attribute parser (docs/browser-api.md: bare `tools` = 'src').
assert.deepEqual(toolsAllowlist('tools'), ["'src'"]);
assert.deepEqual(toolsAllowlist("camera; tools 'none'"), ["'none'"]);
assert.equal(toolsAllowlist('camera'), undefined);
assert.equal(grantsTools(null, A, A).granted, true);
assert.equal(grantsTools(null, B, A).granted, false);
assert.equal(grantsTools("tools 'none'", A, A).granted, false);
assert.equal(grantsTools("tools 'self'", B, A).granted, false);
assert.equal(grantsTools(`tools ${B}`, B, A).granted, true);
assert.equal(grantsTools('tools *', B, A).granted, true);
// Exposure: own origin, a listed origin, or '*'.
assert.equal(exposure(A, undefined, A).granted, true);
assert.equal(exposure(B, undefined, A).granted, false);
assert.equal(exposure(B, ['*'], A).granted, true);
assert.equal(exposure(B, ['https://partner.example'], A).granted, false);
checks += 14;

// Every tool name is unique, and every frame's parent comes first.
const names = FRAMES.flatMap((frame) => frame.tools.map((tool) => tool.name));
assert.equal(new Set(names).size, names.length);
FRAMES.forEach((frame, index) => {
  if (frame.parent !== null)
    assert.ok(FRAMES.slice(0, index).some((other) => other.id === frame.parent));
});
assert.equal(frame('r5g').parent, 'r5');

// The top's own tools: every same-document view sees them; agents only the agent-exposed.
expect('top.search', { registered: true, top: true, agent: true, of: true, modelContext: true });
expect('top.debug', { top: true, agent: false, of: true, ofChild: null, modelContext: false });
expect('top.summary', { registered: true, top: true, agent: true, modelContext: true });
// Row 1: same-origin, no allow: yes / yes if NLP / yes (own origin beats exposedTo).
expect('r1.own', { top: true, agent: true, of: true, modelContext: true });
expect('r1.internal', { top: true, agent: false, of: true, modelContext: false });
expect('r1.elsewhere', { top: true, agent: true, of: true });
// Row 2: cross-origin, no allow: no / no / only exposed to top's origin or '*'.
expect('r2.own', { registered: true, top: false, agent: false, of: false, modelContext: false });
expect('r2.toTop', { top: false, agent: false, of: true, modelContext: false });
expect('r2.anyone', { top: false, of: true });
// Row 3: cross-origin, allow="tools": exposed to top / if NLP / exposed to top.
expect('r3.own', { top: false, agent: false, of: false, modelContext: false });
expect('r3.toTop', { top: true, agent: true, of: true, modelContext: true });
expect('r3.anyone', { top: true, agent: false, of: true, modelContext: false });
expect('r3.elsewhere', { top: false, agent: false, of: false, modelContext: false });
// Row 4, same- and cross-origin: tools 'none' refuses both; of() still reads by exposure.
expect('r4a.own', { top: false, agent: false, of: true, modelContext: false });
expect('r4b.own', { top: false, of: false });
expect('r4b.toTop', { top: false, agent: false, of: true, modelContext: false });
// Row 5: transitively.
expect('r5.child.toTop', { top: true, agent: true, of: true, ofChild: null });
expect('r5.gc.toTop', { top: true, agent: true, of: true, ofChild: true, modelContext: true });
expect('r5.gc.own', { top: false, of: false, ofChild: false });
// An agent tool exposed with '*' (toolManager only) passes document.modelContext's opt-in.
expect('r5.gc.anyone', { top: true, agent: true, of: true, ofChild: true, modelContext: true });
// Row 6: stops at the refusing child; of(child) only if exposed.
expect('r6.child.toTop', { top: false, of: true, modelContext: false });
expect('r6.gc.toTop', { top: false, agent: false, of: true, ofChild: true, modelContext: false });
expect('r6.gc.own', { top: false, of: false, ofChild: false });
expect('r6.gc.anyone', { top: false, of: true, ofChild: true });
assert.equal(expectations.reaches(frame('r6g')).granted, false);
assert.equal(expectations.reaches(frame('r6g'), 'r6').granted, true);

// Without fromOrigins the double opt-in fails for every cross-origin frame.
const noOptIn = new Expectations({ A, B }, []);
const r3 = frame('r3');
const toTop = r3.tools.find((tool) => tool.name === 'r3.toTop');
assert.ok(toTop);
assert.equal(noOptIn.row(r3, toTop).expected.modelContext?.seen, false);
checks += 4;

process.stdout.write(`expectations: ${checks} checks passed over ${rows.length} tools\n`);
