/**
 * "Connect this tab to toolwire" in the service worker: the `toolwire-connect` port the side
 * panel asks through, the toolbar badge, the pairing kept in `chrome.storage.session`, and the
 * tab events that end a tab's session.
 *
 * A tab's top document is served from inside the tab when it can (`directSessions`): the
 * worker injects the tab session script into the tab's isolated world and hands it a delegate
 * of the extension's pairing for the tab's origin; the worker serves the tab itself when that
 * socket does not get in, and always serves the tab's frames of other origins.
 *
 * The connections run here, in the service worker, not in an offscreen document: the tabs'
 * clients live here already, and an open session keeps the worker alive (Chrome 116 and later
 * count WebSocket traffic as activity, and the host pings every 10 s, under the 30 s idle
 * limit). If the worker is stopped anyway, its sockets close: the host ends those sessions and
 * fails their pending calls, the badges are cleared when it starts again, and the person
 * connects the tab again (the stored pairing spares a new code while the host runs).
 */
import type { TabToolsClient } from '../../src/types.js';
import type { PairingStore, StoredPairing } from './connections.js';
import { TabConnections } from './connections.js';
import type { ConnectEvent, ConnectRequest } from './messages.js';
import { CONNECT_PORT_NAME, isConnectRequest } from './messages.js';
import type { DirectSessions, TabLinkState } from './tab-link.js';
import type { TabSessionAnswer, TabSessionStart } from './tab-session.js';
import { TAB_SESSION_MESSAGE } from './tab-session.js';

const STORE_KEY = 'toolwire.pairing';

const sessionStore: PairingStore = {
  async load() {
    const stored = (await chrome.storage.session.get(STORE_KEY))[STORE_KEY] as
      | StoredPairing
      | undefined;
    return typeof stored?.address === 'string' && typeof stored.credential === 'string'
      ? stored
      : undefined;
  },
  async save(pairing) {
    if (pairing) await chrome.storage.session.set({ [STORE_KEY]: pairing });
    else await chrome.storage.session.remove(STORE_KEY);
  },
};

function badge(tabId: number, state: TabLinkState | undefined): void {
  const text = state?.status === 'connected' ? 'ON' : state ? '…' : '';
  const title = state
    ? `toolwire: this tab is ${state.status === 'connected' ? 'connected' : 'connecting'} (${state.guard})`
    : 'Open the toolwire panel';
  // A tab that closed meanwhile makes these reject: nothing to show then.
  void chrome.action.setBadgeText({ tabId, text }).catch(() => {});
  void chrome.action.setTitle({ tabId, title }).catch(() => {});
  if (state) {
    const color = state.status === 'connected' ? '#1a7f37' : '#6e7781';
    void chrome.action.setBadgeBackgroundColor({ tabId, color }).catch(() => {});
  }
}

/** Who hears that a tab's own session ended: by tab. */
const directEnded = new Map<number, Set<(error: { code: string; message: string }) => void>>();

/** Ends whatever session the tab runs itself (none: nothing happens). */
function stopTabSession(tabId: number): void {
  void chrome.scripting
    .executeScript({
      target: { tabId, frameIds: [0] },
      func: () =>
        (globalThis as { toolwireTabSession?: { stop(): void } }).toolwireTabSession?.stop(),
    })
    .catch(() => {}); // no such tab, or not a page the extension runs in
}

/** A tab's top document served by a session inside it (tab-session.ts), through chrome.scripting. */
function directSessions(tabId: number): DirectSessions {
  const target = { tabId, frameIds: [0] };
  let id: number | undefined;
  return {
    async start(request: TabSessionStart): Promise<TabSessionAnswer> {
      // The isolated world (executeScript's default): the page's own scripts never see it.
      await chrome.scripting.executeScript({ target, files: ['content/session.js'] });
      const [run] = await chrome.scripting.executeScript({
        target,
        func: (start: TabSessionStart) => {
          const scope = globalThis as {
            toolwireTabSession?: { start(start: TabSessionStart): Promise<TabSessionAnswer> };
          };
          return (
            scope.toolwireTabSession?.start(start) ?? {
              ok: false,
              code: 'no_relay',
              message: 'The tab has no relay to serve it from.',
            }
          );
        },
        args: [request],
      });
      const answer = run?.result as TabSessionAnswer | undefined;
      if (answer?.ok) id = answer.id;
      return answer ?? { ok: false, code: 'no_relay', message: 'The tab did not answer.' };
    },
    stop() {
      const mine = id;
      if (mine === undefined) return;
      id = undefined;
      void chrome.scripting
        .executeScript({
          target,
          func: (stopped: number) =>
            (
              globalThis as { toolwireTabSession?: { stop(id: number): void } }
            ).toolwireTabSession?.stop(stopped),
          args: [mine],
        })
        .catch(() => {}); // the tab closed or navigated: its session went with the document
    },
    onEnded(listener) {
      const set = directEnded.get(tabId) ?? new Set();
      directEnded.set(tabId, set);
      set.add(listener);
      return () => set.delete(listener);
    },
  };
}

