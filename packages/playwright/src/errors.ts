/**
 * The one error the helper rejects with: a coded `WebMCPError`, whichever path the call took.
 * The codes are the wire contract's names where one fits (docs/wire.md "Error codes"), so a
 * test reads the same code a host would see.
 */

/** Which WebMCP the helper used: Playwright's `page.webmcp`, or the polyfill's `window.tools`. */
export type WebMCPPath = 'native' | 'polyfill';

export type WebMCPErrorCode =
  /** No tool of that name is listed for the page. */
  | 'tool_not_found'
  /** The input failed the tool's `inputSchema` (told apart on the polyfill path only). */
  | 'tool_arguments_invalid'
  /** The page's permission rules refused the call (polyfill path only). */
  | 'tool_execution_denied'
  /** The tool's own code threw or rejected. */
  | 'tool_execution_exception'
  /** The call (or listing) did not settle within the `timeout` given. */
  | 'tool_execution_timeout'
  /** The result failed the tool's `outputSchema`, or could not be lowered to JSON. */
  | 'tool_result_schema_invalid'
  /** The page has neither a native WebMCP Playwright can reach nor the polyfill. */
  | 'webmcp_unavailable'
  /** Anything else: the message says what. */
  | 'tool_call_failed';

export class WebMCPError extends Error {
  override name = 'WebMCPError';
  readonly code: WebMCPErrorCode;
  /** The tool called, when there was one. */
  readonly toolName: string | undefined;
  readonly via: WebMCPPath;

  constructor(code: WebMCPErrorCode, message: string, via: WebMCPPath, toolName?: string) {
    super(message);
    this.code = code;
    this.via = via;
    this.toolName = toolName;
  }
}

/** The polyfill's error names (docs/browser-api.md "Errors from callTool") as codes. */
const POLYFILL_CODES: Record<string, WebMCPErrorCode> = {
  NotFoundError: 'tool_not_found',
  DataError: 'tool_arguments_invalid',
  NotAllowedError: 'tool_execution_denied',
  ToolExecutionError: 'tool_execution_exception',
  OperationError: 'tool_result_schema_invalid',
};

export function polyfillCode(errorName: string): WebMCPErrorCode {
  return POLYFILL_CODES[errorName] ?? 'tool_call_failed';
}

/**
 * Playwright's own `webMCP.callTool` failures, read from their message (its only signal):
 * an unknown name, or the browser's one "invocation failed" for anything the tool's side did
 * (a throw, and also a polyfill tool refusing its input: the browser does not say which).
 */
export function nativeCode(message: string): WebMCPErrorCode {
  if (isTimeout(message)) return 'tool_execution_timeout';
  if (/No WebMCP tool named/i.test(message)) return 'tool_not_found';
  if (/invocation failed/i.test(message)) return 'tool_execution_exception';
  return 'tool_call_failed';
}

/** Playwright's answer when an action's `timeout` ran out. */
export function isTimeout(message: string): boolean {
  return /^Timeout \d+ms exceeded/i.test(message);
}

/** Playwright's message without its `webMCP.x:` prefix and call log: its first line. */
export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? '').replace(/^webMCP\.\w+:\s*/, '');
}
