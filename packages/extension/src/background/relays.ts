/**
 * The background's table of relays: one link per frame of a tab, addressed by (tabId,
 * frameId); frame 0 is the tab's top document. A relay port is accepted only from this
 * extension's own content script (`sender.id`) in a tab; the page itself has no
 * `chrome.runtime` (the extension is not externally connectable). A frame's link carries the
 * frame's origin as the browser reports it (`sender.origin`), never as the frame's page says.
 *
 * The direct path (with `linkPage`): before a relay's first request the background sends it,
 * on its `chrome.runtime` port, a one-time nonce (128 random bits) and the link page's path.
 * The relay embeds that page and hands it a `MessagePort` with the nonce; the page passes both
 * to this service worker (`postMessage`, which only the extension's own pages can reach). A
 * port is taken only with a nonce issued for a live link, once; every other one is closed.
 * The page's scripts can post to the link frame, but never see the nonce (it travels on the
 * `chrome.runtime` port, then from the isolated world straight to the frame's origin).
 */
import { isDirectHandoff, RELAY_PORT_NAME, randomHex } from '../channel/messages.js';
import type { RuntimePortLike } from '../channel/runtime-port.js';
import { RECONNECT_MESSAGE } from '../channel/runtime-port.js';
import type { TabGoneReason } from '../types.js';
import { RelayLink } from './relay-link.js';

interface SenderLike {
  id?: string;
  frameId?: number;
  /** The frame's origin, from the browser (Chromium 80 and later). */
  origin?: string;
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
    sendMessage?(tabId: number, message: unknown, options?: { frameId?: number }): Promise<unknown>;
    onRemoved: { addListener(listener: (tabId: number) => void): void };
    onUpdated?: {
      addListener(
        listener: (tabId: number, change: { title?: string; url?: string }) => void,
      ): void;
    };
  };
}

const links = new Map<number, RelayLink>();
/** The relays of a tab's other frames: tabId -> frameId -> link. */
const frameLinks = new Map<number, Map<number, RelayLink>>();
/** Told when a frame of the tab gains or loses its relay. */
const frameWatchers = new Map<number, Set<() => void>>();
const waiters = new Map<number, Set<(link: RelayLink) => void>>();
const goneReasons = new WeakMap<RelayLink, TabGoneReason>();
let listening = false;
/** The link page's path, when the direct path is on. */
let linkPage: string | undefined;
/** Nonces offered to relays and not yet used, and the link each belongs to. */
const directOffers = new Map<string, RelayLink>();
/** Direct-port handoffs refused (unknown nonce, no port), for tests and diagnostics. */
let directRefused = 0;

export interface ListenOptions {
  /**
   * The path of the extension's link page (listed in `web_accessible_resources`), which passes
   * a relay's direct port to this worker: requests and answers then skip the browser's extension
   * messaging. Without it, everything goes through `chrome.runtime` ports.
   */
  linkPage?: string;
}

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
export function listenForRelays(options: ListenOptions = {}): void {
  if (options.linkPage !== undefined) linkPage = options.linkPage;
  if (listening) return;
  listening = true;
  const api = chromeApi();
  (globalThis as { addEventListener?: EventTarget['addEventListener'] }).addEventListener?.(
    'message',
    (event) => acceptDirect(event as MessageEvent),
  );
  api.runtime.onConnect.addListener((port) => {
    if (port.name !== RELAY_PORT_NAME) return;
    const sender = port.sender;
    const tabId = sender?.tab?.id;
    const frameId = sender?.frameId;
    if (
      sender?.id !== api.runtime.id ||
      typeof tabId !== 'number' ||
      typeof frameId !== 'number' ||
      !Number.isSafeInteger(frameId) ||
      frameId < 0
    ) {
      port.disconnect();
      return;
    }
    if (frameId !== 0) {
      acceptFrame(port, sender, tabId, frameId);
      return;
    }
    const url = sender.url ?? sender.tab?.url ?? '';
    const link = new RelayLink(port, {
      tabId,
      title: sender.tab?.title ?? '',
      url,
      origin: originOf(url),
    });
    offerDirectLater(link);
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
    for (const frame of frameLinks.get(tabId)?.values() ?? []) frame.end();
    const link = links.get(tabId);
    if (!link) return;
    goneReasons.set(link, 'closed');
    link.end();
  });
}

