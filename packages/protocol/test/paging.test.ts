import { describe, expect, it } from 'vitest';
import { createAjvProvider } from '../src/ajv.js';
import type { BridgeTool } from '../src/index.js';
import { createToolBridge, MAX_CURSOR_LENGTH } from '../src/index.js';
import { exchange, request, tool } from './helpers.js';

// Paging past 1,000 tools (docs/wire.md "Paging", issue 16 part 7). Each hostile case first
// walks the honest path on the same bridge, so a refusal is the cursor's, not a broken bridge's.

const ids = (count: number, prefix = 't') =>
  Array.from({ length: count }, (_, i) => `${prefix}.${String(i).padStart(5, '0')}`);

function bridgeOf(list: BridgeTool[]) {
  const tools = { list };
  const bridge = createToolBridge({
    tools: () => tools.list,
    validator: createAjvProvider(),
    onToolError: () => {},
  });
  return { bridge, tools };
}

const query = (payload: Record<string, unknown>) => request('tool.query', payload);

/** Every page of a paged listing, following nextCursor. */
async function allPages(bridge: ReturnType<typeof bridgeOf>['bridge'], base = {}) {
  const pages: Record<string, any>[] = [];
  let cursor = '';
  for (;;) {
    const { type, payload } = await exchange(bridge, query({ ...base, cursor }));
    expect(type, JSON.stringify(payload)).toBe('tool.catalog');
    pages.push(payload);
    if (payload.nextCursor === undefined) return pages;
    cursor = payload.nextCursor;
  }
}

