/**
 * Listings across the frame tree. Coalescing (the generic layer, docs/browser-api.md's table): a frame's
 * listing is its own tools plus those of children whose embedding grants `tools`, recursively;
 * it stops at the first refusal, so a granted grandchild under a refused child coalesces into
 * the child only. document.modelContext follows permissions-policy inheritance instead: a frame
 * is allowed only if every embedding above it grants `tools`, and a frame not allowed is
 * skipped. Direct reads (`of(frame)`) go through any frame, granted or not, subject to exposure.
 */
import type { RegistryEntry } from '../registry.js';
import { ToolRegistry } from '../registry.js';
import type { NodeContext } from './context.js';
import { DISCOVERY_MS } from './context.js';
import type { FrameLink } from './link.js';
import type { FrameRequest, ListAnswer, ToolDescriptor } from './messages.js';
import { isRecord } from './messages.js';
import { listable, MAX_TOOLS_PER_FRAME, sanitize } from './sanitize.js';

type ListRequest = Extract<FrameRequest, { op: 'list' }>;
type TreeListRequest = Extract<FrameRequest, { op: 'tree-list' }>;

/**
 * May `caller` see this document's tool, asked through the origins in `via`? Exposed to the
 * caller and to every origin on the way (what passes through a frame is limited to what that
 * frame may see); agent-exposed when asked for agents; and for document.modelContext
 * (`fromOrigins` not null), the double opt-in.
 */
export function visible(
  entry: RegistryEntry,
  caller: string,
  via: string[],
  agentOnly: boolean,
  fromOrigins: string[] | null,
): boolean {
  if (!ToolRegistry.isExposedTo(entry, caller)) return false;
  for (const origin of via) if (!ToolRegistry.isExposedTo(entry, origin)) return false;
  if (agentOnly && !entry.agentExposed) return false;
  if (fromOrigins !== null) {
    if (!entry.agentExposed) return false;
    if (entry.origin !== caller && !fromOrigins.includes(entry.origin)) return false;
  }
  return true;
}

/** One listing as this frame last built it: what it was built from, its token, its tools. */
interface Answer {
  stamp: string;
  token: number;
  tools: ToolDescriptor[];
}

/** What a child last answered for one listing, sanitized and checked as this frame would list. */
interface FromChild {
  /** The child's token for it (0: none, never cached). */
  token: number;
  /** This frame's own count, new whenever it accepted new descriptors (a child cannot fake it). */
  version: number;
  /** The child's index among `window.frames` when `tools` were routed. */
  index: number;
  /** Routes relative to the child. */
  raw: ToolDescriptor[];
  /** Routes from this frame. */
  tools: ToolDescriptor[];
}

/** Listings held per frame and per child (distinct callers, via, agentOnly and fromOrigins). */
const MAX_LISTINGS = 16;

const NOTHING: FromChild = { token: 0, version: 0, index: -1, raw: [], tools: [] };

export class Listing {
  #node: NodeContext;
  /** Frames already warned about the cap (route|origin), so a listing loop warns once. */
  #warnedCaps = new Set<string>();
  /** The subtree cache: this frame's last answer per listing key. */
  #answers = new Map<string, Answer>();
  /** Each child's last answer per listing key. A link is one child document: a new one starts empty. */
  #fromChildren = new WeakMap<FrameLink, Map<string, FromChild>>();
  #linkIds = new WeakMap<FrameLink, number>();
  #nextId = 1;

  constructor(node: NodeContext) {
    this.#node = node;
  }

  /**
   * This frame's visible tools plus those that coalesce up from granted children. The same
   * array comes back for as long as nothing it was built from changed (callers must not mutate it).
   */
  async listSubtree(
    caller: string,
    via: string[],
    agentOnly: boolean,
    fromOrigins: string[] | null,
  ): Promise<ToolDescriptor[]> {
    return (await this.#answer(caller, via, agentOnly, fromOrigins)).tools;
  }

  /**
   * The subtree cache (docs/browser-api.md "Frames: the subtree cache"). Every listing still asks
   * each granted child, but with the token of the answer held for it; a child whose subtree did
   * not change answers with its token alone, and nothing is cloned, sanitized or described
   * again. The stamp is what this frame's answer was built from: its own visible registrations
   * (and their availability now), and each child's link, index and accepted version.
   */
  async #answer(
    caller: string,
    via: string[],
    agentOnly: boolean,
    fromOrigins: string[] | null,
  ): Promise<Answer> {
    const node = this.#node;
    const spec = fromOrigins !== null;
    const key = JSON.stringify([caller, via, agentOnly, fromOrigins]);
    // The spec skips documents that may not use tools, own tools and all.
    if (spec && node.gate.allowed !== true) return this.#remember(key, 'denied', () => []);
    const entries: RegistryEntry[] = [];
    const runtimes: (Record<string, unknown> | null)[] = [];
    let stamp = '';
    for (const entry of node.deps.registry.values()) {
      if (!visible(entry, caller, via, agentOnly, fromOrigins)) continue;
      const runtime = runtimeOf(entry);
      entries.push(entry);
      runtimes.push(runtime);
      stamp += runtime === null ? `${entry.key},` : `${entry.key}:${stampOf(runtime)},`;
    }
    const children = node.links.children;
    const links = [...children.values()].filter(
      (link) => (spec ? link.allowed : link.grant) && !link.closed,
    );
    const lists =
      links.length === 0
        ? []
        : await Promise.all(
            links.map((link) => this.#askChild(link, key, caller, via, agentOnly, fromOrigins)),
          );
    for (let i = 0; i < lists.length; i++) {
      const list = lists[i] as FromChild;
      stamp += `|${this.#linkId(links[i] as FrameLink)}@${list.index}:${list.version}`;
    }
    return this.#remember(key, stamp, () =>
      entries
        .map((entry, i) => describe(entry, runtimes[i] ?? null))
        .concat(...lists.map((list) => list.tools)),
    );
  }

