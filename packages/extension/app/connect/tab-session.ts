/**
 * The tab's own host session, run by the extension inside the tab (its isolated world, beside
 * the relay), so a host's call goes host -> tab -> host as with the page's own endpoint, not
 * through the service worker. Injected on Connect (`content/session.js`), top frame only.
 *
 * - The worker hands it, through `chrome.scripting` (never through the page), the host's
 *   address, a delegate of the extension's pairing for this page's origin (`delegateSecret` of
 *   the extension's credential: docs/wire.md "The handshake"), that credential's id, the guard
 *   and the tab's labels. The key lives in this isolated world only: the page's MAIN world
 *   never sees it, and it is good only for sockets whose `Origin` is this page's.
 * - It serves the tab's tools with the worker's own catalog (`tabCatalog`), reading them through
 *   the relay's local requests (the same hop to the MAIN-world reader, checked the same way by
 *   a `RelayLink`): names, guard, results and error codes are the ones the worker serves.
 * - `start` settles once the host welcomed the socket (`{ok: true}`) or the first socket ended
 *   before that (`{ok: false, code, message}`: the worker then serves the tab itself). A session
 *   that ends later (revoked, refused) tells the worker (`chrome.runtime.sendMessage`).
 * - It ends with the document (a navigation or the tab closing closes its socket), or `stop`.
 */
import type { Session } from '@toolwire/endpoint';
import { connect } from '@toolwire/endpoint';
import { SESSION_CLOSE } from '@toolwire/protocol';
import { RelayLink } from '../../src/background/relay-link.js';
import { TabToolsError } from '../../src/background/tab-tools.js';
import type { RuntimePortLike } from '../../src/channel/runtime-port.js';
import type { LocalRelay } from '../../src/relay/relay.js';
import type { TabIdentity, TabTool, TabToolsClient } from '../../src/types.js';
import { tabCatalog } from './tab-catalog.js';
import type { TabGuard } from './tab-link.js';

/** What the worker starts a tab's session with. */
export interface TabSessionStart {
  address: string;
  delegate: { of: string; secret: string };
  guard: TabGuard;
  tab: TabIdentity;
}

/** `id` names the session for `stop` (a later start replaces it). */
export type TabSessionAnswer =
  | { ok: true; id: number }
  | { ok: false; code: string; message: string };

/** How often a live tab session tells the worker it is there (its idle limit is 30 s). */
const KEEP_WORKER_MS = 20_000;

/**
 * What this script tells the worker: a session that ended after it was welcomed (`code`,
 * `message`), or that it is still live (`alive: true`).
 */
export const TAB_SESSION_MESSAGE = 'toolwire-tab-session';

/** The relay's local requests as the port a `RelayLink` speaks on. */
function localPort(local: LocalRelay): RuntimePortLike {
  return {
    name: 'toolwire-local',
    postMessage: (message) => local.request(message as Parameters<LocalRelay['request']>[0]),
    disconnect: () => {},
    onMessage: { addListener: (listener) => void local.listen(listener) },
    onDisconnect: { addListener: () => {} },
  };
}

/**
 * The tab's tools through `link`, as the worker's client gives them. Closing it cancels the
 * calls still running in the tab (their tools' signals abort), as the worker's client does.
 */
function localClient(link: RelayLink): TabToolsClient {
  const changes = new Set<(tools: TabTool[]) => void>();
  const ending = new AbortController();
  const list = async (): Promise<TabTool[]> => {
    const outcome = await link.list();
    if (!outcome.ok) throw new TabToolsError(outcome.error.code, outcome.error.message);
    return outcome.result as TabTool[];
  };
  link.onChange(() => {
    if (changes.size === 0) return;
    void list().then(
      (tools) => {
        for (const listener of changes) listener(tools);
      },
      () => {},
    );
  });
  return {
    get tab() {
      return link.tab;
    },
    list,
    call: (name, args, options = {}) =>
      link.call(name, args, {
        ...options,
        signal: options.signal ? AbortSignal.any([options.signal, ending.signal]) : ending.signal,
      }),
    onChange(listener) {
      changes.add(listener);
      return () => changes.delete(listener);
    },
    // The document's end ends this script too: nothing outlives it to be told.
    onGone: () => () => {},
    close: () => {
      ending.abort();
      link.end();
    },
  };
}

