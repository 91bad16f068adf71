/**
 * The MCP bridge's tools from the host in this process (`toolwire mcp`): every open session's
 * granted tools, after a short, bounded refresh of each catalog when the bridge lists.
 */
import { ToolProtocolError } from '@toolwire/protocol';
import type { HostTool } from '../catalog/cache.js';
import type { PairingCode } from '../server/pairing.js';
import type { HostSession } from '../server/session.js';
import { guardName } from '../server/session.js';
import { within } from '../shared/within.js';
import type { McpSourceSession, McpSourceTool, McpToolSource, McpWithheldTool } from './source.js';
import { withheldTools } from './source.js';

const LIST_REFRESH_BOUND_MS = 2000;

/**
 * What the MCP side reads of a Host (server/host.ts): its sessions, its events and its pairing
 * links. A Host is one; the MCP modules do not import the Host class, which serves MCP itself.
 */
export interface McpHost {
  readonly sessions: readonly HostSession[];
  session(id: string): HostSession | undefined;
  pairingLink(page: string): PairingCode & { url: string };
  extensionPairing(extension: string): PairingCode & { url: string };
  /** `session` gives the new HostSession; the others are only listened for. */
  // biome-ignore lint/suspicious/noExplicitAny: the Host's typed emitter, seen from here.
  on(event: 'session' | 'catalog' | 'sessionclose', listener: (value: any) => void): () => void;
}

/** The tools of a host in this process (calls under its deadline, `callTimeoutMs`). */
export function hostToolSource(host: McpHost): McpToolSource {
  let withheld: McpWithheldTool[] = [];
  let open: McpSourceSession[] = [];
  return {
    withheld: () => withheld,
    sessions: () => open,
    async tools(refresh) {
      if (refresh) {
        await within(
          LIST_REFRESH_BOUND_MS,
          Promise.all(host.sessions.map((session) => session.refresh().catch(() => undefined))),
        );
      }
      const entries: McpSourceTool[] = [];
      const held: McpWithheldTool[] = [];
      const listed: McpSourceSession[] = [];
      for (const session of host.sessions) {
        if (!session.isOpen) continue;
        const pageUrl = session.info?.page.url ?? null;
        const guard = session.pageGuard;
        listed.push({
          id: session.id,
          connectedAt: +session.connectedAt,
          tab: session.info ? { ...session.info.page } : null,
          connectedFrom: session.origin,
          key: session.info?.key ?? null,
          grant: session.grant,
          guard: guard ? guardName(guard) : null,
        });
        const ungranted: HostTool[] = [];
        for (const tool of session.tools()) {
          // A tool above the grant would only be refused: it is not offered.
          if (!session.grants(tool.policy)) {
            ungranted.push(tool);
            continue;
          }
          entries.push({
            sessionId: session.id,
            connectedAt: +session.connectedAt,
            pageUrl: session.info?.page.url ?? null,
            tool,
          });
        }
        held.push(
          ...withheldTools(
            {
              id: session.id,
              pageUrl,
              guard: guard ? guardName(guard) : null,
              hidden: guard?.hidden ?? [],
              grant: session.grant,
            },
            ungranted,
          ),
        );
      }
      withheld = held;
      open = listed;
      return entries;
    },
    async call(entry, args, signal, callOptions = {}) {
      const session = host.session(entry.sessionId);
      if (!session?.isOpen) {
        // Never sent: another try may find the page again.
        throw new ToolProtocolError('tool_transport_closed', 'The page has disconnected.', {
          retryable: true,
        });
      }
      return session.call(entry.tool.id, args, {
        signal,
        ...(callOptions.onProgress ? { onProgress: callOptions.onProgress } : {}),
      });
    },
    async pair(target) {
      const link =
        'extension' in target
          ? host.extensionPairing(target.extension)
          : host.pairingLink(target.page);
      return {
        link: link.url,
        origin: link.origin ?? new URL(link.url).origin,
        expiresAt: new Date(link.expiresAt).toISOString(),
      };
    },
    onChange(listener) {
      // A page's session.open (its tab) may come after its first catalog: a change too.
      const opened = (session: HostSession) => off.push(session.on('open', listener));
      const off = [
        host.on('catalog', listener),
        host.on('sessionclose', listener),
        host.on('session', opened),
      ];
      for (const session of host.sessions) opened(session);
      return () => {
        for (const unsubscribe of off) unsubscribe();
      };
    },
  };
}