describe('paged listings', () => {
  it('lists 2,500 tools in three pages of at most 1,000, each once, in id order', async () => {
    const all = ids(2500);
    const { bridge } = bridgeOf(all.map((id) => tool(id)));
    const pages = await allPages(bridge, { detail: 'index' });
    expect(pages.map((page) => page.count)).toEqual([1000, 1000, 500]);
    expect(pages.flatMap((page) => page.tools.map((t: { id: string }) => t.id))).toEqual(all);
    for (const page of pages) {
      expect(page.totalCount).toBe(2500);
      expect(page.revision).toBe(pages[0]?.revision);
    }
    expect(pages[0]?.nextCursor).toMatch(/^tw1\.1000\.[0-9a-f]{64}$/);
    expect(pages[0]?.nextCursor.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
  });

  it('without a cursor answers as before: the first 1,000 and no nextCursor', async () => {
    const { bridge } = bridgeOf(ids(1500).map((id) => tool(id)));
    const { payload } = await exchange(bridge, query({ detail: 'index' }));
    expect(payload.count).toBe(1000);
    expect(payload.totalCount).toBe(1500);
    expect(payload).not.toHaveProperty('nextCursor');
    const paged = await exchange(bridge, query({ detail: 'index', cursor: '' }));
    expect({ ...paged.payload, nextCursor: undefined, evaluatedAtUtc: undefined }).toEqual({
      ...payload,
      nextCursor: undefined,
      evaluatedAtUtc: undefined,
    });
  });

  it('pages by limit and filters, and the last page has no nextCursor', async () => {
    const { bridge } = bridgeOf([...ids(30, 'a'), ...ids(30, 'b')].map((id) => tool(id)));
    const pages = await allPages(bridge, { detail: 'definitions', query: 'b', limit: 7 });
    expect(pages.map((page) => page.count)).toEqual([7, 7, 7, 7, 2]);
    expect(pages.flatMap((page) => page.tools.map((t: { id: string }) => t.id))).toEqual(
      ids(30, 'b'),
    );
    // Exactly `limit` left: the page that takes them is the last.
    const even = await allPages(bridge, { query: 'b', limit: 10 });
    expect(even.map((page) => page.count)).toEqual([10, 10, 10]);
  });

  it('a first page ("") still answers unchanged; a resumed page never does', async () => {
    const { bridge } = bridgeOf(ids(1200).map((id) => tool(id)));
    const first = (await exchange(bridge, query({ detail: 'index', cursor: '' }))).payload;
    const again = await exchange(
      bridge,
      query({ detail: 'index', cursor: '', ifRevision: first.revision }),
    );
    expect(again.payload).toEqual({
      schema: 'ansight.tool-catalog.v3',
      revision: first.revision,
      unchanged: true,
    });
    const next = await exchange(
      bridge,
      query({ detail: 'index', cursor: first.nextCursor, ifRevision: first.revision }),
    );
    expect(next.payload.count).toBe(200);
  });

  it('goes by listingRank, then id, and a cursor resumes in that order', async () => {
    const list = ids(1500).map((id, i) => ({ ...tool(id), listingRank: i % 3 === 0 ? 0 : 1 }));
    const { bridge } = bridgeOf(list);
    const pages = await allPages(bridge, { detail: 'index' });
    const listed = pages.flatMap((page) => page.tools.map((t: { id: string }) => t.id));
    const expected = [...list]
      .sort((a, b) => a.listingRank - b.listingRank || (a.definition.id < b.definition.id ? -1 : 1))
      .map((t) => t.definition.id);
    expect(listed).toEqual(expected);
    expect(listed.slice(0, 500).every((id) => Number(id.slice(2)) % 3 === 0)).toBe(true);
  });
});

describe('hostile and stale cursors', () => {
  it('a cursor from before a change is tool_cursor_stale with the current revision', async () => {
    const { bridge, tools } = bridgeOf(ids(1100).map((id) => tool(id)));
    const first = (await exchange(bridge, query({ cursor: '' }))).payload;
    // Honest path first: the cursor works while nothing changed.
    const ok = await exchange(bridge, query({ cursor: first.nextCursor }));
    expect([ok.type, ok.payload.count]).toEqual(['tool.catalog', 100]);

    tools.list = [...tools.list, tool('t.late')];
    bridge.invalidate();
    const stale = await exchange(bridge, query({ cursor: first.nextCursor }));
    expect(stale.type).toBe('tool.error');
    expect(stale.payload).toMatchObject({ code: 'tool_cursor_stale', retryable: true });
    const fresh = (await exchange(bridge, query({ cursor: '' }))).payload;
    expect(stale.payload.details).toEqual({ revision: fresh.revision });
    expect(fresh.revision).not.toBe(first.revision);
  });

  it('a reordering under the same revision makes the cursor stale too', async () => {
    const list = ids(1100).map((id) => ({ ...tool(id), listingRank: 0 }));
    const { bridge, tools } = bridgeOf(list);
    const first = (await exchange(bridge, query({ cursor: '' }))).payload;
    expect((await exchange(bridge, query({ cursor: first.nextCursor }))).type).toBe('tool.catalog');
    tools.list = list.map((t, i) => ({ ...t, listingRank: i === 0 ? 1 : 0 }));
    bridge.invalidate();
    const again = (await exchange(bridge, query({ cursor: '' }))).payload;
    expect(again.revision).toBe(first.revision);
    const stale = await exchange(bridge, query({ cursor: first.nextCursor }));
    expect(stale.payload.code).toBe('tool_cursor_stale');
  });

  it('refuses garbage, forged and oversized cursors as tool_cursor_invalid, never echoing them', async () => {
    const { bridge } = bridgeOf(ids(1100).map((id) => tool(id)));
    const first = (await exchange(bridge, query({ cursor: '' }))).payload;
    const honest: string = first.nextCursor;
    expect((await exchange(bridge, query({ cursor: honest }))).payload.count).toBe(100);
    const key = honest.split('.')[2] as string;
    const hostile: unknown[] = [
      42,
      {},
      ['tw1.1.x'],
      'garbage',
      `tw1.-1.${key}`,
      `tw1.01.${key}`,
      `tw1.0.${key}`, // the first page is "", not a cursor
      `tw1.1100.${key}`, // past the end
      `tw1.99999999999.${key}`,
      `tw1.1000.${key.toUpperCase()}`,
      `${honest} `,
      `tw1.1000.${key}.extra`,
      `${'A'.repeat(MAX_CURSOR_LENGTH + 1)}<script>`,
      'x'.repeat(10_000_000),
    ];
    for (const cursor of hostile) {
      const answer = await exchange(bridge, query({ cursor }));
      expect(answer.type, String(cursor).slice(0, 40)).toBe('tool.error');
      expect(answer.payload.code, String(cursor).slice(0, 40)).toBe('tool_cursor_invalid');
      expect(answer.payload.retryable).toBe(false);
      const text = JSON.stringify(answer.payload);
      expect(text.length).toBeLessThan(400);
      if (typeof cursor === 'string' && cursor.length > 8) expect(text).not.toContain(cursor);
    }
    // The size is checked before the shape: a long cursor is never matched against anything.
    const huge = await exchange(bridge, query({ cursor: 'x'.repeat(10_000_000) }));
    expect(huge.payload.message).toMatch(/10000000 characters; a cursor has at most 128/);
    // And the bridge still pages afterwards.
    expect((await exchange(bridge, query({ cursor: honest }))).payload.count).toBe(100);
  });
});