/** A frame's relay (not the top's): its link, labelled with the frame's browser-given origin. */
function acceptFrame(
  port: RuntimePortLike & { sender?: SenderLike },
  sender: SenderLike,
  tabId: number,
  frameId: number,
): void {
  const url = sender.url ?? '';
  // The browser's word for the frame's origin; the URL's only where the browser gives none.
  const origin = typeof sender.origin === 'string' ? sender.origin : originOf(url);
  const link = new RelayLink(port, { tabId, title: '', url, origin }, frameId);
  offerDirectLater(link);
  const frames = frameLinks.get(tabId) ?? new Map<number, RelayLink>();
  frameLinks.set(tabId, frames);
  // The frame's previous document (it navigated): its tools go with it.
  frames.get(frameId)?.end();
  frames.set(frameId, link);
  link.onEnd(() => {
    if (frames.get(frameId) === link) frames.delete(frameId);
    if (frames.size === 0 && frameLinks.get(tabId) === frames) frameLinks.delete(tabId);
    notifyFrames(tabId);
  });
  notifyFrames(tabId);
}

/** Before the link's first request, offers its relay the direct path (when on). */
function offerDirectLater(link: RelayLink): void {
  link.whenUsed(() => {
    if (linkPage === undefined) return;
    const nonce = randomHex(crypto.getRandomValues.bind(crypto));
    if (!link.offerDirect(nonce, linkPage)) return;
    directOffers.set(nonce, link);
    link.onEnd(() => directOffers.delete(nonce));
  });
}

/** A link page passing a relay's port: taken with a live nonce, once; anything else closed. */
function acceptDirect(event: MessageEvent): void {
  if (!isDirectHandoff(event.data)) return;
  const link = directOffers.get(event.data.nonce);
  const port = event.ports[0];
  if (!link || link.ended || event.ports.length !== 1 || !port) {
    directRefused++;
    for (const stray of event.ports) stray.close();
    return;
  }
  directOffers.delete(event.data.nonce);
  link.attachDirect(port);
}

/**
 * How the tab's frame's requests travel: `direct` (the relay's port), `runtime`
 * (`chrome.runtime`), or undefined (no relay there). `refused` counts the direct handoffs this
 * worker turned down. For diagnostics and tests.
 */
export function relayPath(
  tabId: number,
  frameId = 0,
): { path: 'direct' | 'runtime' | undefined; refused: number } {
  const link = frameId === 0 ? links.get(tabId) : frameLinks.get(tabId)?.get(frameId);
  const path = !link || link.ended ? undefined : link.direct ? 'direct' : 'runtime';
  return { path, refused: directRefused };
}

function notifyFrames(tabId: number): void {
  for (const listener of frameWatchers.get(tabId) ?? []) listener();
}

/** The live relays of the tab's frames other than the top, by frame id (ascending). */
export function frameRelaysOf(tabId: number): RelayLink[] {
  return [...(frameLinks.get(tabId)?.values() ?? [])]
    .filter((link) => !link.ended)
    .sort((a, b) => a.frameId - b.frameId);
}

/** Calls `listener` whenever a frame of the tab gains or loses its relay. Returns an unsubscribe. */
export function onFrameRelays(tabId: number, listener: () => void): () => void {
  const set = frameWatchers.get(tabId) ?? new Set();
  frameWatchers.set(tabId, set);
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0) frameWatchers.delete(tabId);
  };
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
  // Relays that lost this worker (stopped while idle) connect again when asked: every frame's.
  chromeApi()
    .tabs.sendMessage?.(tabId, RECONNECT_MESSAGE)
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
