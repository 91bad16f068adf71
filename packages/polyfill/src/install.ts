/**
 * `install()`: puts `window.toolManager`, `window.tools` and, where the browser has none,
 * `document.modelContext` on a window. Importing this package does none of it (docs/style.md 7);
 * the IIFE build calls install() on load. Native wins: an existing `document.modelContext`
 * is kept and the generic layer is installed on top of it. Without a document (server-side
 * rendering) it installs nothing and returns a detached installation.
 */

import { watchForms } from './declarative/gate.js';
import { dataError, ToolExecutionError } from './errors.js';
import { ToolActivatedEvent, ToolCancelEvent } from './events.js';
import { FramesGate } from './frames/gate.js';
import { chunkFromScript } from './lib/chunks.js';
import { loadLowering } from './lib/lowering.js';
import { documentOrigin } from './lib/origins.js';
import { policyAnswer } from './lib/permissions.js';
import { ModelContext } from './model-context.js';
import type { NativeModelContext } from './native.js';
import { lazyNative } from './native-proxy.js';
import { ToolRegistry } from './registry.js';
import { Tool } from './tool.js';
import { ToolManager } from './tool-manager.js';
import { Tools } from './tools.js';

export interface Installation {
  toolManager: ToolManager;
  tools: Tools;
  /** Ours, or the browser's own. */
  modelContext: ModelContext | NativeModelContext;
  native: boolean;
  registry: ToolRegistry;
  /**
   * True where there is no document (server-side rendering, plain Node): nothing was
   * installed, and these objects share a registry of their own that no page, frame or agent
   * sees (see detachedInstallation).
   */
  detached: boolean;
}

const INSTALLED = Symbol.for('toolwire.polyfill.installation');

export interface InstallOptions {
  window?: Window & typeof globalThis;
  /** Ignore a native document.modelContext (tests of the polyfill on a native browser). */
  ignoreNative?: boolean;
}

export function install(options: InstallOptions = {}): Installation {
  const win = options.window ?? (globalThis as unknown as Window & typeof globalThis);
  // Server-side rendering imports page code in Node: nothing to install there.
  if (typeof win?.document !== 'object' || win.document === null) return detachedInstallation();
  const existing = (win as unknown as Record<symbol, Installation | undefined>)[INSTALLED];
  if (existing) return existing;
  const doc = win.document;
  const registry = new ToolRegistry(win === globalThis ? documentOrigin() : win.location.origin);
  // Read once: the policy cannot change for the life of a document.
  const ownPolicy = policyAnswer(doc);
  const topLevel = win.parent === win || !win.parent;
  // The generic layer needs the permission only at the top: in frames it decides coalescing.
  const allowed = () => !topLevel || ownPolicy !== false;
  let ours: ModelContext | undefined;
  let tools: Tools | undefined;
  const frames = new FramesGate({
    window: win,
    registry,
    ownPolicy,
    runGeneric: (entry, input, encoding, signal, caller, onProgress) =>
      (tools as Tools).runFor(entry, input, encoding, signal, caller, onProgress),
    runSpec: (entry, input, signal, caller) =>
      ours
        ? // The frames wire carries a string: a form tool's navigation null crosses as "null".
          ours.runFor(entry, input, signal, caller).then((text) => text ?? 'null')
        : Promise.reject(new DOMException('No modelContext polyfill here.', 'UnknownError')),
    toolsChanged: () => tools?.dispatchEvent(new Event('toolchange')),
    specChanged: () => ours?.dispatchEvent(new Event('toolchange')),
    makeTool: (caller, fields) => new Tool(caller, fields),
    rebuildError: {
      toolExecutionError: (toolName: string, cause: unknown) =>
        new ToolExecutionError(toolName, cause),
      dataError,
    },
    loadLowering,
  });

  const nativeContext = options.ignoreNative
    ? undefined
    : (doc as unknown as { modelContext?: NativeModelContext }).modelContext;
  const native = nativeContext ? lazyNative(nativeContext, win) : undefined;
  tools = new Tools(registry, { allowed, native, frames });
  const toolManager = new ToolManager(registry, {
    allowed,
    onRegister: native ? (entry) => native.mirror(entry, tools as Tools) : undefined,
    onUnregister: native ? (entry) => native.unmirror(entry) : undefined,
  });

  let modelContext: ModelContext | NativeModelContext;
  if (nativeContext) {
    modelContext = nativeContext;
  } else {
    const context = new ModelContext(registry, {
      permission: () => frames.allowed,
      ready: frames.ready,
      window: win,
      tools,
      frames,
    });
    ours = context;
    modelContext = context;
    Object.defineProperty(doc, 'modelContext', {
      get: () => context,
      configurable: true,
      enumerable: true,
    });
    defineGlobal(win, 'ModelContext', ModelContext);
    defineGlobal(win, 'ToolActivatedEvent', ToolActivatedEvent);
    defineGlobal(win, 'ToolCancelEvent', ToolCancelEvent);
  }
  defineGlobal(win, 'toolManager', toolManager, true);
  defineGlobal(win, 'tools', tools, true);

  frames.start(ownPolicy !== false);
  // Form tools: loaded only once the document has a tool form.
  watchForms(win, () => {
    // The chunk (lib/chunks.ts): from beside the IIFE there, where the import() is dead code.
    (typeof __TOOLWIRE_IIFE__ !== 'undefined'
      ? chunkFromScript<typeof import('./declarative/forms.js')>('declarative')
      : import('./declarative/forms.js')
    )
      .then((chunk) =>
        chunk.startDeclarative({
          window: win,
          registry,
          events: modelContext,
          activated: (toolName) => new ToolActivatedEvent('toolactivated', { toolName }),
          cancelled: (toolName) => new ToolCancelEvent('toolcancel', { toolName }),
          onRegister: native ? (entry) => native.mirror(entry, tools as Tools) : undefined,
          onUnregister: native ? (entry) => native.unmirror(entry) : undefined,
        }),
      )
      .catch((error: unknown) => console.warn(`toolwire: form tools unavailable: ${error}`));
  });

  const installation: Installation = {
    toolManager,
    tools,
    modelContext,
    native: native !== undefined,
    registry,
    detached: false,
  };
  Object.defineProperty(win, INSTALLED, { value: installation, configurable: true });
  return installation;
}

let detached: Installation | undefined;

/**
 * install() without a document: it defines no global, registers no listener, loads nothing
 * and throws nothing, so page code that calls it (or destructures its answer) survives
 * server-side rendering. The layers work over a registry of their own, kept in this module
 * rather than on any global; the same one is returned every time.
 */
function detachedInstallation(): Installation {
  if (detached) return detached;
  const registry = new ToolRegistry('null');
  const tools = new Tools(registry, { allowed: () => true });
  const modelContext = new ModelContext(registry, {
    permission: () => true,
    ready: Promise.resolve(true),
    // No window here: the realm's global stands in as the tools' `window`.
    window: globalThis as unknown as Window,
    tools,
  });
  detached = {
    toolManager: new ToolManager(registry, { allowed: () => true }),
    tools,
    modelContext,
    native: false,
    registry,
    detached: true,
  };
  return detached;
}

function defineGlobal(win: object, name: string, value: unknown, replace = false): void {
  if (!replace && name in win) return;
  Object.defineProperty(win, name, {
    value,
    configurable: true,
    enumerable: false,
    writable: true,
  });
}
