export type { ControlTarget } from './attach.js';
export { controlRequest, controlToolSource } from './attach.js';
export type { CatalogChange, CatalogQuery, HostTool } from './catalog-cache.js';
export { CatalogCache } from './catalog-cache.js';
export type { ClientArgs, ClientCommand, CommandIo, ParsedCommand } from './command.js';
export { EXIT, formatTable, parseCommand, runCommand } from './command.js';
export type {
  ControlServer,
  ControlServerOptions,
  ControlState,
  SessionSummary,
} from './control.js';
export {
  controlStatePath,
  publishControl,
  readControlState,
  removeControlState,
  startControlServer,
  writeControlState,
} from './control.js';
export type { HostErrorCode } from './errors.js';
export { HOST_ERROR_CODES, hostError } from './errors.js';
export type { HostEvents, HostOptions, PairingLink, WaitForSessionOptions } from './host.js';
export {
  createHost,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_PATH,
  Host,
} from './host.js';
export { NODE_INFLATE_CHUNK_BYTES, nodeInflateText } from './inflate.js';
export type {
  McpBridge,
  McpBridgeOptions,
  McpSourceTool,
  McpToolSource,
  McpWithheldTool,
} from './mcp.js';
export {
  createMcpBridge,
  hostToolSource,
  MCP_PROTOCOL_VERSIONS,
  mcpToolName,
  withheldSummary,
} from './mcp.js';
export type { PairingCode } from './pairing.js';
export { DEFAULT_PAIRING_CODE_TTL_MS, Pairing } from './pairing.js';
export type {
  BatchOptions,
  CallOptions,
  HostSessionOptions,
  SessionEvents,
  SessionInfo,
  SessionStats,
} from './session.js';
export { guardName, HostSession } from './session.js';
export type { SocketTransportOptions } from './socket-transport.js';
export { socketTransport } from './socket-transport.js';
export { createToken, redactToken, redactUrl, tokensEqual } from './token.js';
export type { SecretVerdict, UpgradePolicy, UpgradeVerdict } from './upgrade.js';
export { authorizeUpgrade, normalizeOrigin, PAIRING_REFUSED } from './upgrade.js';
