/**
 * The side panel: the tools of one tab (`?tab=ID`), or of the active tab, following it as it
 * changes. It talks only to the background (the `toolwire-panel` port); the background reads
 * the tab through its relay.
 */
import type { TabCallOutcome, TabProgress, TabTool } from '../../src/types.js';
import { CONNECT_PORT_NAME } from '../connect/messages.js';
import { mountConnect } from '../connect/panel-section.js';
import { chromeProvideTabs, mountProvide } from '../provide/panel-section.js';
import { chromeProvideApi } from '../provide/sites.js';
import { groupByOrigin } from './groups.js';
import { CallLog } from './log.js';
import type { PanelEvent, PanelRequest } from './messages.js';
import { PANEL_PORT_NAME } from './messages.js';
import type { RunningCall } from './tool-view.js';
import { renderTool } from './tool-view.js';

const fixedTab = Number(new URLSearchParams(location.search).get('tab'));
const toolsList = document.getElementById('tools') as HTMLElement;
const status = document.getElementById('status') as HTMLElement;
const tabLine = document.getElementById('tab') as HTMLElement;
const log = new CallLog(document.getElementById('log') as HTMLOListElement);

let port = chrome.runtime.connect({ name: PANEL_PORT_NAME });
let tabId = -1;
let nextCall = 1;
/** The calls waiting for their outcome, by id: how to settle each, and where its progress goes. */
const waiting = new Map<
  number,
  { settle: (outcome: TabCallOutcome) => void; onProgress: (progress: TabProgress) => void }
>();

function post(request: PanelRequest): void {
  port.postMessage(request);
}

function call(
  name: string,
  args: unknown,
  onProgress: (progress: TabProgress) => void,
): RunningCall {
  const id = nextCall++;
  const done = log.start(name, args);
  const outcome = new Promise<TabCallOutcome>((resolve) => {
    const settle = (outcome: TabCallOutcome) => {
      done(outcome);
      resolve(outcome);
    };
    waiting.set(id, { settle, onProgress });
    try {
      post({ op: 'call', id, tabId, name, args });
    } catch {
      // Between a stopped worker and the next connection.
      waiting.delete(id);
      settle({
        ok: false,
        error: { code: 'disconnected', message: 'The extension is restarting: call again.' },
      });
    }
  });
  return {
    outcome,
    cancel() {
      if (!waiting.has(id)) return;
      try {
        post({ op: 'cancel', id });
      } catch {
        // The port is closing: its disconnect settles the call.
      }
    },
  };
}

let shown = '';

function show(tools: TabTool[], topOrigin: string): void {
  // Rebuild only when the tools changed, so a form being filled in is kept.
  const signature = JSON.stringify(tools);
  if (signature === shown) return;
  shown = signature;
  // Grouped by the origin of the frame that registered them, the tab's own first.
  toolsList.replaceChildren(
    ...groupByOrigin(document, tools, topOrigin, (tool) => renderTool(document, tool, call)),
  );
  status.textContent = tools.length === 0 ? 'This tab has no tools.' : `${tools.length} tools`;
}

// "Connect this tab to toolwire": its own section and port (app/connect/).
const connectSection = mountConnect(document.getElementById('connect') as HTMLElement, () =>
  chrome.runtime.connect({ name: CONNECT_PORT_NAME }),
);

// "Provide WebMCP on this site": its own section (app/provide/).
const provideSection = mountProvide(
  document.getElementById('provide') as HTMLElement,
  chromeProvideApi(),
  chromeProvideTabs(),
);

function watch(id: number): void {
  connectSection.watch(id);
  provideSection.watch(id);
  if (id === tabId) return;
  tabId = id;
  shown = '';
  toolsList.replaceChildren();
  status.textContent = 'Reading the tab’s tools…';
  post({ op: 'watch', tabId: id });
}

function onEvent(event: PanelEvent): void {
  if (event.type === 'outcome') {
    waiting.get(event.id)?.settle(event.outcome);
    waiting.delete(event.id);
  } else if (event.type === 'progress') {
    waiting.get(event.id)?.onProgress(event.progress);
  } else if (event.type === 'tools' && event.tab.tabId === tabId) {
    tabLine.textContent = `${event.tab.title} — ${event.tab.origin}`;
    show(event.tools, event.tab.origin);
  } else if (event.type === 'error' && event.tabId === tabId) {
    status.textContent = `${event.code}: ${event.message}`;
  } else if (event.type === 'gone' && event.tabId === tabId) {
    status.textContent = event.reason === 'closed' ? 'The tab closed.' : 'The tab navigated…';
    // A navigated tab has a new document: read it again once it has a relay.
    if (event.reason === 'navigated') {
      const again = tabId;
      tabId = -1;
      setTimeout(() => watch(again), 200);
    }
  }
}

/**
 * The background's service worker may be stopped while idle, which closes this port: pending
 * calls fail, and the panel connects again (waking it) and reads its tab once more.
 */
function onDisconnect(): void {
  for (const { settle } of waiting.values())
    settle({ ok: false, error: { code: 'disconnected', message: 'The extension restarted.' } });
  waiting.clear();
  setTimeout(() => {
    port = chrome.runtime.connect({ name: PANEL_PORT_NAME });
    port.onMessage.addListener(onEvent);
    port.onDisconnect.addListener(onDisconnect);
    const again = tabId;
    tabId = -1;
    if (again > 0) watch(again);
  }, 100);
}

port.onMessage.addListener(onEvent);
port.onDisconnect.addListener(onDisconnect);

async function followActiveTab(): Promise<void> {
  const [active] = await chrome.tabs.query({ active: true, currentWindow: true });
  if (active?.id !== undefined) watch(active.id);
}

if (Number.isSafeInteger(fixedTab) && fixedTab > 0) watch(fixedTab);
else {
  void followActiveTab();
  chrome.tabs.onActivated.addListener(({ tabId: id }) => watch(id));
}
