import type { BridgeTool, CatalogPayload, QueryPayload } from '@toolwire/protocol';
import { createToolBridge, decodePayload, ToolProtocolError } from '@toolwire/protocol';
import { createAjvProvider } from '@toolwire/protocol/ajv';
import { describe, expect, it } from 'vitest';
import { CatalogCache } from '../src/internal.js';

// The host reads every page of a paged index (docs/wire.md "Paging", issue 16 part 7), starts
// over when the catalog moves under its cursor, and bounds what a page that never ends costs.

const tool = (id: string): BridgeTool => ({
  definition: {
    id,
    name: id,
    description: `The ${id} tool.`,
    category: 'demo',
    policy: 'read',
    argumentsSchema: { type: 'object', properties: { [id]: { type: 'string' } } },
    resultSchema: {},
  },
  execute: () => null,
});
const ids = (count: number, prefix = 't') =>
  Array.from({ length: count }, (_, i) => `${prefix}.${String(i).padStart(5, '0')}`);

/** A real bridge as the cache's query function; `onQuery` runs before each answer. */
function page(list: BridgeTool[], onQuery?: (payload: QueryPayload, n: number) => void) {
  const tools = { list };
  const bridge = createToolBridge({ tools: () => tools.list, validator: createAjvProvider() });
  const asked: QueryPayload[] = [];
  const query = async (payload: QueryPayload): Promise<CatalogPayload> => {
    asked.push(payload);
    onQuery?.(payload, asked.length);
    const response = await bridge.handle({ type: 'tool.query', id: `q${asked.length}`, payload });
    const body = decodePayload(response?.envelope.payload) as Record<string, unknown>;
    if (response?.type === 'tool.error') throw ToolProtocolError.fromPayload(body as never);
    return body as unknown as CatalogPayload;
  };
  return { bridge, tools, query, asked };
}

describe('CatalogCache paging', () => {
  // CPU-bound (2,500 tools): its bound is far past what a loaded machine needs.
  it('reads all 2,500 tools of a paging page, with their definitions', async () => {
    const cache = new CatalogCache();
    const { query, asked } = page(ids(2500).map(tool));
    expect(await cache.refresh(query)).toBe('tools');
    expect(cache.list().map((t) => t.id)).toEqual(ids(2500));
    expect(cache.totalCount).toBe(2500);
    expect(cache.get('t.02499')?.argumentsSchema).toEqual(
      tool('t.02499').definition.argumentsSchema,
    );
    expect(
      asked.map(
        (q) => `${q.detail}${q.cursor === undefined ? '' : q.cursor === '' ? ' first' : ' next'}`,
      ),
    ).toEqual([
      'index first',
      'index next',
      'index next',
      'definitions',
      'definitions',
      'definitions',
    ]);
    // Nothing changed: one conditional first page, answered "unchanged".
    expect(await cache.refresh(query)).toBe('none');
    expect(asked.at(-1)).toMatchObject({ cursor: '', ifRevision: cache.revision });
  }, 60_000);

  it('starts over when the catalog changes between pages (a stale cursor)', async () => {
    let bridge: ReturnType<typeof page>['bridge'] | undefined;
    let tools: ReturnType<typeof page>['tools'] | undefined;
    const fixture = page(ids(1500).map(tool), (payload, n) => {
      // Before the second page of the first pass: a tool registers.
      if (n === 2 && tools && bridge) {
        tools.list = [...tools.list, tool('t.late')];
        bridge.invalidate();
      }
      void payload;
    });
    ({ bridge, tools } = fixture);
    const cache = new CatalogCache();
    expect(await cache.refresh(fixture.query)).toBe('tools');
    expect(cache.list()).toHaveLength(1501);
    expect(cache.get('t.late')).toBeDefined();
    // first page, stale second page, then the whole index again
    expect(
      fixture.asked
        .slice(0, 4)
        .map((q) => (q.cursor === '' ? 'first' : q.cursor ? 'next' : q.detail)),
    ).toEqual(['first', 'next', 'first', 'next']);
  });

  it('an SDK that does not page: its first 1,000, and totalCount says there are more', async () => {
    const { bridge, query } = page(ids(1200).map(tool));
    const ignoring = async (payload: QueryPayload) => {
      const { cursor: _ignored, ...rest } = payload;
      return query(rest);
    };
    void bridge;
    const cache = new CatalogCache();
    await cache.refresh(ignoring);
    expect(cache.list()).toHaveLength(1000);
    expect(cache.totalCount).toBe(1200);
  });

  describe('a hostile page', () => {
    const listing = (n: number, nextCursor?: unknown) =>
      ({
        schema: 'ansight.tool-catalog.v3',
        revision: 'r1',
        tools:
          n < 0
            ? []
            : [
                {
                  id: `x${n}`,
                  name: 'x',
                  description: '',
                  category: 'x',
                  policy: 'read',
                  definitionRevision: 'd',
                },
              ],
        count: 1,
        detail: 'index',
        totalCount: 1_000_000,
        ...(nextCursor === undefined ? {} : { nextCursor }),
      }) as unknown as CatalogPayload;
    const definitionsOf = (payload: QueryPayload) =>
      ({
        schema: 'ansight.tool-catalog.v3',
        revision: 'r1',
        detail: 'definitions',
        tools: (payload.ids ?? []).map((id) => ({
          id,
          definitionRevision: 'd',
          argumentsSchema: {},
          resultSchema: {},
        })),
        count: payload.ids?.length ?? 0,
      }) as unknown as CatalogPayload;

    it('an honest ten-page scripted listing is read whole (the paths below are refusals)', async () => {
      let n = 0;
      const cache = new CatalogCache();
      await cache.refresh(async (payload) => {
        if (payload.detail === 'definitions') return definitionsOf(payload);
        n++;
        return listing(n, n < 10 ? `c${n}` : undefined);
      });
      expect(cache.list()).toHaveLength(10);
    });

    it('a page that never ends is read to MAX_PAGES and no further', async () => {
      let pages = 0;
      const cache = new CatalogCache();
      await cache.refresh(async (payload) => {
        if (payload.detail === 'definitions') return definitionsOf(payload);
        pages++;
        return listing(pages, `c${pages}`);
      });
      expect(pages).toBe(100);
      expect(cache.list()).toHaveLength(100);
    });

    it('refuses an oversized or non-string nextCursor and an empty page that goes on', async () => {
      for (const bad of [{ next: 'c'.repeat(129) }, { next: 42 }, { next: '' }, { empty: true }]) {
        let pages = 0;
        const cache = new CatalogCache();
        const run = cache.refresh(async (payload) => {
          if (payload.detail === 'definitions') return definitionsOf(payload);
          pages++;
          if (pages === 1) return listing(1, 'c1');
          return 'empty' in bad ? listing(-1, 'c2') : listing(2, bad.next);
        });
        await expect(run, JSON.stringify(bad)).rejects.toMatchObject({
          code: 'tool_response_invalid',
        });
        expect(cache.list()).toEqual([]);
      }
    });
  });
});
