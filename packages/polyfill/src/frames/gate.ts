/**
 * The always-loaded part of the frames bridge. It listens for the handshake (checking each
 * message's source and origin before its data), says hello to a parent, decides this
 * document's `tools` permission, and loads the rest of the bridge (node.ts, a lazy chunk in the
 * IIFE build) only when a frame actually joins: a page with no polyfilled frames never pays for
 * it. Everything Tools and document.modelContext ask of the bridge goes through here.
 */
import { chunkFromScript } from '../lib/chunks.js';
import type { RegisteredTool } from '../registered-tool.js';
import type { HandleOwner, Tool } from '../tool.js';
import type { CallToolOptions } from '../types.js';
import type { FrameNodeDeps, GateState } from './context.js';
import type { ToolDescriptor } from './messages.js';
import { FRAMES_TAG, isAskHello, isHello, isWelcome } from './messages.js';
import type { FrameNode } from './node.js';
import { routeFrom } from './route.js';

const HANDSHAKE_MS = 2000;

export class FramesGate implements GateState {
  readonly origin: string;
  node: FrameNode | undefined;
  #deps: FrameNodeDeps;
  #win: Window & typeof globalThis;
  #allowed: boolean | undefined;
  #ready: Promise<boolean>;
  #resolve: (allowed: boolean) => void = () => {};
  #loading: Promise<FrameNode> | undefined;
  #watchers: [number[], () => void][] = [];
  /** A parent's welcome has arrived (a hello asked for again is then not answered). */
  #welcomed = false;

  constructor(deps: FrameNodeDeps) {
    this.#deps = deps;
    this.#win = deps.window;
    this.origin = deps.registry.origin;
    this.#ready = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  get window(): Window & typeof globalThis {
    return this.#win;
  }

  get isTop(): boolean {
    return this.#win.parent === this.#win || !this.#win.parent;
  }

  /** Is this document allowed to use `tools`? undefined until the parent has answered. */
  get allowed(): boolean | undefined {
    return this.#allowed;
  }

  get ready(): Promise<boolean> {
    return this.#ready;
  }

  get hasChildren(): boolean {
    return this.node?.hasChildren ?? false;
  }

  decide(vouched: boolean): void {
    const own = this.#deps.ownPolicy;
    this.#allowed = own === undefined ? vouched : own;
    this.#resolve(this.#allowed);
  }

  update(vouched: boolean): void {
    if (this.#deps.ownPolicy === undefined) this.#allowed = vouched;
  }

  start(topAllowed: boolean): void {
    this.#win.addEventListener('message', this.#onMessage);
    this.#win.addEventListener('pagehide', (event: PageTransitionEvent) => {
      if (!event.persisted) this.node?.leave();
    });
    this.#askChildren();
    if (this.isTop) {
      this.decide(topAllowed);
      return;
    }
    const expected = this.#expectedParentOrigin();
    this.#sayHello(expected);
    setTimeout(() => {
      if (this.#allowed === undefined) this.decide(this.#fallbackAllowed(expected));
    }, HANDSHAKE_MS);
  }

