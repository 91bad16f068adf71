import { describe, expect, it } from 'vitest';
import { windowAtRoute } from '../src/frames/route.js';
import { MAX_TOOLS_PER_FRAME, sanitize } from '../src/frames/sanitize.js';
import { isCanonicalOrigin } from '../src/lib/origins.js';

// What a parent frame keeps of a child's listing (issue 13, part 8). The windows are stand-ins
// that behave like cross-origin WindowProxies: `frames`, `length` and in-range indices answer;
// anything else throws SecurityError, as Chromium's does for an index past the end.

const TOP = 'https://app.example';
const CHILD = 'https://widget.example';
const OTHER = 'https://other.example';

function crossOriginWindow(children: Window[] = []): Window {
  const target = {} as Record<PropertyKey, unknown>;
  const proxy: Window = new Proxy(target, {
    get(_target, key) {
      if (key === 'frames') return proxy;
      if (key === 'length') return children.length;
      const index = typeof key === 'string' && /^\d+$/.test(key) ? Number(key) : -1;
      if (index >= 0 && index < children.length) return children[index];
      throw new DOMException(`Blocked a frame from accessing "${String(key)}".`, 'SecurityError');
    },
  }) as unknown as Window;
  return proxy;
}

function descriptor(name: string, origin: string, route: number[] = [], extra = {}) {
  return {
    name,
    title: '',
    description: `${name} tool`,
    inputSchema: undefined,
    outputSchema: undefined,
    annotations: undefined,
    origin,
    agentExposed: true,
    policy: 'read',
    category: undefined,
    keywords: [],
    prerequisites: [],
    runtime: null,
    key: 1,
    route,
    ...extra,
  };
}

/** A child at CHILD with one grandchild (frames[0]) that has no frames of its own. */
const child = crossOriginWindow([crossOriginWindow()]);
const fromChild = { peerOrigin: CHILD, ownOrigin: TOP, base: child };
const pairs = (list: { origin: string; name: string; route: number[] }[]) =>
  list.map((tool) => `${tool.origin} ${tool.name} [${tool.route.join(',')}]`);

describe('canonical origins', () => {
  it('accepts only the serialized form', () => {
    expect(isCanonicalOrigin('https://a.example')).toBe(true);
    expect(isCanonicalOrigin('http://127.0.0.1:5173')).toBe(true);
    for (const form of [
      'HTTPS://a.example',
      'https://A.example',
      'https://a.example/',
      'https://a.example:443',
      'https://a.example/path',
      ' https://a.example',
      'null',
      '*',
      '',
    ])
      expect(isCanonicalOrigin(form), form).toBe(false);
  });
});

describe("a child's listing, as its parent keeps it", () => {
  it('keeps honest tools: its own, and its subtree under routes that exist', () => {
    const kept = sanitize(
      [
        descriptor('own', CHILD),
        descriptor('deeper', CHILD, [0]),
        descriptor('deeper.other', OTHER, [0]),
      ],
      fromChild,
    );
    expect(pairs(kept)).toEqual([
      `${CHILD} own []`,
      `${CHILD} deeper [0]`,
      `${OTHER} deeper.other [0]`,
    ]);
  });

  it('drops every origin that is not in canonical form, wherever it is claimed', () => {
    const upper = (origin: string) => origin.replace('https', 'HTTPS');
    const kept = sanitize(
      [
        descriptor('honest', CHILD),
        descriptor('own.upper', upper(CHILD)),
        descriptor('own.slash', `${CHILD}/`),
        // The check that keeps a subtree from passing as the parent's own compared strings:
        // these forms of the parent's origin slipped past it.
        descriptor('top.upper', upper(TOP), [0]),
        descriptor('top.slash', `${TOP}/`, [0]),
        descriptor('top.port', `${TOP}:443`, [0]),
        descriptor('top.canonical', TOP, [0]),
        descriptor('other.upper', upper(OTHER), [0]),
        descriptor('null', 'null', [0]),
      ],
      fromChild,
    );
    expect(pairs(kept)).toEqual([`${CHILD} honest []`]);
  });

  it('drops a route that leads to no frame, without touching what a cross-origin window forbids', () => {
    const kept = sanitize(
      [
        descriptor('own', CHILD),
        descriptor('deeper', CHILD, [0]),
        descriptor('no.such.child', CHILD, [1]),
        descriptor('no.such.grandchild', CHILD, [0, 0]),
        descriptor('far', CHILD, [9999]),
        descriptor('negative', CHILD, [-1]),
        descriptor('fraction', CHILD, [0.5]),
        descriptor('too.deep', CHILD, Array(40).fill(0)),
      ],
      fromChild,
    );
    expect(pairs(kept)).toEqual([`${CHILD} own []`, `${CHILD} deeper [0]`]);
    // The walk itself: in range answers, out of range is undefined, never a SecurityError.
    expect(windowAtRoute(child, [0])).toBeDefined();
    expect(windowAtRoute(child, [0, 0])).toBeUndefined();
    expect(windowAtRoute(child, [3])).toBeUndefined();
    expect(() => (child.frames as unknown as Window[])[3]).toThrow('Blocked');
  });

  it('keeps at most MAX_TOOLS_PER_FRAME tools per frame and names each frame over the cap once', () => {
    const many = (origin: string, route: number[], count: number) =>
      Array.from({ length: count }, (_, i) =>
        descriptor(`t${String(i).padStart(4, '0')}`, origin, route),
      );
    const capped: [string, number[], number][] = [];
    // Honest sizes first: exactly the cap is kept whole, and nothing is reported.
    const atCap = sanitize(many(CHILD, [], MAX_TOOLS_PER_FRAME), fromChild, (...args) =>
      capped.push(args),
    );
    expect(atCap).toHaveLength(MAX_TOOLS_PER_FRAME);
    expect(capped).toEqual([]);
    const kept = sanitize(
      [...many(CHILD, [], 300), ...many(OTHER, [0], 400), descriptor('last', CHILD)],
      fromChild,
      (...args) => capped.push(args),
    );
    expect(kept.filter((tool) => tool.route.length === 0)).toHaveLength(MAX_TOOLS_PER_FRAME);
    expect(kept.filter((tool) => tool.route.length === 1)).toHaveLength(MAX_TOOLS_PER_FRAME);
    // The first ones listed are kept, in order.
    expect(kept[0]?.name).toBe('t0000');
    expect(kept.map((tool) => tool.name)).not.toContain('last');
    expect(capped).toEqual([
      [CHILD, [], 301],
      [OTHER, [0], 400],
    ]);
  });

  it('routes from the top (a descendant reading the tree) are checked from the top', () => {
    const top = crossOriginWindow([child]);
    const kept = sanitize(
      [descriptor('a', CHILD, [0]), descriptor('b', CHILD, [0, 0]), descriptor('c', CHILD, [1])],
      { peerOrigin: undefined, ownOrigin: CHILD, base: top },
    );
    expect(pairs(kept)).toEqual([`${CHILD} a [0]`, `${CHILD} b [0,0]`]);
    expect(sanitize([descriptor('a', CHILD, [0])], { ...fromChild, base: undefined })).toEqual([]);
  });
});
