/** Public types of the generic tool-calling API (docs/browser-api.md "Registering", "Reading and calling"). */

export type JsonSchema = { [key: string]: unknown };
export type ToolPolicy = 'read' | 'write' | 'critical';
export type CallEncoding = 'structured' | 'json';

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  untrustedContentHint?: boolean;
  consequentialHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  debugging?: boolean;
}

/** Presence exposes the tool to AI agents (browser agent, extensions, the WebSocket endpoint). */
export interface NaturalLanguageProperties {
  title?: string;
  description: string;
  annotations?: ToolAnnotations;
  inputSchema?: JsonSchema;
  outputSchema?: JsonSchema;
  category?: string;
  keywords?: string[];
  prerequisites?: string[];
}

export type AvailabilityResult =
  | true
  | {
      available: false;
      code?: string;
      reason?: string;
      requiredState?: string;
      remediation?: string;
      retryable?: boolean;
    };

export interface ToolCaller {
  origin: string;
}

export interface ToolExecuteContext {
  signal: AbortSignal;
  caller: ToolCaller;
}

export interface ToolDefinition {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: a tool declares its own input type; `unknown` would force a cast on every tool.
  execute(input: any, context: ToolExecuteContext): unknown;
  /** Origins (or '*') whose execution contexts may see and call the tool; default same-origin. */
  exposedTo?: string[];
  inputSchema?: JsonSchema;
  outputSchema?: JsonSchema;
  naturalLanguageProperties?: NaturalLanguageProperties;
  /** Wire policy; default from annotations: readOnlyHint -> read, destructiveHint -> critical, else write. */
  policy?: ToolPolicy;
  availability?(): AvailabilityResult;
}

export interface RegisterOptions {
  signal?: AbortSignal;
}

export interface GetToolsOptions {
  /** Only tools with naturalLanguageProperties (what agents see). */
  agentOnly?: boolean;
}

export interface CallToolOptions {
  signal?: AbortSignal;
  /** `structured` (default): values as structured clones. `json`: the agent boundary. */
  encoding?: CallEncoding;
}
