import type { Tool, Tools } from '@toolwire/polyfill';
import * as polyfill from '@toolwire/polyfill';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { PageCatalog } from '../src/page-catalog.js';

// Issue 16, item 2: the catalog copies schemas that name no web type, and loads the lowering
// (a 17 KB chunk) only for the first schema that needs expanding.
vi.mock('@toolwire/polyfill', { spy: true });

beforeEach(() => {
  vi.mocked(polyfill.loadLowering).mockClear();
});

function fakeTools(schemas: object[]): Tools {
  const handles = schemas.map(
    (inputSchema, i) =>
      ({
        name: `t${i}`,
        title: '',
        description: `tool ${i}`,
        origin: 'https://app.example',
        inputSchema,
        outputSchema: undefined,
      }) as unknown as Tool,
  );
  return {
    getTools: async () => handles,
    sourceOf: () => ({
      kind: 'registry',
      entry: { policy: 'read', keywords: [], prerequisites: [] },
    }),
    callTool: async () => ({}),
  } as unknown as Tools;
}

async function listed(schemas: object[]) {
  const catalog = new PageCatalog({
    tools: fakeTools(schemas),
    reserved: new Set(),
    onRead: () => {},
  });
  await catalog.refresh();
  return catalog.tools.map((tool) => tool.definition.argumentsSchema);
}

describe('PageCatalog', () => {
  it('lists plain schemas as they are, without loading the lowering', async () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
    const [copy] = await listed([schema]);
    expect(copy).toEqual(schema);
    expect(copy).not.toBe(schema);
    expect(polyfill.loadLowering).not.toHaveBeenCalled();
  });

  it('loads the lowering once a schema names a web type, and expands it', async () => {
    const schemas = await listed([
      { type: 'object', properties: { q: { type: 'string' } } },
      { type: 'object', properties: { when: { webType: 'Date' } } },
    ]);
    expect(polyfill.loadLowering).toHaveBeenCalledTimes(1);
    expect(schemas[1]).toEqual({
      type: 'object',
      properties: { when: { type: 'string', format: 'date-time' } },
    });
  });
});
