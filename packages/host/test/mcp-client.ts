// The MCP SDK's client side, re-exported for e2e/host.e2e.ts (the SDK is a dependency of
// @toolwire/host, so it resolves from here and not from the repository root).
export { Client } from '@modelcontextprotocol/sdk/client/index.js';
export { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
export { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
