/**
 * The background's table of relays: one link per tab, for the tab's top document. A relay
 * port is accepted only from this extension's own content script in a tab's top frame; the
 * page itself has no `chrome.runtime` (the extension is not externally connectable).
 */
import { RELAY_PORT_NAME } from '../channel/messages.js';
import type { RuntimePortLike } from '../channel/runtime-port.js';
import { RECONNECT_MESSAGE } from '../channel/runtime-port.js';
import type { TabGoneReason } from '../types.js';
import { RelayLink } from './relay-link.js';

interface SenderLike {
  id?: string;
  frameId?: number;
  url?: string;
  tab?: { id?: number; title?: string; url?: string };
}

interface ChromeLike {
  runtime: {
    id: string;
    onConnect: {
      addListener(listener: (port: RuntimePortLike & { sender?: SenderLike }) => void): void;
    };
  };
  tabs: {
    get(tabId: number): Promise<unknown>;
    sendMessage?(tabId: number, message: unknown, options: { frameId: number }): Promise<unknown>;
    onRemoved: { addListener(listener: (tabId: number) => void): void };
    onUpdated?: {
      addListener(
        listener: (tabId: number, change: { title?: string; url?: string }) => void,
      ): void;
    };
  };
}

const links = new Map<number, RelayLink>();
const waiters = new Map<number, Set<(link: RelayLink) => void>>();
const goneReasons = new WeakMap<RelayLink, TabGoneReason>();
let listening = false;

function chromeApi(): ChromeLike {
  const api = (globalThis as { chrome?: ChromeLike }).chrome;
  if (!api?.runtime?.onConnect)
    throw new Error('toolwire: tabTools() runs in an extension background.');
  return api;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}

/**
 * Starts accepting relays. Call it at the top level of the background service worker (so a
 * relay's connection wakes it); `tabTools()` calls it too. Idempotent.
 */
export function listenForRelays(): void {
  if (listening) return;
  listening = true;
  const api = chromeApi();
  api.runtime.onConnect.addListener((port) => {
    if (port.name !== RELAY_PORT_NAME) return;
    const sender = port.sender;
    const tabId = sender?.tab?.id;
    if (sender?.id !== api.runtime.id || sender.frameId !== 0 || typeof tabId !== 'number') {
      port.disconnect();
      return;
    }
    const url = sender.url ?? sender.tab?.url ?? '';
    const link = new RelayLink(port, {
      tabId,
      title: sender.tab?.title ?? '',
      url,
      origin: originOf(url),
    });
    links.get(tabId)?.end();
    links.set(tabId, link);
    link.onEnd(() => {
      if (links.get(tabId) === link) links.delete(tabId);
    });
    for (const wake of waiters.get(tabId) ?? []) wake(link);
    waiters.delete(tabId);
  });
  api.tabs.onUpdated?.addListener((tabId, change) => {
    links.get(tabId)?.update(change.title, change.url);
  });
  api.tabs.onRemoved.addListener((tabId) => {
    const link = links.get(tabId);
    if (!link) return;
    goneReasons.set(link, 'closed');
    link.end();
  });
}

/** Why a link ended: the tab closed, or it is still there (so it navigated). */
export async function goneReason(link: RelayLink): Promise<TabGoneReason> {
  const known = goneReasons.get(link);
  if (known) return known;
  try {
    await chromeApi().tabs.get(link.tab.tabId);
    return 'navigated';
  } catch {
    return 'closed';
  }
}

/** The tab's current relay, waiting up to `timeoutMs` for one (a loading tab's is coming). */
export function relayOf(tabId: number, timeoutMs: number): Promise<RelayLink | undefined> {
  listenForRelays();
  const link = links.get(tabId);
  if (link && !link.ended) return Promise.resolve(link);
  // A relay that lost this worker (stopped while idle) connects again when asked.
  chromeApi()
    .tabs.sendMessage?.(tabId, RECONNECT_MESSAGE, { frameId: 0 })
    ?.catch(() => {});
  return new Promise((resolve) => {
    const set = waiters.get(tabId) ?? new Set();
    waiters.set(tabId, set);
    const wake = (found: RelayLink | undefined) => {
      set.delete(wake);
      clearTimeout(timer);
      resolve(found);
    };
    const timer = setTimeout(() => wake(undefined), timeoutMs);
    set.add(wake);
  });
}
