import type { CatalogPayload, QueryPayload } from '@toolwire/protocol';
import { describe, expect, it } from 'vitest';
import { CatalogCache } from '../src/internal.js';

// Scripted pages: each query gets the next answer; what the cache asked is kept.
function scripted(answers: CatalogPayload[]) {
  const asked: QueryPayload[] = [];
  const query = async (payload: QueryPayload) => {
    asked.push(payload);
    const answer = answers.shift();
    if (!answer) throw new Error('no more answers');
    return answer;
  };
  return { query, asked };
}

const schema = 'ansight.tool-catalog.v3' as const;
const entry = (id: string, definitionRevision = `d-${id}`, extra: object = {}) => ({
  id,
  name: id,
  description: `${id}.`,
  category: 'demo',
  policy: 'read' as const,
  definitionRevision,
  ...extra,
});
const definition = (id: string, definitionRevision = `d-${id}`) => ({
  ...entry(id, definitionRevision),
  argumentsSchema: { type: 'object', properties: { [id]: { type: 'string' } } },
  resultSchema: { type: 'object' },
});
const index = (revision: string, tools: object[]) =>
  ({
    schema,
    revision,
    tools,
    count: tools.length,
    detail: 'index',
    availabilityRevision: `a-${revision}`,
    evaluatedAtUtc: '2026-11-30T00:00:00Z',
    totalCount: tools.length,
    categories: {},
  }) as CatalogPayload;
const definitions = (revision: string, tools: object[]) =>
  ({ schema, revision, tools, count: tools.length, detail: 'definitions' }) as CatalogPayload;

describe('CatalogCache', () => {
  it('starts over when the page changed between the index and the definitions', async () => {
    const cache = new CatalogCache();
    const { query, asked } = scripted([
      index('r1', [entry('a')]),
      definitions('r2', [definition('a', 'd-a2')]),
      index('r2', [entry('a', 'd-a2')]),
      definitions('r2', [definition('a', 'd-a2')]),
    ]);
    expect(await cache.refresh(query)).toBe('tools');
    expect(asked.map((q) => q.detail)).toEqual(['index', 'definitions', 'index', 'definitions']);
    expect(cache.revision).toBe('r2');
    expect(cache.get('a')?.definitionRevision).toBe('d-a2');
  });

  it('gives up after three pages in a row that keep changing, keeping what it had', async () => {
    const cache = new CatalogCache();
    const answers: CatalogPayload[] = [];
    for (let n = 0; n < 3; n++) {
      answers.push(index(`r${n}`, [entry('a')]), definitions(`other${n}`, [definition('a')]));
    }
    const { query } = scripted(answers);
    await expect(cache.refresh(query)).rejects.toMatchObject({ code: 'tool_response_invalid' });
    expect(cache.revision).toBeNull();
    expect(cache.list()).toEqual([]);
  });

  it('drops malformed entries and keeps the rest', async () => {
    const cache = new CatalogCache();
    const { query } = scripted([
      index('r1', [
        entry('good'),
        { id: 'no-revision', policy: 'read' },
        entry('bad-policy', 'd', { policy: 'root' }),
        'not an object' as unknown as object,
        entry('good', 'd-dup'),
      ]),
      definitions('r1', [definition('good')]),
    ]);
    await cache.refresh(query);
    expect(cache.list().map((tool) => tool.id)).toEqual(['good']);
  });

  it("keeps each tool's origin only in canonical form", async () => {
    const cache = new CatalogCache();
    const widget = 'https://widget.example';
    const forms = {
      honest: widget,
      loopback: 'http://127.0.0.1:5173',
      upper: 'HTTPS://widget.example',
      slash: `${widget}/`,
      port: `${widget}:443`,
      path: `${widget}/x`,
      null: 'null',
      number: 42,
      bare: 'widget.example',
    };
    const ids = Object.keys(forms);
    const { query } = scripted([
      index(
        'r1',
        ids.map((id) => entry(id, `d-${id}`, { origin: forms[id as keyof typeof forms] })),
      ),
      definitions(
        'r1',
        ids.map((id) => definition(id)),
      ),
    ]);
    await cache.refresh(query);
    // Every tool is kept; only an origin that is not canonical is dropped.
    expect(Object.fromEntries(cache.list().map((tool) => [tool.id, tool.origin ?? null]))).toEqual({
      bare: null,
      honest: widget,
      loopback: 'http://127.0.0.1:5173',
      null: null,
      number: null,
      path: null,
      port: null,
      slash: null,
      upper: null,
    });
    expect(cache.get('honest')).not.toHaveProperty('runtime');
  });

  it('refuses an `unchanged` it did not ask for', async () => {
    const cache = new CatalogCache();
    const { query } = scripted([{ schema, revision: 'r1', unchanged: true }]);
    await expect(cache.refresh(query)).rejects.toMatchObject({ code: 'tool_response_invalid' });
  });

  it('keeps unchanged definitions across listings, and legacy argument encoding', async () => {
    const cache = new CatalogCache();
    const legacy = { ...definition('old'), argumentEncoding: 'flattened-string' };
    const { query, asked } = scripted([
      index('r1', [entry('a'), entry('old')]),
      definitions('r1', [definition('a'), legacy]),
      index('r2', [entry('a'), entry('b'), entry('old')]),
      definitions('r2', [definition('b')]),
    ]);
    await cache.refresh(query);
    await cache.refresh(query);
    expect(asked[2]).toMatchObject({ ifRevision: 'r1', ifAvailabilityRevision: 'a-r1' });
    expect(asked[3]).toEqual({ detail: 'definitions', ids: ['b'], limit: 1000 });
    expect(cache.get('a')?.argumentsSchema).toEqual(definition('a').argumentsSchema);
    expect(cache.get('old')?.argumentEncoding).toBe('flattened-string');
  });

  it('notes a cut index through totalCount', async () => {
    const cache = new CatalogCache();
    const listing = { ...index('r1', [entry('a')]), totalCount: 1500 } as CatalogPayload;
    const { query } = scripted([listing, definitions('r1', [definition('a')])]);
    await cache.refresh(query);
    expect(cache.totalCount).toBe(1500);
    expect(cache.list()).toHaveLength(1);
  });
});
