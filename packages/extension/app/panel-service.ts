/**
 * The background's service to side panels: each panel port watches one tab at a time through
 * a "tools of tab T" client (`tabTools`, or another factory with the same shape) and runs the
 * panel's calls through it, with their progress reports and the panel's cancels. Only this
 * extension's own pages may connect.
 */
import type { TabToolsClient } from '../src/index.js';
import { tabTools } from '../src/index.js';
import type { InjectOutcome } from './old-tabs.js';
import { injectRelays } from './old-tabs.js';
import type { PanelEvent, PanelRequest } from './panel/messages.js';
import { isPanelRequest, PANEL_PORT_NAME } from './panel/messages.js';

export type TabClientFactory = (tabId: number) => TabToolsClient;

/** Gives a tab without relays its content scripts (a tab opened before the extension). */
export type RelayInjector = (tabId: number) => Promise<InjectOutcome>;

/** "Tools of tab T" with every frame's tools, as the panel and Connect read a tab. */
export const tabWithFrames: TabClientFactory = (tabId) => tabTools(tabId, { frames: true });

/** The part of `chrome.runtime.Port` a panel's service uses. */
export interface PanelPort {
  postMessage(message: PanelEvent): void;
  onMessage: { addListener(listener: (message: unknown) => void): void };
  onDisconnect: { addListener(listener: () => void): void };
}

/**
 * Serves one panel's port. A call runs until it answers, the panel cancels it (`cancel`), or
 * the panel goes (its port closes): a call nobody waits for any more is cancelled in the tab.
 */
export function servePanel(
  port: PanelPort,
  factory: TabClientFactory,
  inject?: RelayInjector,
): void {
  let client: TabToolsClient | undefined;
  let watching = -1;
  /** The panel's calls still running, by the panel's call id. */
  const running = new Map<number, AbortController>();
  const send = (event: PanelEvent) => {
    try {
      port.postMessage(event);
    } catch {
      // The panel closed.
    }
  };
  let watches = 0;
  const watch = (tabId: number) => {
    client?.close();
    client = undefined;
    watching = tabId;
    const turn = ++watches;
    if (!inject) {
      read(tabId);
      return;
    }
    // First use of the panel on a tab opened before the extension: its relays, injected now.
    void inject(tabId).then((injected) => {
      if (turn !== watches) return;
      if (!injected.ok) {
        send({ type: 'error', tabId, code: 'page_not_scriptable', message: injected.message });
        return;
      }
      read(tabId);
    });
  };
  const read = (tabId: number) => {
    const current = factory(tabId);
    client = current;
    current.onChange((tools) => send({ type: 'tools', tab: current.tab, tools }));
    current.onGone((reason) => {
      if (client === current && reason !== 'disconnected') send({ type: 'gone', tabId, reason });
    });
    current.list().then(
      (tools) => client === current && send({ type: 'tools', tab: current.tab, tools }),
      (error: { code?: string; message?: string }) =>
        client === current &&
        send({ type: 'error', tabId, code: error.code ?? 'failed', message: error.message ?? '' }),
    );
  };
  const call = (request: Extract<PanelRequest, { op: 'call' }>) => {
    if (!client || request.tabId !== watching || running.has(request.id)) return;
    const { id } = request;
    const controller = new AbortController();
    running.set(id, controller);
    void client
      .call(request.name, request.args, {
        signal: controller.signal,
        onProgress: (progress) => {
          if (running.get(id) === controller) send({ type: 'progress', id, progress });
        },
      })
      .then((outcome) => {
        if (running.get(id) === controller) running.delete(id);
        send({ type: 'outcome', id, outcome });
      });
  };
  port.onMessage.addListener((message: unknown) => {
    if (!isPanelRequest(message)) return;
    if (message.op === 'watch') watch(message.tabId);
    else if (message.op === 'call') call(message);
    // An id that is not running (answered already, or never sent) is ignored.
    else running.get(message.id)?.abort();
  });
  port.onDisconnect.addListener(() => {
    for (const controller of running.values()) controller.abort();
    running.clear();
    client?.close();
  });
}

/**
 * Accepts panel ports. Call at the top level of the background. The panel reads every frame
 * of a tab, and gives a tab opened before the extension its relays (`injectRelays`).
 */
export function servePanels(
  factory: TabClientFactory = tabWithFrames,
  inject: RelayInjector = injectRelays,
): void {
  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== PANEL_PORT_NAME) return;
    const own = `chrome-extension://${chrome.runtime.id}/`;
    if (port.sender?.id !== chrome.runtime.id || !port.sender.url?.startsWith(own)) {
      port.disconnect();
      return;
    }
    servePanel(port, factory, inject);
  });
}
