/**
 * `ui.get_visual_tree` (read): a compact tree of the page's accessible nodes.
 *
 * - `maxDepth` counts levels: 1 is the root alone. `maxNodes` is spent breadth-first, so a
 *   bounded tree keeps the page's outline rather than the first deep branch; the kept nodes are
 *   then written out in document order. `truncated` says whether anything was left out.
 * - `rootNodeId` starts the tree at a node from an earlier call; a node that is gone fails
 *   `stale_node_reference` like `ui.perform_action` does.
 * - `snapshotId` always describes the whole document (snapshot.ts), not the bounded answer.
 */
import type { BridgeTool } from '@toolwire/protocol';
import { DEFAULT_MAX_DEPTH as MAX_JSON_DEPTH } from '@toolwire/protocol';
import { staleReference } from './lib/failures.js';
import { boundsOf } from './lib/node-state.js';
import type { DomSnapshotter, ModelNode } from './lib/snapshot.js';
import type { VisualTreeNode, VisualTreeResult } from './types.js';
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_NODES } from './visual-tree-definition.js';

/**
 * Levels that fit the bridge's default JSON depth (128): a level-k node sits at depth 2k of the
 * result and its bounds at 2k + 1, so level 64 would fail `tool_protocol_bridge_failed`. A
 * page really 64 interesting levels deep is cut at 63 and reported `truncated`.
 */
const MAX_LEVELS = Math.floor((MAX_JSON_DEPTH - 1) / 2);

/** Picks the nodes to report: breadth-first within maxDepth levels and maxNodes nodes. */
function select(
  root: ModelNode,
  maxDepth: number,
  maxNodes: number,
): { kept: Set<ModelNode>; truncated: boolean } {
  const kept = new Set<ModelNode>([root]);
  let truncated = false;
  let level = [root];
  for (let depth = 2; level.length > 0; depth++) {
    const next: ModelNode[] = [];
    for (const node of level) {
      for (const child of node.children) {
        if (depth > maxDepth || kept.size >= maxNodes) {
          truncated = true;
          continue;
        }
        kept.add(child);
        next.push(child);
      }
    }
    level = next;
  }
  return { kept, truncated };
}

function render(node: ModelNode, kept: Set<ModelNode>): VisualTreeNode {
  const { role, name, automationId, text, value, visible, enabled, checked, selected } =
    node.summary;
  // Key order is the order a reader scans: identity, content, geometry, state, children.
  const out = { nodeId: node.nodeId, role } as VisualTreeNode;
  if (name !== undefined) out.name = name;
  if (automationId !== undefined) out.automationId = automationId;
  if (text !== undefined) out.text = text;
  if (value !== undefined) out.value = value;
  const bounds = boundsOf(node.element);
  if (bounds) out.bounds = bounds;
  out.visible = visible;
  out.enabled = enabled;
  if (checked !== undefined) out.checked = checked;
  if (selected) out.selected = selected;
  const children = node.children.filter((child) => kept.has(child));
  if (children.length > 0) out.children = children.map((child) => render(child, kept));
  return out;
}

export function visualTree(snapshotter: DomSnapshotter): BridgeTool['execute'] {
  return (args) => {
    const maxDepth = Math.min(
      MAX_LEVELS,
      typeof args.maxDepth === 'number' ? args.maxDepth : DEFAULT_MAX_DEPTH,
    );
    const maxNodes = typeof args.maxNodes === 'number' ? args.maxNodes : DEFAULT_MAX_NODES;
    const includeHidden = args.includeHidden === true;
    const capture = snapshotter.capture();
    let tree = capture.document;
    if (typeof args.rootNodeId === 'string') {
      const element = snapshotter.resolve(args.rootNodeId);
      if (!element) return staleReference(args.rootNodeId, 'is no longer in the page');
      tree = snapshotter.walk(element, { includeHidden });
    } else if (includeHidden) {
      tree = snapshotter.walk(snapshotter.rootElement(), { includeHidden });
    }
    const { kept, truncated } = select(tree, maxDepth, maxNodes);
    const result: VisualTreeResult = {
      snapshotId: capture.snapshotId,
      revision: capture.revision,
      truncated,
      nodeCount: kept.size,
      root: render(tree, kept),
    };
    return result;
  };
}