/**
 * The tab session's `start`/`stop`, over the relay's local requests. `WebSocket` is for tests
 * (Node has none of its own); in the tab it is the isolated world's.
 */
export function startTabSession(local: LocalRelay, options: { WebSocket?: typeof WebSocket } = {}) {
  let current:
    | {
        session: Session;
        client: TabToolsClient;
        id: number;
        alive?: ReturnType<typeof setInterval>;
      }
    | undefined;
  let counter = 0;
  /** Ends the session `id` (any, without one) if it is still the tab's. */
  const stop = (id?: number) => {
    if (!current || (id !== undefined && current.id !== id)) return;
    clearInterval(current.alive);
    current.session.close();
    current.client.close();
    current = undefined;
  };
  const send = (message: object) => {
    const runtime = (
      globalThis as {
        chrome?: { runtime?: { sendMessage?(message: unknown): Promise<unknown> | undefined } };
      }
    ).chrome?.runtime;
    try {
      // No worker listening (it stopped): it has no session to end either.
      void runtime?.sendMessage?.({ type: TAB_SESSION_MESSAGE, ...message })?.catch(() => {});
    } catch {
      // The extension was reloaded: nothing to tell.
    }
  };
  const tell = (code: string, message: string) => send({ code, message });
  return {
    start(request: TabSessionStart): Promise<TabSessionAnswer> {
      stop();
      // Nothing would answer the session's reads (the page's reader never reached the relay).
      if (!local.accepted)
        return Promise.resolve({
          ok: false,
          code: 'no_relay',
          message: "The tab's reader is not connected.",
        });
      const link = new RelayLink(localPort(local), { ...request.tab });
      const client = localClient(link);
      const session = connect({
        url: request.address,
        delegate: request.delegate,
        guard: request.guard,
        page: { url: request.tab.url, title: request.tab.title, origin: request.tab.origin },
        builtins: false,
        source: tabCatalog(client, request.tab.origin),
        reconnect: true,
        ...(options.WebSocket ? { WebSocket: options.WebSocket } : {}),
      });
      counter += 1;
      const mine: NonNullable<typeof current> = { session, client, id: counter };
      current = mine;
      return new Promise((resolve) => {
        let settled = false;
        session.addEventListener('open', () => {
          if (settled) return;
          settled = true;
          // The worker keeps this tab's state (the badge, the panel, Disconnect) and serves its
          // other frames: a message now and then keeps Chromium from stopping it as idle, as
          // the worker's own sockets' traffic did.
          mine.alive = setInterval(() => send({ alive: true }), KEEP_WORKER_MS);
          resolve({ ok: true, id: mine.id });
        });
        // A socket that could not even be dialed (the endpoint retries it): the worker serves.
        session.addEventListener('error', (event) => {
          if (settled) return;
          settled = true;
          stop(mine.id);
          const detail = (event as CustomEvent).detail;
          resolve({
            ok: false,
            code: 'host_connection_failed',
            message: `The tab could not open its socket${detail ? `: ${String(detail)}` : ''}.`,
          });
        });
        session.addEventListener('close', (event) => {
          const { code, reason, willRetry } = (event as CustomEvent).detail;
          const refused = code === SESSION_CLOSE.pairingRefused || code === SESSION_CLOSE.revoked;
          const message = `The host connection closed (${code}${reason ? `: ${reason}` : ''}).`;
          const codeText =
            code === SESSION_CLOSE.revoked
              ? 'pairing_revoked'
              : refused
                ? 'pairing_refused'
                : 'host_connection_closed';
          if (!settled) {
            settled = true;
            // The first socket did not get in: the worker serves the tab instead.
            stop(mine.id);
            resolve({ ok: false, code: codeText, message });
            return;
          }
          if (!willRetry && current === mine) {
            stop(mine.id);
            tell(codeText, message);
          }
        });
      });
    },
    stop,
  };
}

const scope = globalThis as {
  toolwireRelayLocal?: LocalRelay;
  toolwireTabSession?: ReturnType<typeof startTabSession>;
};
if (!scope.toolwireTabSession && scope.toolwireRelayLocal) {
  scope.toolwireTabSession = startTabSession(scope.toolwireRelayLocal);
}
