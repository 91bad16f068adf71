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
import type { FrameRequest, ToolDescriptor } from './messages.js';
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

export class Listing {
  #node: NodeContext;
  /** Frames already warned about the cap (route|origin), so a listing loop warns once. */
  #warnedCaps = new Set<string>();

  constructor(node: NodeContext) {
    this.#node = node;
  }

  /** This frame's visible tools plus those that coalesce up from granted children. */
  async listSubtree(
    caller: string,
    via: string[],
    agentOnly: boolean,
    fromOrigins: string[] | null,
  ): Promise<ToolDescriptor[]> {
    const node = this.#node;
    const spec = fromOrigins !== null;
    // The spec skips documents that may not use tools, own tools and all.
    if (spec && node.gate.allowed !== true) return [];
    const own = [...node.deps.registry.values()]
      .filter((entry) => visible(entry, caller, via, agentOnly, fromOrigins))
      .map(describe);
    const children = node.links.children;
    if (children.size === 0) return own;
    const lists = await Promise.all(
      [...children.values()]
        .filter((link) => (spec ? link.allowed : link.grant) && !link.closed)
        .map(async (link) => {
          const index = node.links.indexOf(link);
          if (index < 0) return [];
          try {
            const found = (await link.request(
              { op: 'list', route: [], caller, via, agentOnly, fromOrigins },
              DISCOVERY_MS,
            )) as ToolDescriptor[];
            return this.#sanitize(found, link.origin, link.window)
              .filter((tool) => listable(tool, caller, agentOnly, fromOrigins))
              .map((tool) => ({ ...tool, route: [index, ...tool.route] }));
          } catch {
            return [];
          }
        }),
    );
    return own.concat(...lists);
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
  async answerList(request: ListRequest, via: string[]): Promise<ToolDescriptor[]> {
    if (request.route.length === 0)
      return this.listSubtree(request.caller, via, request.agentOnly, request.fromOrigins);
    const [first, ...rest] = request.route as [number, ...number[]];
    const child = this.#node.links.childAt(first);
    if (!child) return [];
    const found = (await child.request(
      { ...request, route: rest, via },
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

/** This document's tool as it is reported to another frame. */
function describe(entry: RegistryEntry): ToolDescriptor {
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
    runtime: runtimeOf(entry),
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