/** Serves the panel's connect section. Call at the top level of the background. */
export function serveConnections(tabTools: (tabId: number) => TabToolsClient): TabConnections {
  const ports = new Set<chrome.runtime.Port>();
  const origin = `chrome-extension://${chrome.runtime.id}`;
  const connections: TabConnections = new TabConnections({
    tabTools,
    store: sessionStore,
    badge,
    direct: directSessions,
    onChange: (tabId) => void broadcast(tabId),
    onNotice: (tabId, notice) => {
      for (const port of ports) post(port, { type: 'error', tabId, ...notice });
    },
  });
  const status = async (tabId: number): Promise<ConnectEvent> => {
    const pairedWith = await connections.pairedWith();
    const state = connections.state(tabId);
    return {
      type: 'status',
      tabId,
      origin,
      ...(state ? { state } : {}),
      ...(pairedWith ? { pairedWith } : {}),
    };
  };
  const post = (port: chrome.runtime.Port, event: ConnectEvent) => {
    try {
      port.postMessage(event);
    } catch {
      ports.delete(port); // the panel closed
    }
  };
  const broadcast = async (tabId: number) => {
    const event = await status(tabId);
    for (const port of ports) post(port, event);
  };
  const handle = async (port: chrome.runtime.Port, request: ConnectRequest) => {
    if (request.op === 'connect') {
      const { tabId, guard, pairing } = request;
      const answer = await connections.connect(tabId, {
        guard,
        ...(pairing === undefined ? {} : { pairing }),
      });
      if (!answer.ok)
        post(port, { type: 'error', tabId, code: answer.code, message: answer.message });
    } else if (request.op === 'disconnect') {
      connections.disconnect(request.tabId);
      // A tab's own session outlives a stopped worker: Disconnect ends it all the same.
      stopTabSession(request.tabId);
    }
    post(port, await status(request.tabId));
  };

  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== CONNECT_PORT_NAME) return;
    // Only this extension's own pages (the side panel) may connect tabs.
    if (port.sender?.id !== chrome.runtime.id || !port.sender.url?.startsWith(`${origin}/`)) {
      port.disconnect();
      return;
    }
    ports.add(port);
    port.onDisconnect.addListener(() => ports.delete(port));
    port.onMessage.addListener((message: unknown) => {
      if (isConnectRequest(message)) void handle(port, message);
    });
  });
  // A navigation ends the tab's document, and with it the client (its onGone ends the link);
  // a URL change within the document (a fragment, history.pushState) keeps the same tools.
  chrome.tabs.onRemoved.addListener((tabId) => connections.removed(tabId));
  // A tab's own session that ended after it was welcomed (revoked, refused): from the tab's
  // top document, this extension's own script.
  chrome.runtime.onMessage.addListener((message: unknown, sender) => {
    const data = message as {
      type?: unknown;
      code?: unknown;
      message?: unknown;
      alive?: unknown;
    } | null;
    if (data?.type !== TAB_SESSION_MESSAGE || sender.id !== chrome.runtime.id) return;
    // A live tab session's keep-alive: the message itself is what keeps this worker running.
    if (data.alive === true) return;
    const tabId = sender.tab?.id;
    if (tabId === undefined || sender.frameId !== 0) return;
    const error = {
      code: typeof data.code === 'string' ? data.code : 'host_connection_closed',
      message: typeof data.message === 'string' ? data.message : 'The host connection closed.',
    };
    for (const listener of directEnded.get(tabId) ?? []) listener(error);
  });
  // A restarted worker holds no sessions: no tab shows as connected.
  void chrome.tabs.query({}).then((tabs) => {
    for (const tab of tabs) if (tab.id !== undefined) badge(tab.id, undefined);
  });
  return connections;
}
