/**
 * The one error the helper rejects with: a coded `WebMCPError`, whichever path the call took.
 * Its `code`, `retryable` and `details` are the wire contract's (docs/wire.md "Error codes"):
 * a failure in the page goes through `@toolwire/polyfill/wire`'s one mapping, `wireFailure`,
 * which reads the error's properties (the polyfill's `toolCode` and `issues`, else the
 * browser's DOMException name), never its words. So a test reads the code a host would see.
 */
import type { ToolErrorCode, ToolPolicy } from '@toolwire/polyfill/wire';
import { wireFailure } from '@toolwire/polyfill/wire';

/** Which WebMCP the helper used: Playwright's `page.webmcp`, or the polyfill's `window.tools`. */
export type WebMCPPath = 'native' | 'polyfill';

/**
 * A code of the one table (`TOOL_ERROR_CODES` in `@toolwire/protocol`). The helper's own:
 * `tool_not_found` (not listed for the page), `tool_arguments_invalid` (arguments that are not
 * a JSON object), `tool_execution_timeout` (past the `timeout` given), `webmcp_unavailable` (no
 * WebMCP Playwright can reach, nor the polyfill), `tool_call_failed` (anything else); the page's
 * failures as wireFailure codes them (README "Errors").
 */
export type WebMCPErrorCode = ToolErrorCode;

export class WebMCPError extends Error {
  override name = 'WebMCPError';
  readonly code: WebMCPErrorCode;
  /** Whether calling again may succeed (a timed-out `read` tool, say): the wire's `retryable`. */
  readonly retryable: boolean;
  /** The wire's `details`: a schema failure's `$`-rooted issues, a throw's `{name, message}`. */
  readonly details: unknown;
  /** The tool called, when there was one. */
  readonly toolName: string | undefined;
  readonly via: WebMCPPath;

  constructor(
    code: WebMCPErrorCode,
    message: string,
    via: WebMCPPath,
    toolName?: string,
    extra: { retryable?: boolean; details?: unknown } = {},
  ) {
    super(message);
    this.code = code;
    this.via = via;
    this.toolName = toolName;
    this.retryable = extra.retryable ?? false;
    this.details = extra.details ?? null;
  }
}

/**
 * What the page rejected with, as the in-page functions report it: the properties the mapping
 * reads (`name`, `message`, `toolCode`, `issues`, `errors`, `cause`...), copied as JSON.
 */
export type PageError = Record<string, unknown>;

/** A failure in the page as a WebMCPError, through the one mapping. */
export function pageFailure(
  error: PageError,
  via: WebMCPPath,
  toolName: string,
  policy: ToolPolicy,
  inputSchema?: unknown,
): WebMCPError {
  const { code, message, retryable, details } = wireFailure(error, {
    toolId: toolName,
    policy,
    // A schema failure's message is read against the listed schema, as the wire's is.
    schemas: { input: inputSchema },
  });
  return new WebMCPError(code as WebMCPErrorCode, message, via, toolName, { retryable, details });
}

/**
 * A rejection as a WebMCPError: one already is; anything else is Playwright's own (the page
 * closed or navigated during `evaluate`), `tool_call_failed` with its first line.
 */
export function evaluateFailed(via: WebMCPPath, toolName?: string) {
  return (error: unknown): never => {
    if (error instanceof WebMCPError) throw error;
    throw new WebMCPError('tool_call_failed', firstLine(error), via, toolName);
  };
}

/** Playwright's message without its `webMCP.x:` prefix and call log: its first line. */
export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? '').replace(/^(?:webMCP|page|frame)\.\w+:\s*/, '');
}

/** Playwright's own timeout (its `TimeoutError`, told apart by its name). */
export function isPlaywrightTimeout(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === 'TimeoutError';
}
