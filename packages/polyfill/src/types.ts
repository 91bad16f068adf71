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

/** One progress report, as `callTool`'s `onProgress` receives it (absent members are left out). */
export interface ToolProgress {
  /** Finite, and greater than every earlier report of the call. */
  progress: number;
  /** Finite, when the tool knows it. */
  total?: number;
  /** At most 1,024 UTF-16 code units (longer ones are clipped). */
  message?: string;
}

export interface ToolExecuteContext {
  signal: AbortSignal;
  caller: ToolCaller;
  /**
   * Tells the caller how far the call has come. Never throws, and returns nothing: a report
   * that is not finite, or does not increase, or comes after the call ended, is dropped. When
   * the caller did not ask (no `onProgress`), it does nothing.
   */
  reportProgress(progress: number, total?: number, message?: string): void;
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
  /**
   * Not here: `register()` refuses a top-level description with a TypeError. It goes in
   * `naturalLanguageProperties`, whose presence shows the tool to agents.
   */
  description?: never;
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
  /**
   * Receives the tool's `reportProgress` reports, each checked (docs/browser-api.md
   * "Progress"), all before the call settles. Native tools report none.
   */
  onProgress?(progress: ToolProgress): void;
}
