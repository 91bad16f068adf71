/**
 * Where the MCP bridge finds page tools (bridge.ts reads only this interface): the host in this
 * process (host-source.ts), or a running host's control API (control-source.ts, `mcp --attach`).
 *
 * A source also names the page tools it does not offer, and why: the page's own guard keeps
 * them off the wire, or their policy is above the host's grant. A call to such a name explains
 * that instead of "Unknown tool": `tool_execution_denied`, with `details.deniedBy`.
 */
import type { ResultPayload, ToolProtocolError } from '@toolwire/protocol';
import type { HostTool } from '../catalog/cache.js';
import { deniedError } from '../shared/errors.js';
import type { ProgressListener } from '../shared/progress.js';

/**
 * The tab a session speaks for, as its page said in `session.open`: the page's word, a label for
 * people (an extension may name the tab it connects for). Nothing is decided by it: the
 * WebSocket's Origin header (`connectedFrom`) is what the host accepted the socket on.
 */
export interface McpTab {
  title: string;
  url: string;
  origin: string;
}

/** One open session, as the bridge names and shows it (`toolwire_sessions`). */
export interface McpSourceSession {
  id: string;
  /** Milliseconds since the epoch: the first session to offer an id keeps its plain name. */
  connectedAt: number;
  /** null until the page's `session.open` arrives. */
  tab: McpTab | null;
  /** The upgrade's Origin header (the browser's word); null when it sent none. */
  connectedFrom: string | null;
  /**
   * The page's own session key from `session.open`, the same across its reconnects (a reload
   * is a new one); null until it says one, absent when the source cannot tell. MCP names use
   * it to give a returning tab back its own (naming.ts).
   */
  key?: string | null;
  grant: string;
  /** The page's guard as a person reads it; null when it reported none. */
  guard: string | null;
}

/** One page tool the bridge may offer, wherever it comes from. */
export interface McpSourceTool {
  sessionId: string;
  /** Milliseconds since the epoch: the first session to offer an id keeps its plain name. */
  connectedAt: number;
  pageUrl: string | null;
  tool: HostTool;
}

/** A page tool the bridge does not offer, and why (the header). */
export interface McpWithheldTool {
  sessionId: string;
  pageUrl: string | null;
  id: string;
  policy: string;
  reason: 'page_guard' | 'grant';
  /** The page's guard (page_guard) or the host's grant (grant). */
  limit: string;
}

/** What `toolwire_pair` pairs: a page (absolute http(s) URL), or the toolwire extension (its origin). */
export type McpPairTarget = { page: string } | { extension: string };

/** A new pairing link (`toolwire_pair`, pair-tool.ts). */
export interface McpPairing {
  /**
   * The page's address with `#toolwire=<the host's address ?pair=CODE>`; for the extension, the
   * host's address with `?pair=CODE`.
   */
  link: string;
  /** The only origin that may redeem the code. */
  origin: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** What a call may ask for beside its signal. */
export interface McpCallOptions {
  /** Asks the page for progress reports and receives each one. */
  onProgress?: ProgressListener;
}

/** Where the bridge finds tools: the host in this process, or a running one's control API. */
export interface McpToolSource {
  /** The granted tools of every open session; `refresh` brings catalogs up to date first. */
  tools(refresh: boolean): Promise<McpSourceTool[]>;
  /** The tools of every open session that are not offered (as of the last `tools()`). */
  withheld?(): McpWithheldTool[];
  /**
   * Every open session, tools or not (as of the last `tools()`). Without it, the bridge knows
   * only the sessions that offer tools, and not their tabs.
   */
  sessions?(): McpSourceSession[];
  /**
   * Calls `entry`. Aborting `signal` (the MCP client's `notifications/cancelled`) cancels the
   * call at the page; the deadline is the source's own.
   */
  call(
    entry: McpSourceTool,
    args: Record<string, unknown>,
    signal: AbortSignal,
    options?: McpCallOptions,
  ): Promise<ResultPayload>;
  /** A single-use pairing link for a page (an absolute http(s) URL) or the extension. */
  pair?(target: McpPairTarget): Promise<McpPairing>;
  /** Calls `listener` when a session or a catalog may have changed. */
  onChange(listener: () => void): () => void;
  close?(): void;
}

/** The sessions `entries` come from, as far as they tell (a source without `sessions()`). */
export function sessionsOf(entries: readonly McpSourceTool[]): McpSourceSession[] {
  const byId = new Map<string, McpSourceSession>();
  for (const entry of entries) {
    if (byId.has(entry.sessionId)) continue;
    byId.set(entry.sessionId, {
      id: entry.sessionId,
      connectedAt: entry.connectedAt,
      tab: null,
      connectedFrom: null,
      grant: 'unknown',
      guard: null,
    });
  }
  return [...byId.values()];
}

/** One session's withheld tools: those its guard hides, then those above the host's grant. */
export function withheldTools(
  session: {
    id: string;
    pageUrl: string | null;
    guard: string | null;
    hidden: readonly { id: string; policy: string }[];
    grant: string;
  },
  ungranted: readonly { id: string; policy: string }[],
): McpWithheldTool[] {
  const entry = (tool: { id: string; policy: string }, reason: McpWithheldTool['reason']) => ({
    sessionId: session.id,
    pageUrl: session.pageUrl,
    id: tool.id,
    policy: tool.policy,
    reason,
    limit: reason === 'page_guard' ? (session.guard ?? 'unknown') : session.grant,
  });
  return [
    ...session.hidden.map((tool) => entry(tool, 'page_guard')),
    ...ungranted.map((tool) => entry(tool, 'grant')),
  ];
}

/** "2 tools hidden by the page's guard (read-only): a, b; 1 above the grant (read): c". */
export function withheldSummary(withheld: readonly McpWithheldTool[]): string {
  const parts: string[] = [];
  for (const reason of ['page_guard', 'grant'] as const) {
    const tools = withheld.filter((tool) => tool.reason === reason);
    if (tools.length === 0) continue;
    const limits = [...new Set(tools.map((tool) => tool.limit))].join(', ');
    const count = `${tools.length} tool${tools.length === 1 ? '' : 's'}`;
    const ids = tools
      .slice(0, 8)
      .map((tool) => tool.id)
      .join(', ');
    const more = tools.length > 8 ? `, ${tools.length - 8} more` : '';
    parts.push(
      reason === 'page_guard'
        ? `${count} hidden by the page's guard (${limits}): ${ids}${more}`
        : `${count} above the host's grant (${limits}): ${ids}${more}`,
    );
  }
  return parts.join('; ');
}

/** What a call to a withheld tool answers: `tool_execution_denied`, as a direct call's refusal. */
export function withheldError(tool: McpWithheldTool): ToolProtocolError {
  return deniedError(
    tool.reason === 'page_guard' ? 'page-guard' : 'host-grant',
    tool.id,
    tool.policy,
    tool.limit,
    { sessionId: tool.sessionId },
  );
}
