export { createBuiltinTools } from './create-builtin-tools.js';
export type { BuiltinErrorCode } from './lib/failures.js';
export { BUILTIN_ERROR_CODES } from './lib/failures.js';
export type {
  Bounds,
  BuiltinTools,
  BuiltinToolsOptions,
  CaptureArguments,
  CaptureProvider,
  CaptureResult,
  NodeReference,
  NodeSummary,
  PerformActionResult,
  QueriedNode,
  QueryNodesResult,
  UiAction,
  VisualTreeNode,
  VisualTreeResult,
} from './types.js';
