export type { ToolInput, ToolManagerLike, UseToolResult } from './types.js';
export { useTool, useTools } from './use-tool.js';
