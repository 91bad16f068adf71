/**
 * The native layer, loaded only on browsers that ship `document.modelContext` (the chunk is
 * `polyfill-native.js`): elsewhere it costs nothing. Until it arrives there are no native
 * handles to own, and mirroring waits its turn (in order) behind the load.
 */
import { expanded, namesWebTypes } from './agent-schema.js';
import { chunkFromScript } from './lib/chunks.js';
import { loadLowering } from './lib/lowering.js';
import type { NativeLayer, NativeModelContext } from './native.js';
import type { RegistryEntry } from './registry.js';
import type { HandleOwner } from './tool.js';
import { entryOf, handleOf, Tool } from './tool.js';
import type { CallToolOptions } from './types.js';

export interface NativeHooks {
  onChange(listener: () => void): void;
  owns(tool: object): boolean;
  /** Is this native tool a form's (native.ts NativeLayer.declarative)? */
  declarative(tool: Tool): boolean;
  call(tool: Tool, input: unknown, options: CallToolOptions): Promise<unknown>;
  /** This document's native tools (native.ts: the browser lists every frame's). */
  tools(
    caller: HandleOwner,
    listedElsewhere?: (name: string, origin: string, description: string) => boolean,
  ): Promise<Tool[]>;
  /** Resolves once the mirror is listed natively (or was refused, or left with its tool). */
  mirror(entry: RegistryEntry, caller: HandleOwner): Promise<void> | undefined;
  unmirror(entry: RegistryEntry): void;
}

/** `window`: the document's own, which the browser's descriptors name when they are its. */
export function lazyNative(context: NativeModelContext, window: unknown): NativeHooks {
  let layer: NativeLayer | undefined;
  // The chunk (lib/chunks.ts): from beside the IIFE there, where the import() is dead code.
  const loading = (
    typeof __TOOLWIRE_IIFE__ !== 'undefined'
      ? chunkFromScript<typeof import('./native.js')>('native')
      : import('./native.js')
  ).then((chunk) => {
    layer = new chunk.NativeLayer(
      context,
      {
        handleOf,
        entryOf,
        makeTool: (caller, fields) => new Tool(caller, fields),
        agentInputSchema: async (entry) =>
          entry.inputSchema && namesWebTypes(entry, 'input')
            ? expanded(entry, 'input', await loadLowering())
            : entry.inputSchema,
      },
      window,
    );
    return layer;
  });
  return {
    onChange: (listener) => context.addEventListener('toolchange', listener),
    owns: (tool) => layer?.owns(tool) ?? false,
    declarative: (tool) => layer?.declarative(tool) ?? false,
    call: async (tool, input, options) => (await loading).call(tool, input, options),
    tools: async (caller, listedElsewhere) => (await loading).tools(caller, listedElsewhere),
    mirror: (entry, caller) => {
      if (!entry.agentExposed || entry.layer === 'modelContext') return undefined;
      return loading.then((loaded) => loaded.mirror(entry, caller));
    },
    unmirror: (entry) => void loading.then((loaded) => loaded.unmirror(entry)),
  };
}
