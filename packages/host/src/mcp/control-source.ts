/**
 * `toolwire mcp --attach`: the MCP bridge's tools from a running `toolwire host`, through its
 * control API instead of a host of its own: over the API's channel (control/channel.ts), one
 * WebSocket for every request in flight, so a call costs about what it costs the host's own
 * bridge.
 *
 * - The listing asks `GET /v1/sessions`, then `POST /v1/tools {detail: "full"}` per session;
 *   tools above the grant are not offered (as with a host in this process).
 * - A call is `POST /v1/call`, its result asked for as JSON text (control/channel.ts 7): an
 *   answer that is that text alone is forwarded without parsing it (content.ts); a tool or page refusal comes back as a ToolProtocolError, with
 *   the code and `retryable` the host's session gave it. It carries `timeoutMs` when the source
 *   was given one (`toolwire mcp --timeout`; else the host's own deadline applies) and asks for
 *   progress when the MCP client did.
 * - Cancelled (the MCP client's `notifications/cancelled`, or the client going away): the call
 *   fails at once with `tool_call_cancelled`, and the channel asks the host to cancel it at the
 *   page (control/channel.ts).
 * - Changes are followed with the `GET /v1/changes` long poll; a failed poll waits a second.
 *   The first failure, and the first answer after failures, count as a change: the bridge
 *   lists again (toolwire's own tools alone while the host does not answer).
 * - A call whose connection to the host breaks fails with `tool_transport_closed`, retryable
 *   only for a `read` tool: the host may have run it.
 * - Log lines quote the host's error messages (a page's words): escaped (shared/terminal-text.ts).
 */
import type { ResultPayload } from '@toolwire/protocol';
import { ToolProtocolError } from '@toolwire/protocol';
import type { HostTool } from '../catalog/cache.js';
import { controlChannel } from '../control/channel.js';
import type { ControlAnswer, ControlRequestOptions, ControlTarget } from '../control/client.js';
import { ControlFailure, controlToolError } from '../control/client.js';
import { escapeLine } from '../shared/terminal-text.js';
import type {
  McpSourceSession,
  McpSourceTool,
  McpTab,
  McpToolSource,
  McpWithheldTool,
} from './source.js';
import { withheldTools } from './source.js';

/** A session of `GET /v1/sessions` as the bridge shows it (control/views.ts SessionSummary). */
function sessionOf(session: {
  id: string;
  connectedAt: string;
  origin?: unknown;
  grant?: unknown;
  guard?: unknown;
  page: Partial<McpTab> | null;
}): McpSourceSession {
  const page = session.page;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    id: session.id,
    connectedAt: Date.parse(session.connectedAt),
    tab: page ? { title: text(page.title), url: text(page.url), origin: text(page.origin) } : null,
    connectedFrom: typeof session.origin === 'string' ? session.origin : null,
    grant: String(session.grant ?? 'read'),
    guard: typeof session.guard === 'string' ? session.guard : null,
  };
}

export interface ControlToolSourceOptions {
  log?: (line: string) => void;
  /** A call's deadline (ms), sent as `timeoutMs`. Default: the host's own. */
  callTimeoutMs?: number;
}

