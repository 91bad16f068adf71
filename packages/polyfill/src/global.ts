/**
 * `import '@toolwire/polyfill/global'`: types the globals `install()` (or the IIFE) defines,
 * for pages that use them by name. A module with nothing in it at run time: importing it
 * installs nothing (call install(), or load polyfill.iife.js, for that).
 *
 * `document.modelContext` is the browser's own where it ships one (native wins), so it is
 * typed as the spec surface both provide, not as the polyfill's class.
 */
import type { DocumentModelContext } from './model-context.js';
import type { ToolManager } from './tool-manager.js';
import type { Tools } from './tools.js';

declare global {
  interface Window {
    /** Registers tools (docs/browser-api.md "Registering"). Defined by install() or polyfill.iife.js. */
    toolManager: ToolManager;
    /** Lists and calls tools (docs/browser-api.md "Reading and calling"). */
    tools: Tools;
  }

  /** `toolManager` and `globalThis.toolManager`. */
  var toolManager: ToolManager;
  /** `tools` and `globalThis.tools`. */
  var tools: Tools;

  interface Document {
    /** WebMCP's `document.modelContext`: the browser's own, or the polyfill's. */
    readonly modelContext: DocumentModelContext;
  }
}
