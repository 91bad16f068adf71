/**
 * `@toolwire/host/internal`: the parts this package's tests, benchmarks and e2e suites reach
 * into. Not the public API (index.ts): names here may change with any release.
 */
export type { CatalogQuery } from './catalog/cache.js';
export { CatalogCache } from './catalog/cache.js';
export type { ClientArgs, ParsedCommand } from './cli/command.js';
export { COMMANDS } from './cli/commands.js';
export { formatTable } from './cli/format.js';
export { parseCommand } from './cli/run.js';
export { controlChannel } from './control/channel.js';
export type { ControlTarget } from './control/client.js';
export { controlRequest } from './control/client.js';
export { startControlServer } from './control/server.js';
export type { ControlState } from './control/state-file.js';
export {
  claimControlState,
  controlStatePath,
  HostRunningError,
  readControlState,
  removeControlState,
  writeControlState,
} from './control/state-file.js';
export { MCP_PROTOCOL_VERSIONS } from './mcp/bridge.js';
export { controlToolSource } from './mcp/control-source.js';
export { McpToolNames, mcpToolName, sessionLabel, withheldNamed } from './mcp/naming.js';
export { extensionOrigin } from './server/extension-origin.js';
export { NODE_INFLATE_CHUNK_BYTES, nodeInflateText } from './server/inflate.js';
export { nodeHmac, Pairing } from './server/pairing.js';
export { FilePairingStore } from './server/pairing-file.js';
export { PAIRING_IDLE_EXPIRY_MS } from './server/pairing-store.js';
export type { HostSessionOptions } from './server/session.js';
export type { SocketTransportOptions } from './server/socket-transport.js';
export { socketTransport } from './server/socket-transport.js';
export { authorizeUpgrade } from './server/upgrade.js';
export { createToken, redactUrl, tokensEqual } from './shared/token.js';