export function controlToolSource(
  target: ControlTarget,
  options: ControlToolSourceOptions = {},
): McpToolSource {
  const listeners = new Set<() => void>();
  const stop = new AbortController();
  const channel = controlChannel(target);
  /**
   * One request over the channel, its failures as ToolProtocolErrors (as controlRequest);
   * `policy` is the called tool's, when it is a call.
   */
  const ask = async (
    path: string,
    body?: object,
    request: ControlRequestOptions = {},
    policy?: string,
  ): Promise<ControlAnswer> => {
    try {
      return await channel.request(path, body, request);
    } catch (error) {
      if (!(error instanceof ControlFailure)) throw error;
      throw controlToolError(error, path, policy);
    }
  };
  let following = false;

  const follow = async () => {
    let after = -1;
    let failing = false;
    while (!stop.signal.aborted) {
      try {
        const answer = await ask(`/v1/changes?after=${after}`, undefined, { signal: stop.signal });
        const changes = Number(answer.changes);
        if ((changes !== after && after !== -1) || failing)
          for (const listener of listeners) listener();
        after = changes;
        failing = false;
      } catch (error) {
        if (stop.signal.aborted) return;
        // The host went away: what it listed is gone too (the bridge lists its own tools).
        if (!failing) {
          for (const listener of listeners) listener();
          options.log?.(escapeLine(`attach: ${(error as Error).message}`));
        }
        failing = true;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  };

  let withheld: McpWithheldTool[] = [];
  let open: McpSourceSession[] = [];
  return {
    withheld: () => withheld,
    sessions: () => open,
    async tools() {
      const { sessions } = (await ask('/v1/sessions')) as {
        sessions: {
          id: string;
          connectedAt: string;
          origin?: unknown;
          grant?: unknown;
          guard?: unknown;
          page: Partial<McpTab> | null;
        }[];
      };
      const lists = await Promise.all(
        sessions.map(async (session) => {
          try {
            const answer = await ask('/v1/tools', {
              session: session.id,
              detail: 'full',
            });
            return {
              session,
              summary: answer.session as {
                grant?: string;
                guard?: string | null;
                hidden?: unknown;
              },
              tools: answer.tools as (HostTool & { granted: boolean })[],
            };
          } catch {
            return { session, summary: {}, tools: [] }; // closed meanwhile
          }
        }),
      );
      const entries: McpSourceTool[] = [];
      const held: McpWithheldTool[] = [];
      open = sessions.map(sessionOf);
      for (const { session, summary, tools } of lists) {
        const pageUrl = typeof session.page?.url === 'string' ? session.page.url : null;
        const ungranted: HostTool[] = [];
        for (const { granted, ...tool } of tools) {
          if (!granted) {
            ungranted.push(tool as HostTool);
            continue;
          }
          entries.push({
            sessionId: session.id,
            connectedAt: Date.parse(session.connectedAt),
            pageUrl,
            tool: tool as HostTool,
          });
        }
        const hidden = (Array.isArray(summary.hidden) ? summary.hidden : []).filter(
          (tool: { id?: unknown; policy?: unknown }): tool is { id: string; policy: string } =>
            typeof tool?.id === 'string' && typeof tool?.policy === 'string',
        );
        held.push(
          ...withheldTools(
            {
              id: session.id,
              pageUrl,
              guard: typeof summary.guard === 'string' ? summary.guard : null,
              hidden,
              grant: String(summary.grant ?? 'read'),
            },
            ungranted,
          ),
        );
      }
      withheld = held;
      return entries;
    },
    async call(entry, args, signal, callOptions = {}) {
      const body = {
        session: entry.sessionId,
        toolId: entry.tool.id,
        arguments: args,
        ...(options.callTimeoutMs === undefined ? {} : { timeoutMs: options.callTimeoutMs }),
      };
      try {
        const answer = await ask(
          '/v1/call',
          body,
          {
            signal,
            rawResult: true,
            ...(callOptions.onProgress ? { onProgress: callOptions.onProgress } : {}),
          },
          entry.tool.policy,
        );
        return answer.result as ResultPayload;
      } catch (error) {
        if (!signal.aborted || error instanceof ToolProtocolError) throw error;
        throw new ToolProtocolError(
          'tool_call_cancelled',
          'The call was cancelled by its caller.',
          {
            retryable: false,
            cause: error,
          },
        );
      }
    },
    async pair(target) {
      const answer = await ask('/v1/pair', target);
      return {
        link: String(answer.link ?? answer.address),
        origin: String(answer.origin),
        expiresAt: String(answer.expiresAt),
      };
    },
    onChange(listener) {
      listeners.add(listener);
      if (!following) {
        following = true;
        void follow();
      }
      return () => listeners.delete(listener);
    },
    close() {
      stop.abort();
      channel.close();
    },
  };
}
