/**
 * The document as the built-in tools see it: a revision counter, stable node ids, and a walk
 * that reduces the DOM to its "interesting" nodes.
 *
 * 1. Revision: a MutationObserver (subtree, attributes, characterData, childList) adds one per
 *    callback; pending records are flushed (`takeRecords`) whenever the revision is read, so a
 *    read right after a synchronous DOM change already sees the new revision. `input` and
 *    `change` events add one too: form values and checkedness change without any mutation
 *    record, yet they are part of the tree.
 * 2. Node ids: `n<k>`, handed out in document order the first time a walk (or a query) sees an
 *    element, never reused. `WeakMap<Element, id>` one way, `Map<id, WeakRef<Element>>` the
 *    other; a FinalizationRegistry drops the map entry once the element is collected.
 * 3. `snapshotId = "web:<revision>:<hash>"`, the hash being FNV-1a of the compact JSON of the
 *    whole document's default tree (hidden nodes left out, no depth or count bound, no bounds:
 *    layout moves are not DOM changes). It depends on the DOM state only, never on the
 *    arguments of the call that reports it.
 * 4. Interesting nodes: a meaningful role, an automation id, or own text. Other elements are
 *    collapsed (their children move up). Text inside a node whose name already holds it
 *    (buttons, links, headings... ARIA "children presentational" or name from content) is not
 *    repeated as child nodes. Shadow roots, iframes and SVG internals are not walked.
 */
import type { NodeSummary } from '../types.js';
import { computeName } from './accessible-name.js';
import { fnv1a32 } from './hash.js';
import { automationIdOf, checkedOf, reportedValueOf, selectedOf } from './node-state.js';
import { PRESENTATIONAL_CHILDREN_ROLES, roleOf, STRUCTURAL_ROLES } from './roles.js';
import { clean, directText, SKIPPED_TAGS } from './text.js';
import { hasHiddenAncestor, isEnabled, isHiddenSelf, isVisibilityHidden } from './visibility.js';

export interface ModelNode {
  element: Element;
  nodeId: string;
  summary: NodeSummary;
  children: ModelNode[];
  /** The node's name already holds its descendants' text (children presentational, or name from content). */
  absorbsText: boolean;
}

export interface WalkOptions {
  includeHidden: boolean;
}

export interface Capture {
  revision: number;
  snapshotId: string;
  /** The document's default tree (what the hash covers). */
  document: ModelNode;
}

// Elements whose children are not page content the walk can describe.
const OPAQUE_TAGS: ReadonlySet<string> = new Set(['svg', 'math', 'iframe', 'object', 'canvas']);

export class DomSnapshotter {
  readonly document: Document;
  #revision = 1;
  #nextId = 1;
  #ids = new WeakMap<Element, string>();
  #elements = new Map<string, WeakRef<Element>>();
  #registry: FinalizationRegistry<string> | undefined;
  #observer: MutationObserver | undefined;
  #disposed = false;

