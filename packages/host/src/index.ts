export type { CatalogChange, CatalogQuery, HostTool } from './catalog/cache.js';
export { CatalogCache } from './catalog/cache.js';
export type { ClientArgs, CommandIo, ParsedCommand } from './cli/command.js';
export { EXIT } from './cli/command.js';
export { formatTable } from './cli/format.js';
export { parseCommand, runCommand } from './cli/run.js';
export type { ControlTarget } from './control/client.js';
export { controlRequest } from './control/client.js';
export type { ControlServer, ControlServerOptions } from './control/server.js';
export { publishControl, startControlServer } from './control/server.js';
export type { ControlState } from './control/state-file.js';
export {
  controlStatePath,
  readControlState,
  removeControlState,
  writeControlState,
} from './control/state-file.js';
export type { SessionSummary } from './control/views.js';
export type { McpBridge, McpBridgeOptions } from './mcp/bridge.js';
export { createMcpBridge, MCP_PROTOCOL_VERSIONS, mcpToolName } from './mcp/bridge.js';
export { controlToolSource } from './mcp/control-source.js';
export { hostToolSource } from './mcp/host-source.js';
export type { McpSourceTool, McpToolSource, McpWithheldTool } from './mcp/source.js';
export { withheldSummary } from './mcp/source.js';
export type { HostEvents, HostOptions, PairingLink, WaitForSessionOptions } from './server/host.js';
export {
  createHost,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_PATH,
  Host,
} from './server/host.js';
export { NODE_INFLATE_CHUNK_BYTES, nodeInflateText } from './server/inflate.js';
export type { PairingCode } from './server/pairing.js';
export { DEFAULT_PAIRING_CODE_TTL_MS, Pairing } from './server/pairing.js';
export type {
  BatchOptions,
  CallOptions,
  HostSessionOptions,
  SessionEvents,
  SessionInfo,
  SessionStats,
} from './server/session.js';
export { guardName, HostSession } from './server/session.js';
export type { SocketTransportOptions } from './server/socket-transport.js';
export { socketTransport } from './server/socket-transport.js';
export type { SecretVerdict, UpgradePolicy, UpgradeVerdict } from './server/upgrade.js';
export { authorizeUpgrade, normalizeOrigin, PAIRING_REFUSED } from './server/upgrade.js';
export type { HostErrorCode } from './shared/errors.js';
export { HOST_ERROR_CODES, hostError } from './shared/errors.js';
export { createToken, redactToken, redactUrl, tokensEqual } from './shared/token.js';
