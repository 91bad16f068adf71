import type { ErrorPayload, JsonValue } from './messages.js';

/**
 * Every error code toolwire puts on the wire or raises locally, with its default `retryable`:
 * the one table of codes in the packages (docs/wire.md "Error codes"). Sourced codes follow the
 * reference SDKs; the rest are toolwire's, each marked. `local: true` codes never cross the
 * wire: they are raised on the host side (the client, the host, the CLI) or by a test helper to
 * its own caller. A code a tool defines for itself is not listed, and defaults to not retryable.
 */
export const TOOL_ERROR_CODES = {
  tool_protocol_invalid_request: { retryable: false, local: false },
  tool_protocol_unknown_type: { retryable: false, local: false },
  // The response cannot be written: a result that cannot be made JSON (cyclic, too deep, a
  // function) included, whether the bridge's walk or the polyfill's lowering finds it.
  tool_protocol_bridge_failed: { retryable: false, local: false },
  tool_runtime_not_initialized: { retryable: false, local: false },
  tool_discovery_disabled: { retryable: false, local: false },
  tool_call_payload_invalid: { retryable: false, local: false },
  tool_call_missing_id: { retryable: false, local: false },
  tool_not_found: { retryable: false, local: false },
  // The page's guard or the host's grant refuses the call, whether the page or the host refuses
  // it: `details.deniedBy` says which (`page-guard` or `host-grant`).
  tool_execution_denied: { retryable: false, local: false },
  tool_unavailable: { retryable: false, local: false },
  tool_arguments_invalid: { retryable: false, local: false },
  tool_arguments_schema_invalid: { retryable: false, local: false },
  tool_execution_exception: { retryable: false, local: false },
  tool_execution_failed: { retryable: false, local: false },
  tool_result_schema_invalid: { retryable: false, local: false },
  tool_batch_payload_invalid: { retryable: false, local: false },
  tool_batch_size_invalid: { retryable: false, local: false },
  tool_batch_call_invalid: { retryable: false, local: false },
  // toolwire: a tool whose own schema cannot be compiled (a definition bug, not the caller's).
  tool_definition_invalid: { retryable: false, local: false },
  // toolwire: the call's deadline passed on the page, which aborted the tool's signal. Retryable
  // only when the tool's policy is `read`: the page sets it from the policy where it knows it.
  tool_execution_timeout: { retryable: false, local: false },
  // toolwire: the caller cancelled the call (an AbortSignal, MCP `notifications/cancelled`,
  // Ctrl-C, `session.cancel`...), wherever the cancel came from. Raised locally too.
  tool_call_cancelled: { retryable: false, local: false },
  // toolwire: a part of the page's script (a lazily loaded chunk) did not load; the next call
  // tries again.
  toolwire_chunk_load_failed: { retryable: true, local: false },
  // toolwire: the toolwire extension's tab closed or navigated with the call in hand.
  tab_gone: { retryable: false, local: false },
  // toolwire: `$ansightEncoding` failures, raised by decodePayload (and sent back for requests).
  tool_payload_encoding_unsupported: { retryable: false, local: false },
  tool_payload_decode_failed: { retryable: false, local: false },
  tool_payload_too_large: { retryable: false, local: false },
  tool_payload_too_deep: { retryable: false, local: false },
  // toolwire: a paging cursor that is not one this page could have made (docs/wire.md "Paging").
  tool_cursor_invalid: { retryable: false, local: false },
  // toolwire: the catalog changed since the cursor was made: list again from the first page.
  tool_cursor_stale: { retryable: true, local: false },
  // Host side, local only (createToolClient).
  tool_request_duplicate_id: { retryable: false, local: true },
  tool_timeout: { retryable: true, local: true },
  tool_transport_closed: { retryable: true, local: true },
  // A well-formed answer whose content makes no sense (a catalog without tools, an `unchanged`
  // nobody asked for: the host's catalog cache).
  tool_response_invalid: { retryable: false, local: true },
  // toolwire: the reply to a pending request cannot be used (not readable JSON, no replyTo, a
  // type that does not answer the request, a bad `$ansightEncoding` wrapper, no payload
  // object). The request fails at once; `details.reason` says why.
  tool_protocol_invalid_response: { retryable: false, local: true },
  // `@toolwire/host`: no open page session serves the request.
  session_not_connected: { retryable: true, local: true },
  // `@toolwire/playwright`: the page has no WebMCP the helper can reach.
  webmcp_unavailable: { retryable: false, local: true },
  // `@toolwire/playwright`: a failure the helper cannot name otherwise; the message says what.
  tool_call_failed: { retryable: false, local: true },
} as const satisfies Record<string, { retryable: boolean; local: boolean }>;

export type ToolErrorCode = keyof typeof TOOL_ERROR_CODES;

/**
 * Who refused a call with `tool_execution_denied` (its `details.deniedBy`): the page's guard, or
 * the host's grant (`details.maxToolPolicy` names it). The page and the host say the same.
 */
export type ToolDeniedBy = 'page-guard' | 'host-grant';

function isKnownErrorCode(code: string): code is ToolErrorCode {
  return Object.hasOwn(TOOL_ERROR_CODES, code);
}

/** The default `retryable` of a code; tool-defined codes default to false. */
export function defaultRetryable(code: string): boolean {
  return isKnownErrorCode(code) ? TOOL_ERROR_CODES[code].retryable : false;
}

/**
 * A coded protocol error. Thrown by the codec and the client; carried on the wire as the
 * `tool.error` payload `{code, message, retryable, details}`.
 */
export class ToolProtocolError extends Error {
  override name = 'ToolProtocolError';
  readonly code: string;
  readonly retryable: boolean;
  readonly details: JsonValue | null;

  constructor(
    code: string,
    message: string,
    options: { retryable?: boolean; details?: JsonValue | null; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? defaultRetryable(code);
    this.details = options.details ?? null;
  }

  toPayload(): ErrorPayload {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      details: this.details,
    };
  }

  static fromPayload(payload: ErrorPayload): ToolProtocolError {
    return new ToolProtocolError(String(payload.code), String(payload.message ?? ''), {
      retryable: payload.retryable === true,
      details: payload.details ?? null,
    });
  }
}

export function errorPayload(
  code: string,
  message: string,
  details: JsonValue | null = null,
  retryable: boolean = defaultRetryable(code),
): ErrorPayload {
  return { code, message, retryable, details };
}
