/**
 * The frames bridge (issue 5): one FrameNode per document links it to its parent and its
 * children over MessageChannels, so the registry spans the frame tree.
 *
 * 1. Handshake: a child says `hello` to `window.parent`; the parent answers only windows that
 *    are its own iframes, decides whether the embedding grants `tools` (allow.ts), and hands
 *    over a port with its `welcome`, posted to the child's exact origin. The child accepts one
 *    welcome, from `window.parent`, from the origin `location.ancestorOrigins` names. After that
 *    nothing travels by window.postMessage.
 * 2. Origins are attested, not claimed: every request gets the origin of the link it arrived on
 *    appended to `via`, and a tool is listed or run only when it is exposed to the caller and to
 *    every origin in `via` (what passes through a frame is limited to what that frame may see).
 * 3. Coalescing (the generic layer, API.md's table): a frame's listing is its own tools plus
 *    those of children whose embedding grants `tools`, recursively; it stops at the first
 *    refusal, so a granted grandchild under a refused child coalesces into the child only.
 *    document.modelContext follows permissions-policy inheritance instead: a frame is allowed
 *    only if every embedding above it grants `tools`, and a frame not allowed is skipped.
 *    Direct reads (`of(frame)`) go through any frame, granted or not, subject to exposure.
 * 4. Deadlines bound the handshake and discovery, never tool execution. Aborts follow a call's
 *    route; a frame that leaves (pagehide -> bye) fails the calls routed through it and cancels
 *    the calls it made.
 */
import { domException } from '../lib/dom.js';
import { isCanonicalOrigin, trustworthyOrigin } from '../lib/origins.js';
import type { RegistryEntry } from '../registry.js';
import { ToolRegistry } from '../registry.js';
import type { Tool, ToolCaller, ToolFields } from '../tool.js';
import { allowGrantsTools } from './allow.js';
import type { ErrorFactories } from './errors.js';
import { deserializeError } from './errors.js';
import { FrameLink } from './link.js';
import type { CallRequest, FrameRequest, ToolDescriptor } from './messages.js';
import { FRAMES_TAG } from './messages.js';
import { MAX_ROUTE_DEPTH, routeFrom, windowAtRoute } from './route.js';

export const DISCOVERY_MS = 1500;

/**
 * The most tools one frame contributes to its ancestors' listings; the rest are dropped, with one
 * console warning per frame. A widget needs tens; 256 lets a page and three full frames share one
 * wire listing (1,000 tools), and bounds what one frame makes every ancestor clone and check.
 */
export const MAX_TOOLS_PER_FRAME = 256;

export interface FrameNodeDeps {
  window: Window & typeof globalThis;
  registry: ToolRegistry;
  /** The document's own permissions-policy answer when the browser knows `tools`, else undefined. */
  ownPolicy: boolean | undefined;
  /** Runs a local tool for a remote caller through the generic layer. */
  runGeneric(
    entry: RegistryEntry,
    input: unknown,
    encoding: 'structured' | 'json',
    signal: AbortSignal,
    caller: string,
  ): Promise<unknown>;
  /** Runs a local tool for a remote document.modelContext caller; resolves a JSON string. */
  runSpec(
    entry: RegistryEntry,
    input: unknown,
    signal: AbortSignal,
    caller: string,
  ): Promise<string>;
  /** The subtree `window.tools` sees changed. */
  toolsChanged(): void;
  /** A tool exposed to this document came or went somewhere in the tree. */
  specChanged(): void;
  /**
   * The core's own constructors: in the IIFE build this module is a separate chunk, and its
   * own copies of Tool or ToolExecutionError would make objects the core does not recognise.
   */
  makeTool(caller: ToolCaller, fields: ToolFields): Tool;
  rebuildError: ErrorFactories;
}

/** What the node needs from the always-loaded gate (gate.ts): the permission state. */
export interface GateState {
  readonly allowed: boolean | undefined;
  readonly ready: Promise<boolean>;
  decide(vouched: boolean): void;
  /** A welcome after the fallback decided: the parent's word wins unless the policy API spoke. */
  update(vouched: boolean): void;
}

interface RemoteRef {
  route: number[];
  name: string;
  key: number;
  descriptor?: ToolDescriptor;
}

