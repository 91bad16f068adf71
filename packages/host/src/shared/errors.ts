import { ToolProtocolError } from '@toolwire/protocol';

/**
 * The codes the host raises itself, to its own callers (they never cross the wire). Like every
 * code, they are rows of the protocol's one table, TOOL_ERROR_CODES (`local: true`), which holds
 * their `retryable`: `tool_policy_not_granted` is the reference host's denial code
 * (docs/permissions.md "The host's grant"); `tool_hidden_by_page_guard` and
 * `session_not_connected` are toolwire's (docs/wire.md "Error codes").
 */
export type HostErrorCode =
  | 'tool_policy_not_granted'
  | 'tool_hidden_by_page_guard'
  | 'session_not_connected';

export function hostError(
  code: HostErrorCode,
  message: string,
  details: ToolProtocolError['details'] = null,
): ToolProtocolError {
  // Its `retryable` is the table's.
  return new ToolProtocolError(code, message, { details });
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
