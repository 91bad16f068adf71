import { ToolProtocolError } from '@toolwire/protocol';

/**
 * Codes the host raises locally (they never cross the wire), beside the protocol's own table
 * (TOOL_ERROR_CODES). `tool_policy_not_granted` is the reference host's denial code
 * (docs/permissions.md "The host's grant"); `session_not_connected` is toolwire's own (docs/wire.md "Error codes").
 */
export const HOST_ERROR_CODES = {
  /** The tool's policy is above the host's grant (`maxToolPolicy`). */
  tool_policy_not_granted: { retryable: false },
  /** The page lists the tool in-page, but its own guard keeps it off the wire (issue 13). */
  tool_hidden_by_page_guard: { retryable: false },
  /** No open page session serves the request. */
  session_not_connected: { retryable: true },
} as const satisfies Record<string, { retryable: boolean }>;

export type HostErrorCode = keyof typeof HOST_ERROR_CODES;

export function hostError(
  code: HostErrorCode,
  message: string,
  details: ToolProtocolError['details'] = null,
): ToolProtocolError {
  return new ToolProtocolError(code, message, {
    retryable: HOST_ERROR_CODES[code].retryable,
    details,
  });
}

/** What a one-line failure quotes of a system error: its code (`ENOENT`), else its message. */
export function errnoText(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? String(error);
}

/**
 * The way out of a refusal by the host's grant (issue 15): the host's own
 * `tool_policy_not_granted`, or the page's `tool_execution_denied` naming the grant it applied
 * (`details.maxToolPolicy`). Undefined for any other error.
 */
export function grantHint(code: string, details: unknown): string | undefined {
  if (code !== 'tool_policy_not_granted' && code !== 'tool_execution_denied') return undefined;
  const { policy, maxToolPolicy } = (details ?? {}) as Record<string, unknown>;
  if (typeof policy !== 'string' || typeof maxToolPolicy !== 'string') return undefined;
  return `restart the host with --max-tool-policy ${policy} to allow it`;
}
