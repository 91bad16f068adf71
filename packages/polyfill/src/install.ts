/**
 * `install()`: puts `window.toolManager`, `window.tools` and, where the browser has none,
 * `document.modelContext` on a window. Importing this package does none of it (STYLE 7);
 * the IIFE build calls install() on load. Native wins: an existing `document.modelContext`
 * is kept and the generic layer is installed on top of it.
 */
import { ToolActivatedEvent, ToolCancelEvent } from './events.js';
import { documentOrigin } from './lib/origins.js';
import { toolsAllowedByPolicy } from './lib/permissions.js';
import { ModelContext } from './model-context.js';
import type { NativeModelContext } from './native.js';
import { NativeLayer } from './native.js';
import { ToolRegistry } from './registry.js';
import { ToolManager } from './tool-manager.js';
import { Tools } from './tools.js';

export interface Installation {
  toolManager: ToolManager;
  tools: Tools;
  /** Ours, or the browser's own. */
  modelContext: ModelContext | NativeModelContext;
  native: boolean;
  registry: ToolRegistry;
}

const INSTALLED = Symbol.for('toolwire.polyfill.installation');

export interface InstallOptions {
  window?: Window & typeof globalThis;
  /** Ignore a native document.modelContext (tests of the polyfill on a native browser). */
  ignoreNative?: boolean;
}

export function install(options: InstallOptions = {}): Installation {
  const win = options.window ?? (globalThis as unknown as Window & typeof globalThis);
  const existing = (win as unknown as Record<symbol, Installation | undefined>)[INSTALLED];
  if (existing) return existing;
  const doc = win.document;
  const registry = new ToolRegistry(win === globalThis ? documentOrigin() : win.location.origin);
  // Read once: the policy cannot change for the life of a document.
  const allowedOnce = toolsAllowedByPolicy(doc);
  const allowed = () => allowedOnce;

  const nativeContext = options.ignoreNative
    ? undefined
    : (doc as unknown as { modelContext?: NativeModelContext }).modelContext;
  const native = nativeContext ? new NativeLayer(nativeContext) : undefined;
  const tools = new Tools(registry, { allowed, native });
  const toolManager = new ToolManager(registry, {
    allowed,
    onRegister: native ? (entry) => native.mirror(entry, tools) : undefined,
    onUnregister: native ? (entry) => native.unmirror(entry) : undefined,
  });

  let modelContext: ModelContext | NativeModelContext;
  if (nativeContext) {
    modelContext = nativeContext;
  } else {
    const ours = new ModelContext(registry, { allowed, window: win, tools });
    modelContext = ours;
    Object.defineProperty(doc, 'modelContext', {
      get: () => ours,
      configurable: true,
      enumerable: true,
    });
    defineGlobal(win, 'ModelContext', ModelContext);
    defineGlobal(win, 'ToolActivatedEvent', ToolActivatedEvent);
    defineGlobal(win, 'ToolCancelEvent', ToolCancelEvent);
  }
  defineGlobal(win, 'toolManager', toolManager, true);
  defineGlobal(win, 'tools', tools, true);

  const installation: Installation = {
    toolManager,
    tools,
    modelContext,
    native: native !== undefined,
    registry,
  };
  Object.defineProperty(win, INSTALLED, { value: installation, configurable: true });
  return installation;
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
