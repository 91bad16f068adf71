import type { Tool, Tools } from '@toolwire/polyfill';
import type { BridgeTool } from '@toolwire/protocol';
import { createToolBridge, decodePayload } from '@toolwire/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fairShares, MAX_WIRE_TOOLS, readPageTools } from '../src/page-tools.js';
import { pageValidator } from '../src/validator.js';

// The page's wire listing (issue 13, part 8; issue 16 part 7): every tool carries its origin and
// every tool is listed; the first listing page holds the top document's own tools, and frames'
// tools share what is left of it, fairly by origin (listingRank orders the later pages).
// The Tools object is a stand-in holding handles the way the polyfill's getTools() returns
// them (frames cannot be built outside a browser; e2e/host.e2e.ts runs the real thing).

const APP = 'https://app.example';
const WIDGET = 'https://widget.example';
const SMALL = 'https://small.example';

interface Spec {
  name: string;
  origin: string;
  local: boolean;
}

function fakeTools(specs: Spec[]): Tools {
  const handles = specs.map(
    (spec) =>
      ({
        name: spec.name,
        title: '',
        description: `${spec.name} tool`,
        origin: spec.origin,
        inputSchema: undefined,
        outputSchema: undefined,
      }) as unknown as Tool,
  );
  const local = new Map(handles.map((handle, i) => [handle, specs[i]?.local === true]));
  return {
    getTools: async () => handles,
    // Where each handle lives, as wireInfo reads it: the page's registry, or another frame.
    sourceOf: (handle: Tool) =>
      local.get(handle) === true
        ? { kind: 'registry', entry: { policy: 'read', keywords: [], prerequisites: [] } }
        : {
            kind: 'frame',
            descriptor: { policy: 'read', keywords: [], prerequisites: [], runtime: undefined },
          },
    callTool: async () => ({}),
  } as unknown as Tools;
}

const many = (prefix: string, origin: string, count: number, local = false): Spec[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `${prefix}.t${String(i).padStart(4, '0')}`,
    origin,
    local,
  }));

const BUILTINS = new Set(['ui.get_visual_tree', 'ui.query_nodes', 'ui.perform_action']);

function read(specs: Spec[], tools = fakeTools(specs)) {
  return readPageTools({
    tools,
    origin: APP,
    expandSchema: (schema) => schema,
    reserved: BUILTINS,
  });
}