  constructor(document: Document) {
    this.document = document;
    const view = document.defaultView;
    const Observer = view?.MutationObserver ?? globalThis.MutationObserver;
    if (Observer) {
      this.#observer = new Observer(this.#onMutations);
      this.#observer.observe(document, {
        subtree: true,
        attributes: true,
        characterData: true,
        childList: true,
      });
    }
    document.addEventListener('input', this.#onFormEvent, true);
    document.addEventListener('change', this.#onFormEvent, true);
    if (typeof FinalizationRegistry === 'function') {
      this.#registry = new FinalizationRegistry((nodeId) => {
        if (this.#elements.get(nodeId)?.deref() === undefined) this.#elements.delete(nodeId);
      });
    }
  }

  #onMutations = (): void => {
    this.#revision++;
  };

  #onFormEvent = (): void => {
    this.#revision++;
  };

  get disposed(): boolean {
    return this.#disposed;
  }

  /** The current revision, counting mutations not yet delivered to the observer. */
  revision(): number {
    if (this.#observer && this.#observer.takeRecords().length > 0) this.#revision++;
    return this.#revision;
  }

  /** The element's node id, assigned on first sight. */
  idOf(element: Element): string {
    let nodeId = this.#ids.get(element);
    if (nodeId === undefined) {
      nodeId = `n${this.#nextId++}`;
      this.#ids.set(element, nodeId);
      this.#elements.set(nodeId, new WeakRef(element));
      this.#registry?.register(element, nodeId);
    }
    return nodeId;
  }

  /**
   * The element a node id names, or undefined when it is gone: never issued here, collected,
   * disconnected, or moved to another document. A revision newer than the reference's does not
   * make it stale on its own (see perform-action.ts).
   */
  resolve(nodeId: string): Element | undefined {
    const element = this.#elements.get(nodeId)?.deref();
    if (!element?.isConnected || element.ownerDocument !== this.document) return undefined;
    return element;
  }

  /** The root of the document tree: `<body>` (or the document element), reported as `document`. */
  rootElement(): Element {
    const root = this.document.body ?? this.document.documentElement;
    if (!root) throw new Error('The document has no root element.');
    return root;
  }

  /** The revision, the snapshot id, and the document's default tree. */
  capture(): Capture {
    const revision = this.revision();
    const document = this.walk(this.rootElement(), { includeHidden: false });
    const snapshotId = `web:${revision}:${fnv1a32(JSON.stringify(serialize(document)))}`;
    return { revision, snapshotId, document };
  }

  /** The tree under `root` (always reported itself, whatever it is). */
  walk(root: Element, options: WalkOptions): ModelNode {
    const hidden = isHiddenSelf(root) || hasHiddenAncestor(root);
    const node = this.describe(root, hidden);
    if (root === this.rootElement()) {
      node.summary.role = 'document';
      const title = clean(this.document.title);
      if (title) node.summary.name = title;
      else delete node.summary.name;
      node.absorbsText = false;
    }
    const absorb = node.absorbsText;
    if (!OPAQUE_TAGS.has(root.localName))
      for (let child = root.firstElementChild; child; child = child.nextElementSibling)
        this.#collect(child, hidden, absorb, options, node.children);
    return node;
  }

  /** One element as a node, whether or not a walk would report it. */
  describe(element: Element, hiddenSubtree?: boolean): ModelNode {
    const subtreeHidden = hiddenSubtree ?? (isHiddenSelf(element) || hasHiddenAncestor(element));
    return this.#build(element, roleOf(element), subtreeHidden, false);
  }

  #build(element: Element, role: string, subtreeHidden: boolean, absorbed: boolean): ModelNode {
    const { name, fromContent } = computeName(element, role);
    // Optional fields are set only when present: empty fields are omitted on the wire.
    const summary = { role } as NodeSummary;
    if (name !== undefined) summary.name = name;
    const automationId = automationIdOf(element);
    if (automationId !== undefined) summary.automationId = automationId;
    const text = absorbed ? undefined : directText(element);
    if (text !== undefined && text !== name) summary.text = text;
    const value = reportedValueOf(element);
    if (value !== undefined) summary.value = value;
    summary.visible = !subtreeHidden && !isVisibilityHidden(element);
    summary.enabled = isEnabled(element);
    const checked = checkedOf(element, role);
    if (checked !== undefined) summary.checked = checked;
    if (selectedOf(element)) summary.selected = true;
    return {
      element,
      nodeId: this.idOf(element),
      summary,
      children: [],
      absorbsText:
        fromContent || PRESENTATIONAL_CHILDREN_ROLES.has(role) || element.localName === 'select',
    };
  }

  #collect(
    element: Element,
    ancestorHidden: boolean,
    absorbed: boolean,
    options: WalkOptions,
    out: ModelNode[],
  ): void {
    if (SKIPPED_TAGS.has(element.localName)) return;
    const subtreeHidden = ancestorHidden || isHiddenSelf(element);
    if (subtreeHidden && !options.includeHidden) return;
    const role = roleOf(element);
    const interesting =
      !STRUCTURAL_ROLES.has(role) ||
      automationIdOf(element) !== undefined ||
      (!absorbed && directText(element) !== undefined);
    let node: ModelNode | undefined;
    if (interesting && (options.includeHidden || (!subtreeHidden && !isVisibilityHidden(element))))
      node = this.#build(element, role, subtreeHidden, absorbed);
    if (!OPAQUE_TAGS.has(element.localName)) {
      const childAbsorbed = absorbed || node?.absorbsText === true;
      const target = node ? node.children : out;
      for (let child = element.firstElementChild; child; child = child.nextElementSibling)
        this.#collect(child, subtreeHidden, childAbsorbed, options, target);
    }
    if (node) out.push(node);
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#observer?.disconnect();
    this.document.removeEventListener('input', this.#onFormEvent, true);
    this.document.removeEventListener('change', this.#onFormEvent, true);
    this.#elements.clear();
  }
}

/** The hashed form: id, summary and children, compact and in document order. */
function serialize(node: ModelNode): unknown[] {
  return [node.nodeId, node.summary, node.children.map(serialize)];
}

/** Every node of a tree in document order (pre-order). */
export function flatten(root: ModelNode, out: ModelNode[] = []): ModelNode[] {
  out.push(root);
  for (const child of root.children) flatten(child, out);
  return out;
}
