/**
 * `window.tools` (docs/browser-api.md "Reading and calling"): getTools, callTool, of, and `toolchange`.
 *
 * callTool, in order: an onProgress that is not a function (TypeError), find the tool
 * (NotFoundError), the permission (NotAllowedError), the caller's signal (AbortError...), then
 * run.ts for this document's tools; native tools go to the browser's own modelContext (which
 * reports no progress), other frames' tools down the frames bridge (whose reports come back up).
 */
import type { FramesGate } from './frames/gate.js';
import type { FrameNode } from './frames/node.js';
import { RemoteTools } from './frames/remote-tools.js';
import { abortReason, domException } from './lib/dom.js';
import type { NativeHooks } from './native-proxy.js';
import type { RegistryEntry } from './registry.js';
import { compareByName, ToolRegistry } from './registry.js';
import { runLocal } from './run.js';
import type { HandleOwner, Tool, ToolSource } from './tool.js';
import { entryOf, handleOf } from './tool.js';
import type { CallEncoding, CallToolOptions, GetToolsOptions, ToolProgress } from './types.js';
import { WIRE_RESULT } from './wire/result.js';

export interface ToolsHooks {
  allowed(): boolean;
  native?: NativeHooks | undefined;
  /** The frames bridge: other frames' tools coalesce in, `of(frame)` reads them directly. */
  frames?: FramesGate | undefined;
}

export class Tools extends EventTarget implements HandleOwner {
  #registry: ToolRegistry;
  #hooks: ToolsHooks;

  constructor(registry: ToolRegistry, hooks: ToolsHooks) {
    super();
    this.#registry = registry;
    this.#hooks = hooks;
    registry.onChange(() => this.dispatchEvent(new Event('toolchange')));
    hooks.native?.onChange(() => this.dispatchEvent(new Event('toolchange')));
  }

  #remote = new Map<string, RemoteTools>();

  /**
   * This document's tools visible to it, those that coalesce up from its frames, and native
   * ones; sorted by name, then origin.
   */
  async getTools(options: GetToolsOptions = {}): Promise<Tool[]> {
    const agentOnly = options.agentOnly === true;
    const own = this.#registry
      .list(this.#registry.origin, agentOnly ? (entry) => entry.agentExposed : undefined)
      .map((entry) => handleOf(this, entry));
    // With children the frames' node is loaded: it lists them and keeps their handles.
    const node = this.#hooks.frames?.hasChildren ? this.#hooks.frames.node : undefined;
    const fromFrames = node ? await node.frameTools(this, agentOnly) : [];
    // This document's native tools only: other frames' arrive through the frames bridge.
    const native = this.#hooks.native
      ? await this.#hooks.native.tools(this, (name, origin, description) =>
          fromFrames.some(
            (tool) =>
              tool.name === name && tool.origin === origin && tool.description === description,
          ),
        )
      : [];
    if (native.length === 0 && fromFrames.length === 0) return own;
    if (native.length > 0) return [...own, ...fromFrames, ...native].sort(compareByName);
    return (node as FrameNode).sortedWith(this, own, fromFrames);
  }

  /** Another frame's tools (a descendant iframe element or window), read directly. */
  of(target: unknown): Tools | RemoteTools {
    const win = isIframe(target) ? target.contentWindow : target;
    const frames = this.#hooks.frames;
    if (win === globalThis || win === frames?.window) return this;
    const route =
      frames && win && typeof win === 'object' ? frames.routeTo(win as Window) : undefined;
    if (!frames || !route)
      throw domException('NotFoundError', 'tools.of() takes this window or a frame inside it.');
    const key = route.join('/');
    let remote = this.#remote.get(key);
    if (!remote) {
      remote = new RemoteTools(frames, route, this);
      this.#remote.set(key, remote);
    }
    return remote;
  }

