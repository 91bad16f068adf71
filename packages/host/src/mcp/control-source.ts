/**
 * `toolwire mcp --attach`: the MCP bridge's tools from a running `toolwire host`, through its
 * control API (control.ts) instead of a host of its own.
 *
 * - The listing asks `GET /v1/sessions`, then `POST /v1/tools {detail: "full"}` per session;
 *   tools above the grant are not offered (as with a host in this process).
 * - A call is `POST /v1/call`; a tool or page refusal comes back as a ToolProtocolError.
 * - Changes are followed with the `GET /v1/changes` long poll; a failed poll waits a second.
 * - A call whose connection to the host breaks fails with `tool_transport_closed`, not
 *   retryable: the host may have run it (issue 13 part 9).
 * - Log lines quote the host's error messages (a page's words): escaped (terminal-text.ts).
 */
import type { JsonValue, ResultPayload } from '@toolwire/protocol';
import { ToolProtocolError } from '@toolwire/protocol';
import type { HostTool } from '../catalog/cache.js';
import { escapeLine } from '../shared/terminal-text.js';
import type { McpSourceTool, McpToolSource, McpWithheldTool } from './bridge.js';
import { withheldTools } from './bridge.js';

export interface ControlTarget {
  /** `http://127.0.0.1:PORT` */
  url: string;
  token: string;
}

interface ErrorBody {
  code: string;
  message: string;
  retryable?: boolean;
  details?: JsonValue | null;
}

/** One control API request; rejects with a ToolProtocolError carrying the host's code. */
export async function controlRequest(
  target: ControlTarget,
  path: string,
  body?: object,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const response = await fetch(new URL(path, target.url), {
    method: body ? 'POST' : 'GET',
    headers: {
      Authorization: `Bearer ${target.token}`,
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
    ...(signal ? { signal } : {}),
  }).catch((error: unknown) => {
    if (path !== '/v1/call' || signal?.aborted) throw error;
    const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ECONNREFUSED') {
      throw new ToolProtocolError('session_not_connected', 'No toolwire host answers.', {
        retryable: true,
      });
    }
    // Connected, then cut (the host died mid-call): the call may have run.
    throw new ToolProtocolError(
      'tool_transport_closed',
      'The connection to the toolwire host failed during the call; its outcome is unknown (the tool may have run).',
      { retryable: false },
    );
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (answer.ok === true) return answer;
  const error = (answer.error ?? {}) as ErrorBody;
  throw new ToolProtocolError(error.code ?? `http_${response.status}`, error.message ?? '', {
    retryable: error.retryable === true,
    details: error.details ?? null,
  });
}

export function controlToolSource(
  target: ControlTarget,
  options: { log?: (line: string) => void } = {},
): McpToolSource {
  const listeners = new Set<() => void>();
  const stop = new AbortController();
  let following = false;

  const follow = async () => {
    let after = -1;
    while (!stop.signal.aborted) {
      try {
        const answer = await controlRequest(
          target,
          `/v1/changes?after=${after}`,
          undefined,
          stop.signal,
        );
        const changes = Number(answer.changes);
        if (changes !== after && after !== -1) for (const listener of listeners) listener();
        after = changes;
      } catch (error) {
        if (stop.signal.aborted) return;
        options.log?.(escapeLine(`attach: ${(error as Error).message}`));
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  };

  let withheld: McpWithheldTool[] = [];
  return {
    withheld: () => withheld,
    async tools() {
      const { sessions } = (await controlRequest(target, '/v1/sessions')) as {
        sessions: { id: string; connectedAt: string; page: { url: string } | null }[];
      };
      const lists = await Promise.all(
        sessions.map(async (session) => {
          try {
            const answer = await controlRequest(target, '/v1/tools', {
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
      for (const { session, summary, tools } of lists) {
        const pageUrl = session.page?.url ?? null;
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
    async call(entry, args, signal) {
      const answer = await controlRequest(
        target,
        '/v1/call',
        { session: entry.sessionId, toolId: entry.tool.id, arguments: args },
        signal,
      );
      return answer.result as ResultPayload;
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
    },
  };
}
