/** Public types of the built-in `ui.*` tools (issue: "Built-in tools, like the native SDKs'"). */
import type { BridgeTool } from '@toolwire/protocol';

export interface CaptureArguments {
  maxWidth?: number;
  format?: 'png' | 'jpeg';
}

export interface CaptureResult {
  mimeType: string;
  /** Base64 of the image bytes. */
  data: string;
  width: number;
  height: number;
}

/** Captures the page; the page cannot capture itself without help (extension, getDisplayMedia). */
export interface CaptureProvider {
  capture(args: CaptureArguments): Promise<CaptureResult>;
}

export interface BuiltinToolsOptions {
  document: Document;
  captureProvider?: CaptureProvider;
}

export interface BuiltinTools {
  tools: BridgeTool[];
  /** Stops observing the document; the tools then report themselves unavailable. */
  dispose(): void;
}

/** A snapshot-scoped node reference, as `ui.query_nodes` returns and `ui.perform_action` takes. */
export interface NodeReference {
  source: 'web';
  snapshotId: string;
  revision: number;
  nodeId: string;
}

export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What every reported node says about itself; empty fields are omitted. */
export interface NodeSummary {
  role: string;
  name?: string;
  automationId?: string;
  /** The node's own text (its text children), when it differs from the name. */
  text?: string;
  value?: string;
  visible: boolean;
  enabled: boolean;
  checked?: boolean | 'mixed';
  /** Present (true) on selected options and `aria-selected` items only. */
  selected?: true;
}

export interface VisualTreeNode extends NodeSummary {
  nodeId: string;
  bounds?: Bounds;
  children?: VisualTreeNode[];
}

export interface VisualTreeResult {
  snapshotId: string;
  revision: number;
  truncated: boolean;
  nodeCount: number;
  root: VisualTreeNode;
}

export interface QueriedNode extends NodeSummary {
  reference: NodeReference;
}

export interface QueryNodesResult {
  snapshotId: string;
  revision: number;
  count: number;
  /** More nodes matched than `limit` allowed. */
  truncated: boolean;
  nodes: QueriedNode[];
}

export type UiAction =
  | 'tap'
  | 'setText'
  | 'clear'
  | 'focus'
  | 'scrollIntoView'
  | 'select'
  | 'check';

export interface PerformActionResult {
  performed: UiAction;
  nodeId: string;
  /** The snapshot after the action. */
  snapshotId: string;
  revision: number;
  value?: string;
  checked?: boolean | 'mixed';
}