interface Change {
  origin: string;
  exposedTo: string[];
  agent: boolean;
}

export class FrameNode {
  readonly origin: string;
  #deps: FrameNodeDeps;
  #win: Window & typeof globalThis;
  #parent: FrameLink | undefined;
  #children = new Map<Window, FrameLink>();
  #gate: GateState;
  /** Calls running here for remote callers: callId -> their AbortController. */
  #inbound = new Map<string, { controller: AbortController; link: FrameLink }>();
  /** Calls passing through: callId -> the link they went down. */
  #forwarded = new Map<string, FrameLink>();
  #handles = new WeakMap<Tool, RemoteRef>();
  #handleCache = new Map<string, Tool>();
  #waiters = new Map<Window, ((link: FrameLink | undefined) => void)[]>();
  /** Children whose welcome is being prepared (a flood of hellos makes one). */
  #welcoming = new Set<Window>();
  #remoteListeners = new Set<{ route: number[]; fire(): void }>();
  #pendingChanges: Change[] | null = null;
  #queued = new Set<'tools' | 'spec'>();
  /** Frames already warned about the cap (route|origin), so a listing loop warns once. */
  #warnedCaps = new Set<string>();

  constructor(deps: FrameNodeDeps, gate: GateState) {
    this.#deps = deps;
    this.#gate = gate;
    this.#win = deps.window;
    this.origin = deps.registry.origin;
    deps.registry.onChange((change) => {
      this.#broadcast(
        { origin: this.origin, exposedTo: [...change.exposedTo], agent: change.agent },
        undefined,
      );
    });
  }

  get window(): Window & typeof globalThis {
    return this.#win;
  }

  get isTop(): boolean {
    return this.#win.parent === this.#win || !this.#win.parent;
  }

  get hasChildren(): boolean {
    return this.#children.size > 0;
  }

  // ---- handshake (the gate checked source, origin and shape) ----------------------------------

  /** The parent's welcome: the port becomes our link up. One welcome per document. */
  acceptWelcome(event: MessageEvent<{ allowed: boolean }>): void {
    if (this.#parent) return;
    const port = event.ports[0] as MessagePort;
    this.#parent = new FrameLink(port, event.origin, this.#handlers, {
      grant: true,
      allowed: true,
    });
    if (this.#gate.allowed === undefined) this.#gate.decide(event.data.allowed);
    else this.#gate.update(event.data.allowed);
    // Tell the parent what we hold, so it can fire toolchange for tools registered before now.
    this.#parent.changed({ origin: this.origin, exposedTo: this.#allExposures(), agent: true });
  }

  /** A child's hello: hand it a port, with our word on whether its embedding grants `tools`. */
  async acceptHello(source: Window, iframe: HTMLIFrameElement, childOrigin: string): Promise<void> {
    // An opaque-origin child cannot be posted to by origin; it gets no port.
    if (childOrigin === 'null') return;
    // One live link per child: a child that navigates says bye first (pagehide), so a hello over
    // a live link is a replay or a flood, and rebuilding on each would be a denial of service.
    const live = this.#children.get(source);
    if (live && !live.closed) return;
    if (this.#welcoming.has(source)) return;
    this.#welcoming.add(source);
    const allowed = await this.#gate.ready;
    this.#welcoming.delete(source);
    let srcOrigin: string | undefined;
    const src = iframe.getAttribute('src');
    if (src) {
      try {
        srcOrigin = new URL(src, this.#win.location.href).origin;
      } catch {
        srcOrigin = undefined;
      }
    }
    const grant = allowGrantsTools(iframe.getAttribute('allow'), {
      childOrigin,
      parentOrigin: this.origin,
      srcOrigin,
    });
    const channel = new MessageChannel();
    const link = new FrameLink(channel.port1, childOrigin, this.#handlers, {
      window: source,
      grant,
      allowed: allowed && grant,
    });
    this.#children.set(source, link);
    source.postMessage(
      { tag: FRAMES_TAG, kind: 'welcome', allowed: allowed && grant },
      childOrigin,
      [channel.port2],
    );
    for (const waiter of this.#waiters.get(source) ?? []) waiter(link);
    this.#waiters.delete(source);
  }

  /** The document is going away (pagehide): tell every neighbour. */
  leave(): void {
    this.#parent?.bye();
    for (const link of this.#children.values()) link.bye();
  }

  // ---- routing helpers ----------------------------------------------------------------------

  #childAt(index: number): FrameLink | undefined {
    const win = this.#win.frames[index];
    return win ? this.#children.get(win) : undefined;
  }

  #indexOf(link: FrameLink): number {
    const frames = this.#win.frames;
    for (let i = 0; i < frames.length; i++) if (frames[i] === link.window) return i;
    return -1;
  }

  /** Waits (up to the discovery deadline) for a child frame's handshake. */
  #whenChild(win: Window): Promise<FrameLink | undefined> {
    const link = this.#children.get(win);
    if (link && !link.closed) return Promise.resolve(link);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(undefined), DISCOVERY_MS);
      const list = this.#waiters.get(win) ?? [];
      list.push((found) => {
        clearTimeout(timer);
        resolve(found);
      });
      this.#waiters.set(win, list);
    });
  }

  // ---- listings -------------------------------------------------------------------------------

  #visible(
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

  #describe(entry: RegistryEntry): ToolDescriptor {
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

  /** This frame's visible tools plus those that coalesce up from granted children. */
  async listSubtree(
    caller: string,
    via: string[],
    agentOnly: boolean,
    fromOrigins: string[] | null,
  ): Promise<ToolDescriptor[]> {
    const spec = fromOrigins !== null;
    // The spec skips documents that may not use tools, own tools and all.
    if (spec && this.#gate.allowed !== true) return [];
    const own = [...this.#deps.registry.values()]
      .filter((entry) => this.#visible(entry, caller, via, agentOnly, fromOrigins))
      .map((entry) => this.#describe(entry));
    if (this.#children.size === 0) return own;
    const lists = await Promise.all(
      [...this.#children.values()]
        .filter((link) => (spec ? link.allowed : link.grant) && !link.closed)
        .map(async (link) => {
          const index = this.#indexOf(link);
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
    if (route.length === 0) return this.listSubtree(this.origin, [], agentOnly, null);
    const [first, ...rest] = route as [number, ...number[]];
    const win = this.#win.frames[first];
    const link = win ? await this.#whenChild(win) : undefined;
    if (!link) return [];
    try {
      const found = (await link.request(
        { op: 'list', route: rest, caller: this.origin, via: [], agentOnly, fromOrigins: null },
        DISCOVERY_MS,
      )) as ToolDescriptor[];
      return this.#sanitize(found, link.origin, win)
        .filter((tool) => listable(tool, this.origin, agentOnly, null))
        .map((tool) => ({ ...tool, route: [first, ...tool.route] }));
    } catch {
      return [];
    }
  }

  /** document.modelContext.getTools() across the whole tree: asked of the top, routes from it. */
  async treeList(fromOrigins: string[]): Promise<ToolDescriptor[]> {
    if (!this.#parent) return this.listSubtree(this.origin, [], true, fromOrigins);
    try {
      const found = (await this.#parent.request(
        { op: 'tree-list', caller: this.origin, via: [], fromOrigins },
        DISCOVERY_MS * 2,
      )) as ToolDescriptor[];
      // Routes from the top: their origins were checked hop by hop on the way up.
      return this.#sanitize(found, undefined, this.#win.top ?? undefined).filter((tool) =>
        listable(tool, this.origin, true, fromOrigins),
      );
    } catch {
      return [];
    }
  }

  /** sanitize() with this frame's origin, warning once per frame that is over the cap. */
  #sanitize(
    value: unknown,
    peerOrigin: string | undefined,
    base: Window | undefined,
  ): ToolDescriptor[] {
    return sanitize(
      value,
      { peerOrigin, ownOrigin: this.origin, base },
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

  /** A stable Tool handle for a remote descriptor (per route, origin, name and registration). */
  handleFor(caller: ToolCaller, tool: ToolDescriptor): Tool {
    const cacheKey = `${tool.route.join('/')}|${tool.origin}|${tool.name}|${tool.key}`;
    let handle = this.#handleCache.get(cacheKey);
    if (!handle) {
      handle = this.#deps.makeTool(caller, {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: tool.annotations,
        origin: tool.origin,
        agentExposed: tool.agentExposed,
      });
      this.#handleCache.set(cacheKey, handle);
      this.#handles.set(handle, {
        route: tool.route,
        name: tool.name,
        key: tool.key,
        descriptor: tool,
      });
    } else {
      // Same registration, fresher metadata (availability moves).
      const ref = this.#handles.get(handle);
      if (ref) ref.descriptor = tool;
    }
    return handle;
  }

  /** What the owner frame reported about a remote tool when it was last listed. */
  descriptorOf(handle: Tool): ToolDescriptor | undefined {
    return this.#handles.get(handle)?.descriptor;
  }

  isRemote(handle: object): boolean {
    return this.#handles.has(handle as Tool);
  }

  // ---- calls ------------------------------------------------------------------------------------

  /** Calls a remote tool by its handle, or by name under a route (tools.of(frame).callTool). */
  callRemote(
    target: Tool | { route: number[]; name: string },
    input: unknown,
    options: { signal?: AbortSignal; encoding?: 'structured' | 'json' },
  ): Promise<unknown> {
    const ref =
      this.#handles.get(target as Tool) ?? ('route' in target ? { ...target, key: -1 } : undefined);
    if (!ref) return Promise.reject(domException('NotFoundError', 'Unknown tool handle.'));
    return this.#callDown(
      {
        op: 'call',
        route: ref.route,
        caller: this.origin,
        via: [],
        callId: newCallId(),
        name: ref.name,
        key: ref.key,
        origin: null,
        input,
        encoding: options.encoding ?? 'structured',
      },
      options.signal,
    );
  }

  /** document.modelContext.executeTool of a tool in another frame: routed through the top. */
  callSpec(
    window: Window,
    name: string,
    origin: string,
    input: unknown,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const request: Omit<CallRequest, 'op' | 'route'> = {
      caller: this.origin,
      via: [],
      callId: newCallId(),
      name,
      key: -1,
      origin,
      input,
      encoding: 'json',
    };
    if (this.isTop) {
      const route = routeFrom(this.#win, window);
      if (!route || route.length === 0)
        return Promise.reject(domException('UnknownError', 'The tool is not in this page.'));
      return this.#callDown({ ...request, op: 'call', route }, signal);
    }
    // From a descendant: the top knows every route; compute ours from the top's point of view.
    const top = this.#win.top as Window;
    let route: number[] | undefined;
    try {
      route = routeFrom(top, window);
    } catch {
      route = undefined;
    }
    if (!route || !this.#parent)
      return Promise.reject(domException('UnknownError', 'The tool is not in this page.'));
    return this.#send(this.#parent, { ...request, op: 'tree-call', route }, signal);
  }

  #callDown(request: CallRequest, signal: AbortSignal | undefined): Promise<unknown> {
    const [first, ...rest] = request.route;
    const link = first === undefined ? undefined : this.#childAt(first);
    if (!link)
      return Promise.reject(
        domException('NotFoundError', 'The frame that owned this tool is gone.'),
      );
    return this.#send(link, { ...request, route: rest }, signal);
  }

  /** Sends a call over a link; the caller's abort rejects at once and travels down the route. */
  #send(
    link: FrameLink,
    request: FrameRequest & { callId: string },
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        reject(signal?.reason);
        link.abort(request.callId);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      link.request(request).then(
        (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  // ---- serving requests from other frames ----------------------------------------------------------

  #handlers = {
    request: (request: FrameRequest, link: FrameLink): Promise<unknown> =>
      this.#serve(request, link),
    abort: (callId: string): void => {
      this.#inbound.get(callId)?.controller.abort();
      this.#forwarded.get(callId)?.abort(callId);
    },
    changed: (change: Change, link: FrameLink): void => this.#receiveChange(change, link),
    closed: (link: FrameLink): void => this.#linkClosed(link),
    error: (value: unknown): Error => deserializeError(value, this.#deps.rebuildError),
  };

  async #serve(incoming: FrameRequest, link: FrameLink): Promise<unknown> {
    // Origins are compared as strings: a form other than the serialization is refused, never
    // normalized (an honest frame sends only location.origin and the origins it was handed).
    if (!canonicalClaims(incoming))
      throw domException('SecurityError', 'The request names an origin that is not canonical.');
    const via = [...incoming.via, link.origin];
    // From a child, only its own origin is attested; a different claim (a grandchild's, or a
    // lie) becomes the child's. From the parent, the claim stands: via still binds it.
    const request: FrameRequest =
      link !== this.#parent && incoming.caller !== link.origin
        ? { ...incoming, caller: link.origin }
        : incoming;
    const fromParent = link === this.#parent;
    switch (request.op) {
      case 'list': {
        // Lists and calls come down from the parent only; a child asks with tree-list.
        if (!fromParent)
          throw domException('NotAllowedError', 'Listings come from the parent frame.');
        if (request.route.length === 0)
          return this.listSubtree(request.caller, via, request.agentOnly, request.fromOrigins);
        const [first, ...rest] = request.route as [number, ...number[]];
        const child = this.#childAt(first);
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
      case 'call':
        if (!fromParent)
          throw domException('NotAllowedError', 'Calls come down from the parent frame.');
        return this.#serveCall({ ...request, via: request.via }, via, link);
      case 'tree-list':
        if (fromParent) throw domException('NotAllowedError', 'tree-list goes up, not down.');
        // Both ends must be allowed: this frame, and the child by its own embedding.
        if (this.#gate.allowed !== true || !link.allowed) return [];
        if (this.#parent) return this.#parent.request({ ...request, via }, DISCOVERY_MS * 2);
        return this.listSubtree(request.caller, via, true, request.fromOrigins);
      case 'tree-call': {
        if (fromParent) throw domException('NotAllowedError', 'tree-call goes up, not down.');
        // document.modelContext only (an honest frame always names the owner's origin): the
        // generic layer has no upward calls.
        if (request.origin === null || this.#gate.allowed !== true || !link.allowed) {
          throw domException('UnknownError', 'This frame may not use tools.');
        }
        if (this.#parent) return this.#relay(this.#parent, { ...request, via }, request.callId);
        // The top: the route starts here.
        return this.#serveCall({ ...request, op: 'call' }, via, link);
      }
    }
  }

  async #serveCall(request: CallRequest, via: string[], from: FrameLink): Promise<unknown> {
    const spec = request.origin !== null;
    if (request.route.length > 0) {
      const [first, ...rest] = request.route as [number, ...number[]];
      const child = this.#childAt(first);
      if (!child)
        throw domException(
          spec ? 'UnknownError' : 'NotFoundError',
          'The frame that owned this tool is gone.',
        );
      return this.#relay(child, { ...request, route: rest, via }, request.callId);
    }
    const entry = this.#deps.registry.get(request.name);
    const gone = () =>
      domException(
        spec ? 'UnknownError' : 'NotFoundError',
        `No tool named "${request.name}" is available here.`,
      );
    if (!entry || (request.key !== -1 && entry.key !== request.key)) throw gone();
    if (!this.#visible(entry, request.caller, via, spec, null)) throw gone();
    if (spec && (entry.origin !== request.origin || this.#gate.allowed !== true)) throw gone();
    const controller = new AbortController();
    this.#inbound.set(request.callId, { controller, link: from });
    try {
      return spec
        ? await this.#deps.runSpec(entry, request.input, controller.signal, request.caller)
        : await this.#deps.runGeneric(
            entry,
            request.input,
            request.encoding,
            controller.signal,
            request.caller,
          );
    } finally {
      this.#inbound.delete(request.callId);
    }
  }

  /** Passes a call one hop further, remembering where its abort must follow. */
  async #relay(to: FrameLink, request: FrameRequest, callId: string): Promise<unknown> {
    this.#forwarded.set(callId, to);
    try {
      return await to.request(request);
    } finally {
      this.#forwarded.delete(callId);
    }
  }

  #linkClosed(link: FrameLink): void {
    for (const [callId, call] of this.#inbound) {
      if (call.link === link) {
        call.controller.abort();
        this.#inbound.delete(callId);
      }
    }
    if (link === this.#parent) {
      this.#parent = undefined;
      return;
    }
    for (const [win, child] of this.#children) if (child === link) this.#children.delete(win);
    this.#notify('tools');
    this.#broadcast({ origin: link.origin, exposedTo: ['*'], agent: true }, link);
    for (const listener of this.#remoteListeners) listener.fire();
  }

  // ---- change notices ----------------------------------------------------------------------------

  #allExposures(): string[] {
    const origins = new Set<string>();
    for (const entry of this.#deps.registry.values())
      for (const origin of entry.exposedTo) origins.add(origin);
    return [...origins];
  }

  #receiveChange(received: Change, from: FrameLink): void {
    if (!isOriginClaim(received.origin)) return;
    const change: Change = {
      origin: received.origin,
      exposedTo: received.exposedTo.filter((origin) => origin === '*' || isCanonicalOrigin(origin)),
      agent: received.agent,
    };
    const fromChild = from !== this.#parent;
    if (fromChild && from.grant) this.#notify('tools');
    if (fromChild) {
      const index = this.#indexOf(from);
      for (const listener of this.#remoteListeners)
        if (listener.route[0] === index) listener.fire();
    }
    this.#broadcast(change, from);
  }

  /** Floods a change through the tree (never back where it came from), coalesced per tick. */
  #broadcast(change: Change, from: FrameLink | undefined): void {
    const exposed =
      change.origin === this.origin ||
      change.exposedTo.includes('*') ||
      change.exposedTo.includes(this.origin);
    if (from !== undefined && change.agent && exposed && this.#gate.allowed === true)
      this.#notify('spec');
    const targets = [this.#parent, ...this.#children.values()].filter(
      (link): link is FrameLink => link !== undefined && link !== from && !link.closed,
    );
    if (targets.length === 0) return;
    if (!this.#pendingChanges) {
      this.#pendingChanges = [];
      queueMicrotask(() => this.#flushChanges(targets));
    }
    if (this.#pendingChanges.length < 16) this.#pendingChanges.push(change);
  }

  #flushChanges(targets: FrameLink[]): void {
    const changes = this.#pendingChanges ?? [];
    this.#pendingChanges = null;
    // Many changes in one tick travel as one wildcard notice.
    const merged =
      changes.length === 1 ? changes : [{ origin: this.origin, exposedTo: ['*'], agent: true }];
    for (const link of targets) for (const change of merged) link.changed(change);
  }

  /** Change events, at most one of each kind per microtask (a flood of notices is one event). */
  #notify(kind: 'tools' | 'spec'): void {
    const first = this.#queued.size === 0;
    this.#queued.add(kind);
    if (!first) return;
    queueMicrotask(() => {
      const kinds = [...this.#queued];
      this.#queued.clear();
      for (const queued of kinds) {
        if (queued === 'tools') this.#deps.toolsChanged();
        else this.#deps.specChanged();
      }
    });
  }

  /** tools.of(frame) objects hear about changes in their subtree. */
  watch(route: number[], fire: () => void): void {
    this.#remoteListeners.add({ route, fire });
  }
}

let callCounter = 0;
function newCallId(): string {
  callCounter = (callCounter + 1) % Number.MAX_SAFE_INTEGER;
  const random =
    typeof crypto !== 'undefined' && 'randomUUID' in crypto
      ? crypto.randomUUID()
      : String(Math.random());
  return `${random}:${callCounter}`;
}

/** An origin a request or notice may name: canonical, or 'null' (an opaque document's). */
function isOriginClaim(value: string): boolean {
  return value === 'null' || isCanonicalOrigin(value);
}

function canonicalClaims(request: FrameRequest): boolean {
  if (!isOriginClaim(request.caller) || !request.via.every(isOriginClaim)) return false;
  switch (request.op) {
    case 'list':
      return request.fromOrigins === null || request.fromOrigins.every(isCanonicalOrigin);
    case 'tree-list':
      return request.fromOrigins.every(isCanonicalOrigin);
    default:
      return request.origin === null || isCanonicalOrigin(request.origin);
  }
}

/**
 * What the asking frame would have listed itself (#visible, from a descriptor): a child's answer
 * is checked again, so a frame that ignores agentOnly or the fromOrigins double opt-in gains
 * nothing by it.
 */
function listable(
  tool: ToolDescriptor,
  caller: string,
  agentOnly: boolean,
  fromOrigins: string[] | null,
): boolean {
  if (agentOnly && !tool.agentExposed) return false;
  if (fromOrigins === null) return true;
  return tool.agentExposed && (tool.origin === caller || fromOrigins.includes(tool.origin));
}

export interface SanitizeContext {
  /** The answering frame's attested origin; undefined when routes start at the top (treeList). */
  peerOrigin: string | undefined;
  /** The asking frame's origin. */
  ownOrigin: string;
  /** The window the descriptors' routes start from; a route that leads nowhere from it is dropped. */
  base: Window | undefined;
}

/**
 * Descriptors from another frame are untrusted: keep only well-formed ones. Every origin must be
 * a potentially trustworthy origin in its canonical form. A tool the answering frame owns
 * (route []) must carry that frame's attested origin; a tool from deeper down may not claim the
 * asking frame's origin unless the answering frame has it too (it cannot pass its subtree off as
 * same-origin with us). A route must lead to a frame that exists. Duplicates are dropped, and so
 * is everything past MAX_TOOLS_PER_FRAME in one frame (`onCapped` hears of each such frame).
 */
export function sanitize(
  value: unknown,
  context: SanitizeContext,
  onCapped?: (origin: string, route: number[], listed: number) => void,
): ToolDescriptor[] {
  if (!Array.isArray(value)) return [];
  const { peerOrigin, ownOrigin, base } = context;
  const seen = new Set<string>();
  /** Per route: does it lead to a frame (checked once), and how many tools it listed. */
  const frames = new Map<string, { exists: boolean; listed: number; origin: string }>();
  /** Origins repeat: each distinct string is parsed once. */
  const origins = new Map<string, boolean>();
  const out: ToolDescriptor[] = [];
  for (const item of value.slice(0, 10_000)) {
    if (typeof item !== 'object' || item === null) continue;
    const tool = item as Record<string, unknown>;
    const route = tool.route;
    if (
      typeof tool.name !== 'string' ||
      typeof tool.origin !== 'string' ||
      typeof tool.key !== 'number' ||
      !Array.isArray(route) ||
      route.length > MAX_ROUTE_DEPTH ||
      !route.every((step) => Number.isInteger(step) && step >= 0)
    ) {
      continue;
    }
    const origin = tool.origin;
    let trusted = origins.get(origin);
    if (trusted === undefined) {
      trusted = trustworthyOrigin(origin) === origin;
      origins.set(origin, trusted);
    }
    if (!trusted) continue;
    if (peerOrigin !== undefined) {
      if (route.length === 0 && origin !== peerOrigin) continue;
      if (route.length > 0 && origin === ownOrigin && peerOrigin !== ownOrigin) continue;
    }
    const routeKey = route.join('/');
    let frame = frames.get(routeKey);
    if (!frame) {
      frame = {
        exists: base !== undefined && windowAtRoute(base, route as number[]) !== undefined,
        listed: 0,
        origin,
      };
      frames.set(routeKey, frame);
    }
    if (!frame.exists) continue;
    const identity = `${routeKey}|${origin}|${tool.name}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    frame.listed++;
    if (frame.listed > MAX_TOOLS_PER_FRAME) continue;
    out.push({
      name: tool.name,
      title: typeof tool.title === 'string' ? tool.title : '',
      description: typeof tool.description === 'string' ? tool.description : '',
      inputSchema: isPlain(tool.inputSchema) ? tool.inputSchema : undefined,
      outputSchema: isPlain(tool.outputSchema) ? tool.outputSchema : undefined,
      annotations: isPlain(tool.annotations)
        ? (tool.annotations as Record<string, boolean>)
        : undefined,
      origin,
      agentExposed: tool.agentExposed === true,
      policy: tool.policy === 'read' || tool.policy === 'critical' ? tool.policy : 'write',
      category: typeof tool.category === 'string' ? tool.category : undefined,
      keywords: strings(tool.keywords),
      prerequisites: strings(tool.prerequisites),
      runtime: isPlain(tool.runtime) ? tool.runtime : null,
      key: tool.key,
      route: route as number[],
    });
  }
  if (onCapped) {
    for (const [routeKey, frame] of frames) {
      if (frame.listed > MAX_TOOLS_PER_FRAME)
        onCapped(
          frame.origin,
          routeKey === '' ? [] : routeKey.split('/').map(Number),
          frame.listed,
        );
    }
  }
  return out;
}

function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string').slice(0, 64)
    : [];
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

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
