/**
 * The frames bridge: one FrameNode per document links it to its parent and its
 * children over MessageChannels, so the registry spans the frame tree. This is the lazily
 * loaded chunk `polyfill-frames`; gate.ts is the core's part.
 *
 * 1. Handshake (here): a child says `hello` to `window.parent`; the parent answers only windows
 *    that are its own iframes, decides whether the embedding grants `tools` (allow.ts), and
 *    hands over a port with its `welcome`, posted to the child's exact origin. The child accepts
 *    one welcome, from `window.parent`, from the origin `location.ancestorOrigins` names. After
 *    that nothing travels by window.postMessage.
 * 2. Origins are attested, not claimed (here, for every request; sanitize.ts for what comes
 *    back): every request gets the origin of the link it arrived on appended to `via`, and a
 *    tool is listed or run only when it is exposed to the caller and to every origin in `via`.
 * 3. Coalescing: listing.ts. Calls and aborts: calls.ts. Change notices: changes.ts. Handles on
 *    other frames' tools: handles.ts. The links themselves: neighbours.ts, link.ts.
 * 4. Deadlines bound the handshake and discovery, never tool execution.
 */
import { domException } from '../lib/dom.js';
import { usesWebTypes } from '../lib/lowering.js';
import type { RegisteredTool } from '../registered-tool.js';
import { registeredTool } from '../registered-tool.js';
import { compareByName } from '../registry.js';
import type { HandleOwner, Tool } from '../tool.js';
import type { CallToolOptions } from '../types.js';
import { allowGrantsTools } from './allow.js';
import { Calls } from './calls.js';
import { ChangeNotices } from './changes.js';
import type { FrameNodeDeps, GateState, NodeContext } from './context.js';
import { deserializeError } from './errors.js';
import { RemoteHandles } from './handles.js';
import { FrameLink } from './link.js';
import { Listing } from './listing.js';
import type { ChangeNotice, FrameRequest, ProgressNotice, ToolDescriptor } from './messages.js';
import { FRAMES_TAG } from './messages.js';
import { Neighbours } from './neighbours.js';
import { windowAtRoute } from './route.js';
import { canonicalClaims } from './sanitize.js';

export class FrameNode implements NodeContext {
  readonly origin: string;
  readonly window: Window & typeof globalThis;
  readonly deps: FrameNodeDeps;
  readonly gate: GateState;
  readonly links: Neighbours;
  #listing: Listing;
  #handles: RemoteHandles;
  #calls: Calls;
  #changes: ChangeNotices;
  /** Children whose welcome is being prepared (a flood of hellos makes one). */
  #welcoming = new Set<Window>();