  #sayHello(expected: string | undefined): void {
    try {
      this.#win.parent.postMessage({ tag: FRAMES_TAG, kind: 'hello' }, expected ?? '*');
    } catch {
      // A parent we cannot post to is a parent without toolwire.
    }
  }

  /**
   * Frames whose scripts ran before ours said hello to nobody: ask each frame already in the
   * document to say it again (one that has no toolwire, or a link already, ignores it).
   */
  #askChildren(): void {
    for (const frame of Array.from(this.#win.document.querySelectorAll('iframe'))) {
      try {
        frame.contentWindow?.postMessage({ tag: FRAMES_TAG, kind: 'ask' }, '*');
      } catch {
        // A frame that is gone, or not yet a window: it says hello itself when it starts.
      }
    }
  }

  load(): Promise<FrameNode> {
    // The chunk (lib/chunks.ts): from beside the IIFE there, where the import() is dead code.
    this.#loading ??= (
      typeof __TOOLWIRE_IIFE__ !== 'undefined'
        ? chunkFromScript<typeof import('./node.js')>('frames')
        : import('./node.js')
    ).then((chunk) => {
      const node = new chunk.FrameNode(this.#deps, this);
      this.node = node;
      for (const [route, fire] of this.#watchers) node.watch(route, fire);
      return node;
    });
    return this.#loading;
  }

  #onMessage = (event: MessageEvent): void => {
    // Who sent it, and from where, before anything reads the data (docs/style.md 2).
    const source = event.source as Window | null;
    if (!source) return;
    if (source === this.#win.parent && !this.isTop) {
      const expected = this.#expectedParentOrigin();
      if (expected !== undefined && event.origin !== expected) return;
      if (isAskHello(event.data)) {
        if (!this.#welcomed) this.#sayHello(expected);
        return;
      }
      if (!isWelcome(event.data) || event.ports.length !== 1) return;
      this.#welcomed = true;
      void this.load().then((node) => node.acceptWelcome(event));
      return;
    }
    const iframe = this.#iframeOf(source);
    // An opaque-origin child cannot be posted to by origin; it gets no port.
    if (!iframe || event.origin === 'null' || !isHello(event.data)) return;
    void this.load().then((node) => node.acceptHello(source, iframe, event.origin));
  };

  #expectedParentOrigin(): string | undefined {
    const ancestors = (this.#win.location as Location & { ancestorOrigins?: DOMStringList })
      .ancestorOrigins;
    const first = ancestors && ancestors.length > 0 ? ancestors[0] : undefined;
    return first && first !== 'null' ? first : undefined;
  }

  /** No polyfilled parent answered: same-origin children keep the 'self' default; others fail closed. */
  #fallbackAllowed(parentOrigin: string | undefined): boolean {
    let origin = parentOrigin;
    if (origin === undefined) {
      try {
        origin = this.#win.parent.location.origin;
      } catch {
        origin = undefined;
      }
    }
    return origin === this.origin;
  }

  #iframeOf(source: Window): HTMLIFrameElement | undefined {
    for (const frame of Array.from(this.#win.document.querySelectorAll('iframe'))) {
      if (frame.contentWindow === source) return frame;
    }
    return undefined;
  }

  // ---- frame geometry (no bridge needed) ----------------------------------------------------

  /** Frame indices from this window down to `target`, or undefined when it is not a descendant. */
  routeTo(target: Window): number[] | undefined {
    const route = routeFrom(this.#win, target);
    return route && route.length > 0 ? route : undefined;
  }

  // ---- what Tools and ModelContext ask (delegated to the node) -----------------------------------

  isRemote(handle: object): boolean {
    return this.node?.isRemote(handle) ?? false;
  }

  descriptorOf(handle: Tool): ToolDescriptor | undefined {
    return this.node?.descriptorOf(handle);
  }

  /** `tools.of(frame).getTools()`: the owner's handles on that frame's subtree. */
  async toolsAt(owner: HandleOwner, route: number[], agentOnly: boolean): Promise<Tool[]> {
    return (await this.load()).toolsAt(owner, route, agentOnly);
  }

  /** document.modelContext.getTools() across the page's documents (node.ts specTools). */
  async specTools(fromOrigins: string[]): Promise<RegisteredTool[]> {
    return (await this.load()).specTools(fromOrigins);
  }

  callRemote(
    target: Tool | { route: number[]; name: string },
    input: unknown,
    options: Pick<CallToolOptions, 'signal' | 'encoding' | 'onProgress'>,
  ): Promise<unknown> {
    // Once loaded, straight to the node: no promise of ours around the call's.
    if (this.node) return this.node.callRemote(target, input, options);
    return this.load().then((node) => node.callRemote(target, input, options));
  }

  async callSpec(
    window: Window,
    name: string,
    origin: string,
    input: unknown,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    return (await this.load()).callSpec(window, name, origin, input, signal);
  }

  watch(route: number[], fire: () => void): void {
    this.#watchers.push([route, fire]);
    this.node?.watch(route, fire);
  }
}
