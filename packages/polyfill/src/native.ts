/**
 * Layering on a browser's own `document.modelContext`: the native
 * registry is kept; agent-exposed toolManager registrations are mirrored into it (and leave
 * with their tool); natively registered tools appear in `tools.getTools()` and are called
 * through the native `executeTool`.
 *
 * The browser's `getTools()` answers for the whole page: every frame's registrations (our
 * mirrors in other frames included), each descriptor carrying the `window` that registered it.
 * Listed here: this document's native tools, and those of its descendant frames that the frames
 * bridge does not already list (a frame's declarative form, say). Never an ancestor's or a
 * sibling's, and never a tool twice (docs/browser-api.md "Installing", on native WebMCP).
 */
import { domException } from './lib/dom.js';
import type { RegistryEntry } from './registry.js';
import type { HandleOwner, Tool, ToolFields } from './tool.js';
import type { CallToolOptions } from './types.js';

/**
 * What this lazily loaded chunk borrows from the core: the core's own Tool class and handle
 * table (a copy bundled here would make handles the core does not recognise).
 */
export interface NativeDeps {
  handleOf(caller: HandleOwner, entry: RegistryEntry): Tool;
  entryOf(handle: Tool): RegistryEntry | undefined;
  makeTool(caller: HandleOwner, fields: ToolFields): Tool;
  /** The agent-facing input schema of an entry (webType expanded). */
  agentInputSchema(entry: RegistryEntry): Promise<object | undefined>;
}

interface NativeRegisteredTool {
  name: string;
  title?: string;
  description: string;
  inputSchema?: object | string;
  origin: string;
  annotations?: Record<string, boolean>;
  /** The registering document's window (Chromium); absent where a browser does not say. */
  window?: unknown;
}

export interface NativeModelContext extends EventTarget {
  registerTool(
    tool: object,
    options?: { signal?: AbortSignal; exposedTo?: string[] },
  ): Promise<void>;
  getTools(options?: { fromOrigins?: string[] }): Promise<NativeRegisteredTool[]>;
  executeTool(
    tool: object,
    input?: object,
    options?: { signal?: AbortSignal },
  ): Promise<string | null>;
}

const MIRROR = 'native.mirror';
/**
 * On each window with a native layer: does this document mirror a tool of that name? A parent
 * asks it of a same-origin frame, whose mirrors it lists through the frames bridge instead.
 */
const MIRRORS = Symbol.for('toolwire.native.mirrors');

export class NativeLayer {
  readonly context: NativeModelContext;
  #handles = new WeakMap<object, NativeRegisteredTool>();
  #byKey = new Map<string, Tool>();
  #mirrored = new Set<string>();

  #deps: NativeDeps;
  /** This document's window, as the browser names it in `window` of its descriptors. */
  #window: unknown;

  constructor(context: NativeModelContext, deps: NativeDeps, window: unknown) {
    this.context = context;
    this.#deps = deps;
    this.#window = window;
    if (typeof window === 'object' && window !== null)
      Object.defineProperty(window, MIRRORS, {
        value: (name: string) => this.#mirrored.has(name),
        configurable: true,
      });
  }

  onChange(listener: () => void): void {
    this.context.addEventListener('toolchange', listener);
  }

  owns(tool: object): boolean {
    return this.#handles.has(tool as Tool);
  }

  /**
   * Mirrors an agent-exposed toolManager registration (or a form tool, on a browser with a
   * native modelContext but no native declarative support) into the native registry.
   */
  mirror(entry: RegistryEntry, caller: HandleOwner): Promise<void> {
    if (!entry.agentExposed || entry.layer === 'modelContext') return Promise.resolve();
    const controller = new AbortController();
    // The memo made here, not by registry.ts's memoOf: this chunk imports no runtime from the core.
    entry.memo ??= new Map();
    entry.memo.set(MIRROR, controller);
    this.#mirrored.add(entry.name);
    // Resolves once the browser has registered it (and so lists it): register() waits for this.
    return (async () => {
      const inputSchema = await this.#deps.agentInputSchema(entry);
      const handle = this.#deps.handleOf(caller, entry);
      await this.context.registerTool(
        {
          name: entry.name,
          ...(entry.title !== null ? { title: entry.title } : {}),
          description: entry.description,
          ...(inputSchema ? { inputSchema } : {}),
          ...(entry.annotations ? { annotations: entry.annotations } : {}),
          // The browser's agent speaks JSON: this is the agent boundary.
          execute: (input: object, options: { signal: AbortSignal }) =>
            caller.callTool(handle, input, { signal: options.signal, encoding: 'json' }),
        },
        { signal: controller.signal },
      );
    })().catch((error: unknown) => {
      // Unregistered meanwhile: nothing to warn about.
      if (controller.signal.aborted) return;
      this.#mirrored.delete(entry.name);
      if (typeof console !== 'undefined') {
        console.warn(
          `toolwire: could not mirror "${entry.name}" into the native registry: ${String(error)}`,
        );
      }
    });
  }

