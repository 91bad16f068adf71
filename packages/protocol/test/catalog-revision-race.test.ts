import { describe, expect, it } from 'vitest';
import { createAjvProvider } from '../src/ajv.js';
import type { BridgeResponse, BridgeTool } from '../src/index.js';
import { createToolBridge } from '../src/index.js';

// The catalog revision is a function of the tool set (docs/wire.md "Revisions"), also when a rebuild
// starts while another build is still hashing the same definitions (a page's tools changed
// during the host's first query). A revision made with a definition's hash still missing
// names no real catalog, and sends the host after a state that never existed.

const tool = (id: string): BridgeTool => ({
  definition: {
    id,
    name: id,
    description: `The ${id} tool.`,
    category: 'demo',
    policy: 'read',
    argumentsSchema: { type: 'object' },
    resultSchema: {},
  },
  execute: () => null,
});

const index = (id: string) => ({
  type: 'tool.query',
  id,
  capability: 'tool.exec',
  payload: { detail: 'index' },
});

/** The listing's payload (the test fails if the bridge passed the query through). */
const listing = (response: BridgeResponse | undefined) => {
  if (!response) throw new Error('expected a response');
  return response.envelope.payload as unknown as {
    revision: string;
    tools: { definitionRevision: string }[];
  };
};
const revisionOf = (response: BridgeResponse | undefined) => listing(response).revision;

describe('catalog revisions across overlapping rebuilds', () => {
  it('a rebuild over definitions still being hashed waits for their hashes', async () => {
    const tools = [tool('a.one'), tool('b.two')];
    const bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => tools,
      guard: 'full-access',
    });
    // Honest path: one build, then a rebuild after it finished: one revision.
    const settled = revisionOf(await bridge.handle(index('q0')));
    bridge.invalidate();
    expect(revisionOf(await bridge.handle(index('q1')))).toBe(settled);

    // Fresh definitions: the first build hashes them; a rebuild starts before it is done.
    const again = [tool('a.one'), tool('b.two')];
    const fresh = createToolBridge({
      validator: createAjvProvider(),
      tools: () => again,
      guard: 'full-access',
    });
    const first = fresh.handle(index('q2'));
    fresh.invalidate();
    const second = fresh.handle(index('q3'));
    const [one, two] = await Promise.all([first, second]);
    expect(revisionOf(one)).toBe(settled);
    expect(revisionOf(two)).toBe(settled);
    const entries = listing(two).tools;
    for (const entry of entries) expect(entry.definitionRevision).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
