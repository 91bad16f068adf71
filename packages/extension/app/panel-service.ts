/**
 * The background's service to side panels: each panel port watches one tab at a time through
 * a "tools of tab T" client (`tabTools`, or another factory with the same shape) and runs the
 * panel's calls through it. Only this extension's own pages may connect.
 */
import type { TabToolsClient } from '../src/index.js';
import { tabTools } from '../src/index.js';
import type { PanelEvent, PanelRequest } from './panel/messages.js';
import { PANEL_PORT_NAME } from './panel/messages.js';

export type TabClientFactory = (tabId: number) => TabToolsClient;

function serve(port: chrome.runtime.Port, factory: TabClientFactory): void {
  let client: TabToolsClient | undefined;
  let watching = -1;
  const send = (event: PanelEvent) => {
    try {
      port.postMessage(event);
    } catch {
      // The panel closed.
    }
  };
  const watch = (tabId: number) => {
    client?.close();
    watching = tabId;
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
  port.onMessage.addListener((message: PanelRequest) => {
    if (message?.op === 'watch' && Number.isSafeInteger(message.tabId)) watch(message.tabId);
    else if (message?.op === 'call' && client && message.tabId === watching)
      void client
        .call(String(message.name), message.args)
        .then((outcome) => send({ type: 'outcome', id: message.id, outcome }));
  });
  port.onDisconnect.addListener(() => client?.close());
}

/** Accepts panel ports. Call at the top level of the background. */
export function servePanels(factory: TabClientFactory = tabTools): void {
  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== PANEL_PORT_NAME) return;
    const own = `chrome-extension://${chrome.runtime.id}/`;
    if (port.sender?.id !== chrome.runtime.id || !port.sender.url?.startsWith(own)) {
      port.disconnect();
      return;
    }
    serve(port, factory);
  });
}
