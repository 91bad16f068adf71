export type { ToolManagerLike, UseToolResult } from './types.js';
export { useTool } from './use-tool.js';