  callTool(tool: string | Tool, input?: unknown, options: CallToolOptions = {}): Promise<unknown> {
    try {
      const onProgress = options.onProgress;
      if (onProgress !== undefined && typeof onProgress !== 'function')
        throw new TypeError('onProgress must be a function.');
      const native = this.#hooks.native;
      if (native && typeof tool === 'object' && native.owns(tool))
        return native.call(tool, input, options);
      if (typeof tool === 'object' && this.#hooks.frames?.isRemote(tool)) {
        return this.#hooks.frames.callRemote(tool, input === undefined ? {} : input, options);
      }
      // A name this document has no tool for may still name one getTools() lists (a frame's or
      // a native one): that is looked up, then called by its handle.
      if (
        typeof tool === 'string' &&
        !this.#own(tool) &&
        (native || this.#hooks.frames?.hasChildren)
      )
        return this.#callListed(tool, input, options);
      const entry = this.#resolve(tool);
      if (!this.#hooks.allowed())
        throw domException(
          'NotAllowedError',
          'This document is not allowed to use tools.',
          'tool_execution_denied',
        );
      const encoding = options.encoding ?? 'structured';
      if (encoding !== 'structured' && encoding !== 'json')
        throw new TypeError(`Unknown encoding ${JSON.stringify(encoding)}.`);
      if (options.signal?.aborted) throw abortReason(options.signal);
      return runLocal(
        this.#registry,
        entry,
        input === undefined ? {} : input,
        encoding,
        options.signal,
        this.#registry.origin,
        encoding === 'json' && (options as { [WIRE_RESULT]?: unknown })[WIRE_RESULT] === true,
        onProgress,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** This document's own tool of that name, when it is visible here. */
  #own(name: string): RegistryEntry | undefined {
    const entry = this.#registry.get(name);
    return entry && ToolRegistry.isExposedTo(entry, this.#registry.origin) ? entry : undefined;
  }

  #resolve(tool: string | Tool): RegistryEntry {
    let entry: RegistryEntry | undefined;
    if (typeof tool === 'string') entry = this.#registry.get(tool);
    else if (tool && typeof tool === 'object') entry = entryOf(tool);
    if (
      !entry ||
      !this.#registry.isCurrent(entry) ||
      !ToolRegistry.isExposedTo(entry, this.#registry.origin)
    ) {
      throw notFound(typeof tool === 'string' ? tool : (tool as { name?: unknown })?.name);
    }
    return entry;
  }

  /**
   * callTool(name) for a tool outside this document's registry: the one getTools() lists under
   * that name, by the precedence a plain name has on the wire (page-tools.ts): this document's
   * own (native) tools, then frames' tools of this document's origin, then other frames'
   * tools, each in getTools() order (by origin, then as listed). Then called by its handle.
   */
  async #callListed(name: string, input: unknown, options: CallToolOptions): Promise<unknown> {
    const signal = options.signal;
    if (signal?.aborted) throw abortReason(signal);
    const listing = this.getTools();
    // The listing waits for frames (up to the discovery deadline); the caller's abort does not.
    const listed = signal
      ? await new Promise<Tool[]>((resolve, reject) => {
          const onAbort = () => reject(abortReason(signal));
          signal.addEventListener('abort', onAbort, { once: true });
          listing.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
        })
      : await listing;
    let found: Tool | undefined;
    let foundRank = 3;
    for (const tool of listed) {
      if (tool.name !== name) continue;
      const kind = this.sourceOf(tool)?.kind;
      // This document's own (registry or native) first, then frames' of its origin.
      const rank =
        kind === 'registry' || kind === 'native'
          ? 0
          : tool.origin === this.#registry.origin
            ? 1
            : 2;
      if (rank < foundRank) {
        found = tool;
        foundRank = rank;
      }
    }
    if (!found) throw notFound(name);
    return this.callTool(found, input, options);
  }

  /** @internal Where a handle's tool lives (wire/info.ts); undefined for handles it does not know. */
  sourceOf(tool: Tool): ToolSource | undefined {
    const entry = entryOf(tool);
    if (entry) return { kind: 'registry', entry };
    const native = this.#hooks.native;
    if (native?.owns(tool)) return { kind: 'native', declarative: () => native.declarative(tool) };
    const descriptor = this.#hooks.frames?.descriptorOf(tool);
    return descriptor ? { kind: 'frame', descriptor } : undefined;
  }

  /** @internal The frames bridge runs a local tool for a caller in another frame. */
  runFor(
    entry: RegistryEntry,
    input: unknown,
    encoding: CallEncoding,
    signal: AbortSignal | undefined,
    caller: string,
    onProgress?: (progress: ToolProgress) => void,
  ): Promise<unknown> {
    return runLocal(this.#registry, entry, input, encoding, signal, caller, false, onProgress);
  }
}

function notFound(name: unknown): DOMException {
  return domException(
    'NotFoundError',
    `No tool named ${JSON.stringify(String(name))} is available.`,
    'tool_not_found',
  );
}

/** An iframe element? (Never reads a property: `value` may be a cross-origin WindowProxy.) */
function isIframe(value: unknown): value is HTMLIFrameElement {
  const type = (globalThis as { HTMLIFrameElement?: typeof HTMLIFrameElement }).HTMLIFrameElement;
  return type !== undefined && value instanceof type;
}
