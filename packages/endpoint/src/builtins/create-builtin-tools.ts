/**
 * `createBuiltinTools`: the native SDKs' built-in `ui.*` tools for a web page (issue: "Built-in
 * tools, like the native SDKs'"), as BridgeTools for `createToolBridge`.
 *
 * Their catalog entries (ids, descriptions, schemas, policies: `*-definition.ts`) and their
 * availability are in the page script, so a host lists them at once; the DOM tools' implementations (runtime.ts, about 7 KB gzipped) load
 * on the first `ui.*` call, and start observing the document
 * then: revisions count from that call. A load that fails answers that call
 * `toolwire_chunk_load_failed` (retryable: the next call tries again), never a hang.
 * `ui.get_screenshot` only calls the page's capture provider, and stays here.
 */
import type { BridgeTool, ToolFailureOutcome } from '@toolwire/protocol';
import { toolFailure } from '@toolwire/protocol';
import { loadBuiltinRuntime } from '../chunks.js';
import { BUILTIN_ERROR_CODES, DISPOSED } from './lib/failures.js';
import { performActionDefinition } from './perform-action-definition.js';
import { queryNodesDefinition } from './query-nodes-definition.js';
import type { BuiltinRuntime } from './runtime.js';
import { screenshotTool } from './screenshot.js';
import type { BuiltinTools, BuiltinToolsOptions } from './types.js';
import { visualTreeDefinition } from './visual-tree-definition.js';

/** The answer to a call whose implementation could not be loaded. */
function loadFailure(error: unknown): ToolFailureOutcome {
  const { file, url } = error as { file?: unknown; url?: unknown };
  return toolFailure({
    code: BUILTIN_ERROR_CODES.chunkLoadFailed,
    message: error instanceof Error ? error.message : String(error),
    retryable: true,
    details: {
      ...(typeof file === 'string' ? { file } : {}),
      ...(typeof url === 'string' ? { url } : {}),
    },
  });
}

export function createBuiltinTools(options: BuiltinToolsOptions): BuiltinTools {
  let disposed = false;
  let runtime: BuiltinRuntime | undefined;
  let loading: Promise<BuiltinRuntime> | undefined;
  const load = (): Promise<BuiltinRuntime> => {
    loading ??= loadBuiltinRuntime().then(
      (module) => {
        runtime = module.createBuiltinRuntime(options.document);
        // Disposed while loading: stop observing at once.
        if (disposed) runtime.dispose();
        return runtime;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  const isDisposed = () => disposed;
  const lazy = (definition: BridgeTool['definition']): BridgeTool => ({
    definition,
    availability: () => (disposed ? DISPOSED : true),
    execute(args, context) {
      // Loaded: no extra promise hop.
      if (runtime) return runtime.execute[definition.id]?.(args, context);
      return load().then((loaded) => loaded.execute[definition.id]?.(args, context), loadFailure);
    },
  });
  const tools = [
    lazy(visualTreeDefinition),
    lazy(queryNodesDefinition),
    lazy(performActionDefinition),
    screenshotTool(options.captureProvider, isDisposed),
  ];
  return {
    tools,
    dispose: () => {
      disposed = true;
      runtime?.dispose();
    },
  };
}
