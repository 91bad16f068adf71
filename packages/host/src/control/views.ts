/**
 * How the control API shows a session and a tool (`GET /v1/sessions`, `POST /v1/tools`): plain
 * JSON, the page's words as the page sent them (printers escape them, cli/format.ts).
 *
 * A session's tool count is null until its first catalog refresh has settled, so a listing
 * never waits on a silent page (routes.ts bounds that wait).
 */
import type { HostTool } from '../catalog/cache.js';
import type { HostSession } from '../server/session.js';
import { guardName } from '../server/session.js';

/** A session as the control API shows it. */
export interface SessionSummary {
  id: string;
  origin: string | null;
  connectedAt: string;
  page: { url: string; title: string; origin: string } | null;
  sdk: { name: string; version: string } | null;
  /** null while the first catalog is loading (the page has not answered yet). */
  tools: number | null;
  grant: string;
  pending: number;
  /** The page's guard as it reported it (preset or `up to POLICY`), null if it sent none. */
  guard: string | null;
  /** Tools the page lists in-page but its guard keeps off the wire. */
  hidden: { id: string; policy: string }[];
  /** How the page got in: a link's pairing code or the tab's credential, or the page token. */
  paired: boolean;
  /**
   * How the socket authenticated: `token` (the host's page token), `pairing` (a link's code or
   * the tab's credential, or an extension's credential on its own socket) or `extension` (a
   * delegate of the extension's pairing: the tab's own socket, opened by the extension in it).
   */
  auth: 'token' | 'pairing' | 'extension';
}

/** Sessions whose first catalog refresh has settled (HostSession.ready). */
const settled = new WeakSet<HostSession>();
const watched = new WeakSet<HostSession>();

/** Starts noting when `session.ready` settles; call before awaiting it. */
export function watchReady(session: HostSession): void {
  if (watched.has(session)) return;
  watched.add(session);
  void session.ready.then(() => settled.add(session));
}

export function summarizeSession(session: HostSession): SessionSummary {
  watchReady(session);
  const info = session.info;
  return {
    id: session.id,
    origin: session.origin,
    connectedAt: session.connectedAt.toISOString(),
    page: info ? info.page : null,
    sdk: info ? info.sdk : null,
    tools: settled.has(session) ? session.tools().length : null,
    grant: session.grant,
    pending: session.pendingCount,
    guard: session.pageGuard ? guardName(session.pageGuard) : null,
    hidden: session.pageGuard?.hidden ?? [],
    paired: session.pairingId !== undefined || session.paired,
    auth: session.delegated
      ? 'extension'
      : session.pairingId !== undefined || session.paired
        ? 'pairing'
        : 'token',
  };
}

/** A tool as the control API shows it (`full` adds the definition). */
export function summarizeTool(
  tool: HostTool,
  session: HostSession,
  detail: 'index' | 'full',
): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    id: tool.id,
    name: tool.name,
    description: tool.description,
    category: tool.category,
    policy: tool.policy,
    granted: session.grants(tool.policy),
    available: tool.runtime === undefined,
  };
  if (tool.runtime) entry.runtime = tool.runtime;
  if (tool.keywords) entry.keywords = tool.keywords;
  if (tool.origin) entry.origin = tool.origin;
  if (detail === 'full') {
    if (tool.prerequisiteToolIds) entry.prerequisiteToolIds = tool.prerequisiteToolIds;
    entry.definitionRevision = tool.definitionRevision;
    entry.argumentsSchema = tool.argumentsSchema;
    entry.resultSchema = tool.resultSchema;
    if (tool.argumentEncoding) entry.argumentEncoding = tool.argumentEncoding;
    if (tool.annotations) entry.annotations = tool.annotations;
  }
  return entry;
}
