/**
 * `ui.query_nodes` (read): nodes by automation id, role, text or CSS selector, as references
 * for `ui.perform_action`.
 *
 * - Criteria combine with AND; at least one is required (schema `anyOf`).
 * - Without a selector the candidates are the nodes of the tree (interesting nodes only). A
 *   selector may match any element of the page content (inside `<body>`), interesting or not.
 * - `automationId` matches `data-testid` or `id` exactly; `role` matches the computed role
 *   (case-insensitive); `text` is a case-insensitive substring of the name or the own text
 *   (whitespace collapsed on both sides).
 * - Hidden nodes are left out unless `includeHidden`. Results are in document order; `count`
 *   is the number returned and `truncated` says more matched than `limit`.
 */
import type { BridgeTool } from '@toolwire/protocol';
import { toolFailure } from '@toolwire/protocol';
import { BUILTIN_ERROR_CODES } from './lib/failures.js';
import { hasAutomationId } from './lib/node-state.js';
import type { DomSnapshotter, ModelNode } from './lib/snapshot.js';
import { flatten } from './lib/snapshot.js';
import { collapse, SKIPPED_TAGS } from './lib/text.js';
import { DEFAULT_QUERY_LIMIT } from './query-nodes-definition.js';
import type { QueriedNode, QueryNodesResult } from './types.js';

/** Elements of page content: under the tree root and not inside script, style, SVG... */
function isContent(element: Element, root: Element): boolean {
  if (element !== root && !root.contains(element)) return false;
  for (let node: Element | null = element; node && node !== root; node = node.parentElement) {
    if (SKIPPED_TAGS.has(node.localName)) return false;
    if (node !== element && ['svg', 'math', 'iframe', 'object'].includes(node.localName))
      return false;
  }
  return true;
}

export function queryNodes(snapshotter: DomSnapshotter): BridgeTool['execute'] {
  return (args) => {
    const automationId = typeof args.automationId === 'string' ? args.automationId : undefined;
    const role = typeof args.role === 'string' ? args.role.trim().toLowerCase() : undefined;
    const text =
      typeof args.text === 'string' ? collapse(args.text).toLowerCase() || undefined : undefined;
    const selector = typeof args.selector === 'string' ? args.selector : undefined;
    const limit = typeof args.limit === 'number' ? args.limit : DEFAULT_QUERY_LIMIT;
    const includeHidden = args.includeHidden === true;

    let matched: Element[] | undefined;
    if (selector !== undefined) {
      try {
        matched = Array.from(snapshotter.document.querySelectorAll(selector));
      } catch (error) {
        return toolFailure({
          code: BUILTIN_ERROR_CODES.invalidSelector,
          message: `"${selector}" is not a valid CSS selector: ${error instanceof Error ? error.message : String(error)}`,
          details: { selector },
        });
      }
    }

    const capture = snapshotter.capture();
    const root = snapshotter.rootElement();
    const tree = includeHidden ? snapshotter.walk(root, { includeHidden }) : capture.document;
    const inTree = new Map<Element, ModelNode>();
    for (const node of flatten(tree)) inTree.set(node.element, node);

    let candidates: ModelNode[];
    if (matched) {
      candidates = [];
      for (const element of matched) {
        if (!isContent(element, root)) continue;
        const node = inTree.get(element) ?? snapshotter.describe(element);
        if (includeHidden || node.summary.visible) candidates.push(node);
      }
    } else {
      candidates = [...inTree.values()];
    }

    const nodes: QueriedNode[] = [];
    let truncated = false;
    for (const node of candidates) {
      const { summary, element } = node;
      if (automationId !== undefined && !hasAutomationId(element, automationId)) continue;
      if (role !== undefined && summary.role !== role) continue;
      if (
        text !== undefined &&
        !(summary.name ?? '').toLowerCase().includes(text) &&
        !(summary.text ?? '').toLowerCase().includes(text)
      )
        continue;
      if (nodes.length >= limit) {
        truncated = true;
        break;
      }
      nodes.push({
        reference: {
          source: 'web',
          snapshotId: capture.snapshotId,
          revision: capture.revision,
          nodeId: node.nodeId,
        },
        ...summary,
      });
    }
    const result: QueryNodesResult = {
      snapshotId: capture.snapshotId,
      revision: capture.revision,
      count: nodes.length,
      truncated,
      nodes,
    };
    return result;
  };
}
