/**
 * The built-in `ui.*` tools' implementations (loaded on the first `ui.*` call,
 * not with the page): one DomSnapshotter shared by the three DOM tools, so node ids and revisions
 * mean the same thing in each. The endpoint's IIFE fetches this module as the lazy chunk
 * `polyfill-ui-builtins.js`; create-builtin-tools.ts lists the tools before it is loaded.
 */
import type { BridgeTool } from '@toolwire/protocol';
import { DomSnapshotter } from './lib/snapshot.js';
import { performAction } from './perform-action.js';
import { queryNodes } from './query-nodes.js';
import { visualTree } from './visual-tree.js';

export interface BuiltinRuntime {
  /** Each DOM tool's execute, by id. */
  execute: Readonly<Record<string, BridgeTool['execute']>>;
  /** Stops observing the document. */
  dispose(): void;
}

/** Starts observing `document` (its revision counts from here) and returns the tools' executes. */
export function createBuiltinRuntime(document: Document): BuiltinRuntime {
  const snapshotter = new DomSnapshotter(document);
  return {
    execute: {
      'ui.get_visual_tree': visualTree(snapshotter),
      'ui.query_nodes': queryNodes(snapshotter),
      'ui.perform_action': performAction(snapshotter),
    },
    dispose: () => snapshotter.dispose(),
  };
}