  #remember(key: string, stamp: string, build: () => ToolDescriptor[]): Answer {
    const held = this.#answers.get(key);
    if (held && held.stamp === stamp) return held;
    const answer: Answer = { stamp, token: this.#nextId++, tools: build() };
    if (!held && this.#answers.size >= MAX_LISTINGS) this.#answers.clear();
    this.#answers.set(key, answer);
    return answer;
  }

  #linkId(link: FrameLink): number {
    let id = this.#linkIds.get(link);
    if (id === undefined) {
      id = this.#nextId++;
      this.#linkIds.set(link, id);
    }
    return id;
  }

  /** One child's subtree for a listing: asked with the token held, its answer checked. */
  async #askChild(
    link: FrameLink,
    key: string,
    caller: string,
    via: string[],
    agentOnly: boolean,
    fromOrigins: string[] | null,
  ): Promise<FromChild> {
    const index = this.#node.links.indexOf(link);
    if (index < 0) return NOTHING;
    let held = this.#fromChildren.get(link);
    if (!held) {
      held = new Map();
      this.#fromChildren.set(link, held);
    }
    const cached = held.get(key);
    let found: unknown;
    try {
      found = await link.request(
        { op: 'list', route: [], caller, via, agentOnly, fromOrigins, known: cached?.token ?? 0 },
        DISCOVERY_MS,
      );
    } catch {
      held.delete(key);
      return NOTHING;
    }
    const answer = isRecord(found) ? found : undefined;
    const token = answer && Number.isSafeInteger(answer.token) ? (answer.token as number) : 0;
    if (cached && token === cached.token && token > 0 && answer?.tools === undefined) {
      // Unchanged: what this frame already checked, rerouted if the child moved among frames.
      if (cached.index === index) return cached;
      const moved = { ...cached, index, tools: prefix(cached.raw, index) };
      held.set(key, moved);
      return moved;
    }
    // An older frame answers with a bare array, never cached; a token without tools that
    // names nothing held is nothing.
    const value = Array.isArray(found) ? found : answer?.tools;
    const raw = this.#sanitize(value, link.origin, link.window).filter((tool) =>
      listable(tool, caller, agentOnly, fromOrigins),
    );
    const fresh: FromChild = {
      token: Array.isArray(found) || answer?.tools === undefined ? 0 : token,
      version: this.#nextId++,
      index,
      raw,
      tools: prefix(raw, index),
    };
    if (fresh.token > 0) {
      if (!held.has(key) && held.size >= MAX_LISTINGS) held.clear();
      held.set(key, fresh);
    } else held.delete(key);
    return fresh;
  }

  /** A direct read of the subtree at `route` (tools.of(frame)): no grant needed on the way. */
  async listAt(route: number[], agentOnly: boolean): Promise<ToolDescriptor[]> {
    const node = this.#node;
    if (route.length === 0) return this.listSubtree(node.origin, [], agentOnly, null);
    const [first, ...rest] = route as [number, ...number[]];
    const win = node.window.frames[first];
    const link = win ? await node.links.whenChild(win, DISCOVERY_MS) : undefined;
    if (!link) return [];
    try {
      const found = (await link.request(
        { op: 'list', route: rest, caller: node.origin, via: [], agentOnly, fromOrigins: null },
        DISCOVERY_MS,
      )) as ToolDescriptor[];
      return this.#sanitize(found, link.origin, win)
        .filter((tool) => listable(tool, node.origin, agentOnly, null))
        .map((tool) => ({ ...tool, route: [first, ...tool.route] }));
    } catch {
      return [];
    }
  }

  /** document.modelContext.getTools() across the whole tree: asked of the top, routes from it. */
  async treeList(fromOrigins: string[]): Promise<ToolDescriptor[]> {
    const node = this.#node;
    const parent = node.links.parent;
    if (!parent) return this.listSubtree(node.origin, [], true, fromOrigins);
    try {
      const found = (await parent.request(
        { op: 'tree-list', caller: node.origin, via: [], fromOrigins },
        DISCOVERY_MS * 2,
      )) as ToolDescriptor[];
      // Routes from the top: their origins were checked hop by hop on the way up.
      return this.#sanitize(found, undefined, node.window.top ?? undefined).filter((tool) =>
        listable(tool, node.origin, true, fromOrigins),
      );
    } catch {
      return [];
    }
  }

  /** A `list` from the parent (lists come down only): here, or relayed down its route. */
  async answerList(request: ListRequest, via: string[]): Promise<ToolDescriptor[] | ListAnswer> {
    const { known, ...asked } = request;
    if (request.route.length === 0) {
      const answer = await this.#answer(
        request.caller,
        via,
        request.agentOnly,
        request.fromOrigins,
      );
      // An older parent sends no token: it gets the bare array it knows.
      if (known === undefined) return answer.tools;
      return known === answer.token
        ? { token: answer.token }
        : { token: answer.token, tools: answer.tools };
    }
    // Direct reads down a route (tools.of) are not cached.
    if (known !== undefined) return { token: 0, tools: [] };
    const [first, ...rest] = request.route as [number, ...number[]];
    const child = this.#node.links.childAt(first);
    if (!child) return [];
    const found = (await child.request(
      { ...asked, route: rest, via },
      DISCOVERY_MS,
    )) as ToolDescriptor[];
    return this.#sanitize(found, child.origin, child.window).map((tool) => ({
      ...tool,
      route: [first, ...tool.route],
    }));
  }

  /** A `tree-list` from a child: passed up to the top, which lists the whole tree. */
  async answerTreeList(request: TreeListRequest, via: string[], from: FrameLink): Promise<unknown> {
    const node = this.#node;
    // Both ends must be allowed: this frame, and the child by its own embedding.
    if (node.gate.allowed !== true || !from.allowed) return [];
    const parent = node.links.parent;
    if (parent) return parent.request({ ...request, via }, DISCOVERY_MS * 2);
    return this.listSubtree(request.caller, via, true, request.fromOrigins);
  }

  /** sanitize() with this frame's origin, warning once per frame that is over the cap. */
  #sanitize(
    value: unknown,
    peerOrigin: string | undefined,
    base: Window | undefined,
  ): ToolDescriptor[] {
    return sanitize(
      value,
      { peerOrigin, ownOrigin: this.#node.origin, base },
      (origin, route, listed) => {
        const key = `${route.join('/')}|${origin}`;
        if (this.#warnedCaps.has(key) || this.#warnedCaps.size >= 256) return;
        this.#warnedCaps.add(key);
        console.warn(
          `toolwire: the frame at ${origin} lists ${listed} tools; only the first ${MAX_TOOLS_PER_FRAME} are used (the cap on tools per frame).`,
        );
      },
    );
  }
}

function prefix(tools: ToolDescriptor[], index: number): ToolDescriptor[] {
  return tools.map((tool) => ({ ...tool, route: [index, ...tool.route] }));
}

/** An availability record in a stamp; one that cannot be written makes the stamp unique. */
let unstampable = 0;
function stampOf(runtime: Record<string, unknown>): string {
  try {
    return JSON.stringify(runtime);
  } catch {
    return `?${unstampable++}`;
  }
}

/** This document's tool as it is reported to another frame. */
function describe(entry: RegistryEntry, runtime: Record<string, unknown> | null): ToolDescriptor {
  return {
    name: entry.name,
    title: entry.title ?? '',
    description: entry.description,
    inputSchema: entry.inputSchema,
    outputSchema: entry.outputSchema,
    annotations: entry.annotations
      ? { ...(entry.annotations as Record<string, boolean>) }
      : undefined,
    origin: entry.origin,
    agentExposed: entry.agentExposed,
    policy: entry.policy,
    category: entry.category,
    keywords: [...entry.keywords],
    prerequisites: [...entry.prerequisites],
    runtime,
    key: entry.key,
    route: [],
  };
}

/** An entry's availability() now, as a plain record; null when available (a throw is unavailable). */
function runtimeOf(entry: RegistryEntry): Record<string, unknown> | null {
  if (!entry.availability) return null;
  try {
    const result = entry.availability();
    return result === true || result === undefined || result === null ? null : { ...result };
  } catch (error) {
    return {
      available: false,
      code: 'tool_unavailable',
      reason: `availability check failed: ${String((error as Error)?.message ?? error)}`,
    };
  }
}
