/**
 * @toolwire/host: what a program that runs a host calls. Helpers for this package's tests and
 * for sibling packages are in `@toolwire/host/internal` (internal.ts).
 */

// A session's copy of its page's catalog (HostSession.catalog, .tools()).
export type { CatalogCache, CatalogChange, HostTool } from './catalog/cache.js';
// The `toolwire` CLI, in-process.
export type { CommandIo } from './cli/command.js';
export { EXIT } from './cli/command.js';
export { runCommand } from './cli/run.js';
// The control API the `toolwire` commands use, with its state file.
export type { ControlServer, ControlServerOptions } from './control/server.js';
export { publishControl } from './control/server.js';
// The MCP bridge, over the host in this process or another tool source.
export type { McpBridge, McpBridgeOptions } from './mcp/bridge.js';
export { createMcpBridge } from './mcp/bridge.js';
export type {
  McpCallOptions,
  McpSourceSession,
  McpSourceTool,
  McpTab,
  McpToolSource,
  McpWithheldTool,
} from './mcp/source.js';
// The host and its sessions.
export type {
  CompressMode,
  HostEvents,
  HostOptions,
  PairingLink,
  WaitForSessionOptions,
} from './server/host.js';
export { createHost, Host } from './server/host.js';
export type { PairingCode } from './server/pairing.js';
export type { PairingKind, PairingRecord, PairingStore } from './server/pairing-store.js';
export type {
  BatchOptions,
  CallOptions,
  SessionEvents,
  SessionInfo,
  SessionStats,
  ToolCallOptions,
} from './server/session.js';
export { HostSession } from './server/session.js';
// The codes the host raises itself (beside the protocol's).
export type { HostErrorCode } from './shared/errors.js';
