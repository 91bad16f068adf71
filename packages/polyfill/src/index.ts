export type {
  DefinedTool,
  InputOf,
  OutputOf,
  ToolDefinitionErrorCode,
  ToolSchema,
  ToolSpec,
} from './define-tool.js';
export { defineTool, TOOL_DEFINITION_ERROR_CODES, ToolDefinitionError } from './define-tool.js';
export type { DataError } from './errors.js';
export { dataError, ToolExecutionError } from './errors.js';
export type { ToolEventInit } from './events.js';
export { ToolActivatedEvent, ToolCancelEvent } from './events.js';
export type { FromSchema, JsonSchemaLike } from './from-schema.js';
export type { Installation, InstallOptions } from './install.js';
export { install } from './install.js';
export { loadLowering } from './lib/lowering.js';
export type { DocumentModelContext, ModelContextTool } from './model-context.js';
export { ModelContext } from './model-context.js';
export type { ModelContextToolAnnotations, RegisteredTool } from './registered-tool.js';
export { ToolRegistry } from './registry.js';
export { Tool } from './tool.js';
export { ToolManager } from './tool-manager.js';
export { Tools } from './tools.js';
export type * from './types.js';
export { canEval, loadValidator } from './validation/load.js';
export { trivialCheck } from './validation/trivial.js';
export type { SchemaValidator, ValidationIssue } from './validation/types.js';
export type { ToolWireInfo } from './wire/info.js';