  constructor(deps: FrameNodeDeps, gate: GateState) {
    this.deps = deps;
    this.gate = gate;
    this.window = deps.window;
    this.origin = deps.registry.origin;
    this.links = new Neighbours(deps.window);
    this.#listing = new Listing(this);
    this.#handles = new RemoteHandles(deps.makeTool);
    this.#calls = new Calls(this, this.#handles);
    this.#changes = new ChangeNotices(this);
    deps.registry.onChange((change) => {
      this.#changes.broadcast(
        { origin: this.origin, exposedTo: [...change.exposedTo], agent: change.agent },
        undefined,
      );
    });
  }

  get isTop(): boolean {
    return this.window.parent === this.window || !this.window.parent;
  }

  get hasChildren(): boolean {
    return this.links.children.size > 0;
  }

  // ---- handshake (the gate checked source, origin and shape) ----------------------------------

  /** The parent's welcome: the port becomes our link up. One welcome per document. */
  acceptWelcome(event: MessageEvent<{ allowed: boolean }>): void {
    if (this.links.parent) return;
    const port = event.ports[0] as MessagePort;
    const parent = new FrameLink(port, event.origin, this.#handlers, {
      grant: true,
      allowed: true,
    });
    this.links.parent = parent;
    if (this.gate.allowed === undefined) this.gate.decide(event.data.allowed);
    else this.gate.update(event.data.allowed);
    // Tell the parent what we hold, so it can fire toolchange for tools registered before now.
    parent.changed({ origin: this.origin, exposedTo: this.#changes.allExposures(), agent: true });
  }

  /** A child's hello: hand it a port, with our word on whether its embedding grants `tools`. */
  async acceptHello(source: Window, iframe: HTMLIFrameElement, childOrigin: string): Promise<void> {
    // An opaque-origin child cannot be posted to by origin; it gets no port.
    if (childOrigin === 'null') return;
    // One live link per child: a child that navigates says bye first (pagehide), so a hello over
    // a live link is a replay or a flood, and rebuilding on each would be a denial of service.
    const live = this.links.children.get(source);
    if (live && !live.closed) return;
    if (this.#welcoming.has(source)) return;
    this.#welcoming.add(source);
    const allowed = await this.gate.ready;
    this.#welcoming.delete(source);
    let srcOrigin: string | undefined;
    const src = iframe.getAttribute('src');
    if (src) {
      try {
        srcOrigin = new URL(src, this.window.location.href).origin;
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
    this.links.children.set(source, link);
    source.postMessage(
      { tag: FRAMES_TAG, kind: 'welcome', allowed: allowed && grant },
      childOrigin,
      [channel.port2],
    );
    this.links.welcomed(source, link);
  }

  /** The document is going away (pagehide): tell every neighbour. */
  leave(): void {
    this.links.parent?.bye();
    for (const link of this.links.children.values()) link.bye();
  }

  // ---- what the gate asks (gate.ts) -------------------------------------------------------------

  /** The owner's handles on the tools of one frame's subtree (`tools.of(frame)`). */
  async toolsAt(owner: HandleOwner, route: number[], agentOnly: boolean): Promise<Tool[]> {
    const found = await this.#listing.listAt(route, agentOnly);
    return found.map((tool) => this.#handles.handleFor(owner, tool));
  }

  /**
   * document.modelContext.getTools() in a page of several documents (spec "getTools" step 3):
   * the tree's tools this document sees, as RegisteredTool dictionaries sorted by name, each
   * naming its document's window (a tool whose frame is gone is left out).
   */
  async specTools(fromOrigins: string[]): Promise<RegisteredTool[]> {
    const found = await this.#listing.treeList(fromOrigins);
    const tools = await Promise.all(found.map((descriptor) => this.#specTool(descriptor)));
    return tools
      .filter((tool): tool is RegisteredTool => tool !== undefined)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async #specTool(descriptor: ToolDescriptor): Promise<RegisteredTool | undefined> {
    const window = this.#windowAt(descriptor.route);
    if (!window) return undefined;
    let inputSchema: object | undefined;
    if (descriptor.inputSchema) {
      const text = JSON.stringify(descriptor.inputSchema);
      inputSchema = usesWebTypes(text)
        ? (await this.deps.loadLowering()).expandSchema(descriptor.inputSchema)
        : (JSON.parse(text) as object);
    }
    return registeredTool(descriptor, inputSchema, window);
  }

  /** Per owner (a document's `tools`): its last frame listings' handles, and its last merge. */
  #memos = new WeakMap<
    HandleOwner,
    {
      /** One listing per agentOnly value: the subtree cache hands back the same array while unchanged. */
      lists: { listing: readonly ToolDescriptor[]; handles: Tool[] }[];
      sorted?: { own: Tool[]; fromFrames: Tool[]; sorted: Tool[] };
    }
  >();

  #memoOf(owner: HandleOwner) {
    let memo = this.#memos.get(owner);
    if (!memo) {
      memo = { lists: [] };
      this.#memos.set(owner, memo);
    }
    return memo;
  }

  /** The owner's handles on the tools that coalesce up from this document's frames. */
  async frameTools(owner: HandleOwner, agentOnly: boolean): Promise<Tool[]> {
    const listing = await this.#listing.listSubtree(this.origin, [], agentOnly, null);
    const memo = this.#memoOf(owner);
    const held = memo.lists.find((list) => list.listing === listing);
    if (held) return held.handles;
    const handles = listing
      .filter((tool) => tool.route.length > 0)
      .map((tool) => this.#handles.handleFor(owner, tool));
    memo.lists = [{ listing, handles }, ...memo.lists.slice(0, 1)];
    return handles;
  }

  /**
   * `own` and `fromFrames` (frameTools' array) sorted by name, then origin: sorted once while
   * both are unchanged, a copy each time.
   */
  sortedWith(owner: HandleOwner, own: Tool[], fromFrames: Tool[]): Tool[] {
    const memo = this.#memoOf(owner);
    const last = memo.sorted;
    if (
      last &&
      last.fromFrames === fromFrames &&
      last.own.length === own.length &&
      last.own.every((tool, i) => tool === own[i])
    )
      return [...last.sorted];
    const sorted = [...own, ...fromFrames].sort(compareByName);
    memo.sorted = { own, fromFrames, sorted };
    return [...sorted];
  }

  descriptorOf(handle: Tool): ToolDescriptor | undefined {
    return this.#handles.descriptorOf(handle);
  }

  isRemote(handle: object): boolean {
    return this.#handles.isRemote(handle);
  }

  callRemote(
    target: Tool | { route: number[]; name: string },
    input: unknown,
    options: Pick<CallToolOptions, 'signal' | 'encoding' | 'onProgress'>,
  ): Promise<unknown> {
    return this.#calls.callRemote(target, input, options);
  }

  callSpec(
    window: Window,
    name: string,
    origin: string,
    input: unknown,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    return this.#calls.callSpec(window, name, origin, input, signal);
  }

  watch(route: number[], fire: () => void): void {
    this.#changes.watch(route, fire);
  }

  /** The window a route from the top leads to; undefined when it leads nowhere. */
  #windowAt(routeFromTop: number[]): Window | undefined {
    const top = this.window.top;
    return top ? windowAtRoute(top, routeFromTop) : undefined;
  }

  // ---- serving requests from other frames ----------------------------------------------------------

  #handlers = {
    request: (request: FrameRequest, link: FrameLink): Promise<unknown> =>
      this.#serve(request, link),
    abort: (callId: string): void => this.#calls.abort(callId),
    progress: (notice: ProgressNotice, link: FrameLink): void => this.#calls.progress(notice, link),
    changed: (change: ChangeNotice, link: FrameLink) => this.#changes.receive(change, link),
    closed: (link: FrameLink): void => this.#linkClosed(link),
    error: (value: unknown): Error => deserializeError(value, this.deps.rebuildError),
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
      link !== this.links.parent && incoming.caller !== link.origin
        ? { ...incoming, caller: link.origin }
        : incoming;
    const fromParent = link === this.links.parent;
    switch (request.op) {
      case 'list':
        // Lists and calls come down from the parent only; a child asks with tree-list.
        if (!fromParent)
          throw domException('NotAllowedError', 'Listings come from the parent frame.');
        return this.#listing.answerList(request, via);
      case 'call':
        if (!fromParent)
          throw domException('NotAllowedError', 'Calls come down from the parent frame.');
        return this.#calls.answerCall(request, via, link);
      case 'tree-list':
        if (fromParent) throw domException('NotAllowedError', 'tree-list goes up, not down.');
        return this.#listing.answerTreeList(request, via, link);
      case 'tree-call':
        if (fromParent) throw domException('NotAllowedError', 'tree-call goes up, not down.');
        return this.#calls.answerTreeCall(request, via, link);
    }
  }

  #linkClosed(link: FrameLink): void {
    this.#calls.dropLink(link);
    if (link === this.links.parent) {
      this.links.parent = undefined;
      return;
    }
    this.links.removeChild(link);
    this.#changes.childLeft(link);
  }
}
