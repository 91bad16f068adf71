export type {
  Bounds,
  BuiltinErrorCode,
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
} from './builtins/index.js';
export { BUILTIN_ERROR_CODES, createBuiltinTools } from './builtins/index.js';
export type {
  Connection,
  ConnectOptions,
  Connector,
  PairedDetail,
  RefusedDetail,
  SessionStatus,
  ToolCatalogSource,
} from './connect.js';
export { connect, SDK_NAME, SDK_VERSION, Session, webSocketConnector } from './connect.js';
export { readPageTools } from './page-tools.js';
export type { LinkPairingOptions } from './pair-from-link.js';
export {
  linkMayReach,
  PAIRING_STORAGE_KEY,
  pairFromLink,
  parseHosts,
} from './pair-from-link.js';
export type { PairingRequest } from './pairing-prompt.js';
export { askToPair, describeGuard } from './pairing-prompt.js';
export { pageValidator } from './validator.js';
