import type { ToolDeniedBy } from '@toolwire/protocol';
import { ToolProtocolError } from '@toolwire/protocol';

/**
 * The codes the host raises itself, to its own callers. Like every code, they are rows of the
 * protocol's one table, TOOL_ERROR_CODES, which holds their `retryable`. A call the page's guard
 * or the host's grant refuses is `tool_execution_denied`, the code the page answers for the same
 * refusal, with `details.deniedBy` saying which (docs/permissions.md); `session_not_connected`
 * is toolwire's and never crosses the wire (docs/wire.md "Error codes").
 */
export type HostErrorCode = 'tool_execution_denied' | 'session_not_connected';

export function hostError(
  code: HostErrorCode,
  message: string,
  details: ToolProtocolError['details'] = null,
): ToolProtocolError {
  // Its `retryable` is the table's.
  return new ToolProtocolError(code, message, { details });
}

/**
 * The host's refusal of a call to `toolId` that the page's guard hides (`guard` names the guard)
 * or whose policy is above the host's grant (`maxToolPolicy`): `tool_execution_denied`, as the
 * page answers, with `details.deniedBy`.
 */
export function deniedError(
  deniedBy: ToolDeniedBy,
  toolId: string,
  policy: string,
  limit: string,
  extra: Record<string, string> = {},
): ToolProtocolError {
  if (deniedBy === 'page-guard') {
    return hostError(
      'tool_execution_denied',
      `Tool "${toolId}" (policy ${policy}) is hidden by the page's guard (${limit}); the page's author sets the guard (data-toolwire-guard on its script tag, or connect({ guard })).`,
      { deniedBy, toolId, policy, guard: limit, ...extra },
    );
  }
  return hostError(
    'tool_execution_denied',
    `Tool "${toolId}" has policy "${policy}"; this host is granted up to "${limit}".`,
    { deniedBy, toolId, policy, maxToolPolicy: limit, ...extra },
  );
}

/** What a one-line failure quotes of a system error: its code (`ENOENT`), else its message. */
export function errnoText(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? String(error);
}

/**
 * The way out of a refusal by the host's grant: `tool_execution_denied` naming the grant that
 * refused it (`details.maxToolPolicy`), whether the host refused it or the page did (the tool's
 * policy rose after the host read it). Undefined for any other error, the page's guard included.
 */
export function grantHint(code: string, details: unknown): string | undefined {
  if (code !== 'tool_execution_denied') return undefined;
  const { deniedBy, policy, maxToolPolicy } = (details ?? {}) as Record<string, unknown>;
  // A page that predates `deniedBy` names the grant only when the grant refused.
  if (deniedBy !== undefined && deniedBy !== 'host-grant') return undefined;
  if (typeof policy !== 'string' || typeof maxToolPolicy !== 'string') return undefined;
  return `restart the host with --max-tool-policy ${policy} to allow it`;
}
