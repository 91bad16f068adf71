/**
 * `createBuiltinTools`: the native SDKs' built-in `ui.*` tools for a web page (issue: "Built-in
 * tools, like the native SDKs'"), as BridgeTools for `createToolBridge`. They share one
 * DomSnapshotter, so node ids and revisions mean the same thing in every tool, and in the
 * `after` evidence the bridge captures with them.
 */
import { DomSnapshotter } from './lib/snapshot.js';
import { performActionTool } from './perform-action.js';
import { queryNodesTool } from './query-nodes.js';
import { screenshotTool } from './screenshot.js';
import type { BuiltinTools, BuiltinToolsOptions } from './types.js';
import { visualTreeTool } from './visual-tree.js';

export function createBuiltinTools(options: BuiltinToolsOptions): BuiltinTools {
  const snapshotter = new DomSnapshotter(options.document);
  const tools = [
    visualTreeTool(snapshotter),
    queryNodesTool(snapshotter),
    performActionTool(snapshotter),
    screenshotTool(options.captureProvider, () => snapshotter.disposed),
  ];
  return {
    tools,
    dispose: () => snapshotter.dispose(),
  };
}