  unmirror(entry: RegistryEntry): void {
    const controller = entry.memo?.get(MIRROR) as AbortController | undefined;
    if (!controller) return;
    entry.memo?.delete(MIRROR);
    this.#mirrored.delete(entry.name);
    controller.abort();
  }

  /**
   * The natively registered tools this document lists, as Tool handles: its own (not its
   * mirrors), and its descendant frames' unless they are a same-origin frame's mirrors or
   * `listedElsewhere` (what the frames bridge lists) has them. A descriptor that does not name
   * its window (a browser that does not say) counts as a descendant's.
   */
  async tools(
    caller: HandleOwner,
    listedElsewhere?: (name: string, origin: string, description: string) => boolean,
  ): Promise<Tool[]> {
    let registered: NativeRegisteredTool[];
    try {
      registered = await this.context.getTools();
    } catch (error) {
      // A frame the permissions policy keeps from `tools` natively has no native tools to
      // list; its own still are (the generic layer decides coalescing, not this).
      if ((error as { name?: unknown } | null)?.name === 'NotAllowedError') return [];
      throw error;
    }
    const out: Tool[] = [];
    for (const tool of registered) {
      const named = tool.window !== undefined && tool.window !== null;
      if (named && tool.window === this.#window) {
        if (this.#mirrored.has(tool.name)) continue;
      } else {
        // An ancestor's or a sibling's: never listed here.
        if (named && !within(tool.window, this.#window)) continue;
        // A mirror (a frame's, or by name when the browser does not say whose): the frames
        // bridge lists that tool, by its rules, or leaves it out.
        if (named ? mirroredIn(tool.window, tool.name) : this.#mirrored.has(tool.name)) continue;
        if (listedElsewhere?.(tool.name, tool.origin, tool.description)) continue;
      }
      const key = `${tool.origin}\n${tool.name}\n${tool.description}`;
      let handle = this.#byKey.get(key);
      if (!handle) {
        const inputSchema =
          typeof tool.inputSchema === 'string'
            ? (JSON.parse(tool.inputSchema) as object)
            : tool.inputSchema;
        handle = this.#deps.makeTool(caller, {
          name: tool.name,
          title: tool.title ?? '',
          description: tool.description,
          inputSchema: inputSchema as Record<string, unknown> | undefined,
          outputSchema: undefined,
          annotations: tool.annotations,
          origin: tool.origin,
          agentExposed: true,
        });
        this.#byKey.set(key, handle);
      }
      this.#handles.set(handle, tool);
      out.push(handle);
    }
    return out;
  }

  /**
   * Is this native tool the browser's own form tool? Its document (the window the browser
   * names, else this one) has a `<form toolname>` of that name and description. False where
   * that document cannot be read (a frame of another origin): then it counts as a script's.
   */
  declarative(handle: Tool): boolean {
    const tool = this.#handles.get(handle);
    if (!tool) return false;
    try {
      const win = (tool.window ?? this.#window) as Window;
      for (const form of win.document.querySelectorAll('form[toolname]')) {
        if (
          form.getAttribute('toolname') === tool.name &&
          form.getAttribute('tooldescription') === tool.description
        )
          return true;
      }
    } catch {
      // Another origin's document.
    }
    return false;
  }

  /** Calls a native tool: its JSON text result comes back parsed; a plain string as it is. */
  async call(handle: Tool, input: unknown, options: CallToolOptions): Promise<unknown> {
    const tool = this.#handles.get(handle);
    if (!tool || this.#deps.entryOf(handle))
      throw domException(
        'NotFoundError',
        `No native tool named "${handle.name}".`,
        'tool_not_found',
      );
    const text = await this.context.executeTool(
      tool,
      (input ?? {}) as object,
      options.signal ? { signal: options.signal } : {},
    );
    if (text === null) return null;
    // A JSON text, or a tool's string result as the browser hands it back (unquoted).
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
}

/** Is `win` a frame below `ancestor`? (Reads only `parent`, which a cross-origin window allows.) */
function within(win: unknown, ancestor: unknown): boolean {
  try {
    let current = win as Window;
    for (let depth = 0; depth < 64; depth++) {
      const parent = current.parent;
      if (!parent || parent === current) return false;
      if (parent === ancestor) return true;
      current = parent;
    }
  } catch {
    // A window that will not say is not known to be below.
  }
  return false;
}

/** Does the document of `win` (a same-origin frame with toolwire) mirror a tool of that name? */
function mirroredIn(win: unknown, name: string): boolean {
  try {
    const check = (win as Record<symbol, unknown>)[MIRRORS];
    return typeof check === 'function' && check(name) === true;
  } catch {
    // A cross-origin window: its mirrors cannot be told apart.
    return false;
  }
}