const ids = (list: BridgeTool[]) => list.map((tool) => tool.definition.id);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('readPageTools', () => {
  it("gives every tool its document's origin; the page's own keep the plain names", async () => {
    const list = await read([
      { name: 'calendar.events', origin: WIDGET, local: false },
      { name: 'cart.add', origin: APP, local: true },
      { name: 'cart.add', origin: WIDGET, local: false },
      { name: 'cart.add', origin: APP, local: false },
    ]);
    expect(list.map((tool) => [tool.definition.id, tool.definition.origin])).toEqual([
      ['cart.add', APP],
      // A same-origin frame's tool before another origin's, for the next free name.
      ['cart.add@app.example', APP],
      ['calendar.events', WIDGET],
      ['cart.add@widget.example', WIDGET],
    ]);
  });

  it('lists everything, without a warning, while it fits', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const specs = [...many('app', APP, 10, true), ...many('widget', WIDGET, 987)];
    expect(specs.length + BUILTINS.size).toBe(MAX_WIRE_TOOLS);
    expect(await read(specs)).toHaveLength(997);
    expect(warn).not.toHaveBeenCalled();
  });

  it("a widget with 1,000 tools cannot crowd out the page's own from the first page; nothing is dropped", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const specs = [...many('widget', WIDGET, 1000), ...many('app', APP, 5, true)];
    const list = await read(specs);
    expect(list).toHaveLength(1005);
    const first = list.filter((tool) => (tool.listingRank ?? 0) === 0);
    expect(first).toHaveLength(MAX_WIRE_TOOLS - BUILTINS.size);
    expect(ids(first).filter((id) => id.startsWith('app.'))).toHaveLength(5);
    // The widget's first tools in listing order; its last 8 come on the next page.
    expect(
      ids(first)
        .filter((id) => id.startsWith('widget.'))
        .at(-1),
    ).toBe('widget.t0991');
    expect(list.filter((tool) => tool.listingRank === 1).map((tool) => tool.definition.id)).toEqual(
      Array.from({ length: 8 }, (_, i) => `widget.t0${992 + i}`),
    );
    expect(warn).not.toHaveBeenCalled();
  });

  it('frames share the first page fairly: a small widget keeps all its tools beside a big one', async () => {
    const list = await read([
      ...many('widget', WIDGET, 1000),
      ...many('small', SMALL, 12),
      ...many('app', APP, 100, true),
    ]);
    const first = ids(list.filter((tool) => (tool.listingRank ?? 0) === 0));
    const count = (prefix: string) => first.filter((id) => id.startsWith(prefix)).length;
    expect([count('app.'), count('small.'), count('widget.')]).toEqual([100, 12, 885]);
    expect(list).toHaveLength(1112);
  });

  it('later pages are split fairly too, a page at a time', async () => {
    const list = await read([
      ...many('widget', WIDGET, 2500),
      ...many('other', SMALL, 2500),
      ...many('app', APP, 3000, true),
    ]);
    const rankOf = (prefix: string, rank: number) =>
      list.filter((t) => t.definition.id.startsWith(prefix) && (t.listingRank ?? 0) === rank)
        .length;
    // The page's own 3,000 and the built-ins fill page 0; then 500 of each widget per page.
    expect([rankOf('app.', 0), rankOf('widget.', 0), rankOf('other.', 0)]).toEqual([3000, 0, 0]);
    for (const rank of [1, 2, 3, 4, 5]) {
      expect([rankOf('widget.', rank), rankOf('other.', rank)]).toEqual([500, 500]);
    }
  });

  it('the whole catalog, built-ins included, lists through the bridge: first page as before, then the rest', async () => {
    const page = await read([...many('widget', WIDGET, 1000), ...many('app', APP, 5, true)]);
    const builtins: BridgeTool[] = [...BUILTINS].map((id) => ({
      definition: {
        id,
        name: id,
        description: '',
        category: 'ui',
        policy: 'read',
        argumentsSchema: { type: 'object' },
        resultSchema: {},
      },
      execute: () => ({}),
    }));
    const bridge = createToolBridge({
      validator: pageValidator(),
      tools: () => [...builtins, ...page],
      guard: 'read-only',
    });
    type Listing = {
      tools: { id: string; origin?: string }[];
      totalCount: number;
      nextCursor?: string;
    };
    const ask = async (payload: object) =>
      decodePayload(
        (await bridge.handle({ type: 'tool.query', id: 'q', payload }))?.envelope.payload,
      ) as Listing;
    // A host without paging: the first 1,000, as when the listing was cut there.
    const payload = await ask({ detail: 'index', limit: 1000 });
    expect(payload.totalCount).toBe(1008);
    expect(payload.nextCursor).toBeUndefined();
    const listed = payload.tools.map((tool) => tool.id);
    expect(listed).toHaveLength(1000);
    for (const id of [...BUILTINS, 'app.t0000', 'app.t0004']) expect(listed).toContain(id);
    expect(listed).not.toContain('widget.t0992');
    expect(payload.tools.find((tool) => tool.id === 'app.t0000')?.origin).toBe(APP);
    expect(payload.tools.find((tool) => tool.id === 'widget.t0000')?.origin).toBe(WIDGET);
    // A paging host gets the rest.
    const first = await ask({ detail: 'index', cursor: '' });
    expect(first.tools.map((tool) => tool.id)).toEqual(listed);
    const rest = await ask({ detail: 'index', cursor: first.nextCursor });
    expect(rest.tools.map((tool) => tool.id)).toEqual(
      Array.from({ length: 8 }, (_, i) => `widget.t0${992 + i}`),
    );
    expect(rest.nextCursor).toBeUndefined();
  });
});

describe('fairShares', () => {
  it('gives each origin an equal share and passes on what one does not use', () => {
    const shares = (counts: Record<string, number>, room: number) =>
      Object.fromEntries(fairShares(new Map(Object.entries(counts)), room));
    expect(shares({ a: 1000, b: 10, c: 500 }, 600)).toEqual({ a: 295, b: 10, c: 295 });
    expect(shares({ a: 3, b: 3 }, 100)).toEqual({ a: 3, b: 3 });
    expect(shares({ a: 5, b: 5, c: 5 }, 2)).toEqual({ a: 1, b: 1, c: 0 });
    expect(shares({ a: 5 }, 0)).toEqual({ a: 0 });
  });
});
