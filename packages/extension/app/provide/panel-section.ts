/**
 * The side panel's "Provide WebMCP on this site" section (`<section id="provide">`): for an
 * http(s) tab, the tab's origin and a checkbox, off unless that origin was chosen before.
 * Turning it on or off changes the site's registration (./sites.ts) and reloads the tab, since
 * the polyfill must run before the page's scripts. Where the browser has its own WebMCP the
 * section says providing is not needed (and the checkbox can only be turned off).
 */
import type { ProvideApi } from './sites.js';
import { isProvided, setProvided, siteOrigin } from './sites.js';

/** What the section needs of the browser, beside `ProvideApi`. */
export interface ProvideTabs {
  /** The tab's URL, or undefined when it is gone or cannot be read. */
  urlOf(tabId: number): Promise<string | undefined>;
  /** Does the tab's top document have the browser's own `document.modelContext`? */
  hasNativeWebMcp(tabId: number): Promise<boolean>;
  reload(tabId: number): Promise<void>;
  /** Calls `listener` when the tab's URL changes or it finishes loading. */
  onUpdated(listener: (tabId: number) => void): void;
}

export interface ProvideSection {
  watch(tabId: number): void;
}

export function mountProvide(
  section: HTMLElement,
  api: ProvideApi,
  tabs: ProvideTabs,
): ProvideSection {
  const doc = section.ownerDocument;
  const toggle = doc.createElement('input');
  toggle.type = 'checkbox';
  toggle.id = 'provide-toggle';
  const label = doc.createElement('label');
  label.htmlFor = toggle.id;
  label.textContent = 'Provide WebMCP on this site';
  const origin = doc.createElement('code');
  origin.className = 'provide-origin';
  const status = doc.createElement('p');
  status.className = 'provide-status';
  status.setAttribute('role', 'status');
  const line = doc.createElement('div');
  line.className = 'provide-line';
  line.append(toggle, label);
  section.replaceChildren(line, origin, status);
  section.hidden = true;

  let tabId = -1;
  let shownOrigin: string | undefined;
  /** The origin whose choice this panel just changed (and reloaded the tab for). */
  let changed: string | undefined;
  /** Bumped by each refresh: an older refresh's late answers are dropped. */
  let generation = 0;

  const refresh = async () => {
    const mine = ++generation;
    const id = tabId;
    const site = siteOrigin(await tabs.urlOf(id));
    if (mine !== generation) return;
    shownOrigin = site;
    if (!site) {
      section.hidden = true;
      return;
    }
    const [on, native] = await Promise.all([
      isProvided(api, site),
      tabs.hasNativeWebMcp(id).catch(() => false),
    ]);
    if (mine !== generation) return;
    section.hidden = false;
    origin.textContent = site;
    toggle.checked = on;
    toggle.disabled = native && !on;
    const reloaded = changed === site ? ' The tab was reloaded to apply it.' : '';
    status.textContent = `${
      native
        ? on
          ? 'This browser has its own WebMCP, which pages here keep: providing is not needed.'
          : 'Not needed: this browser has its own WebMCP, and the panel reads it.'
        : on
          ? 'On: every page of this site gets toolwire’s WebMCP before its own scripts run.'
          : 'Off: pages of this site get no WebMCP from the extension.'
    }${reloaded}`;
  };

  toggle.addEventListener('change', () => {
    const site = shownOrigin;
    const id = tabId;
    if (!site || id < 0) return;
    const on = toggle.checked;
    toggle.disabled = true;
    status.textContent = on ? 'Turning on…' : 'Turning off…';
    setProvided(api, site, on)
      .then(() => {
        changed = site;
        status.textContent = on
          ? 'On: reloading the tab, so WebMCP is there before the page’s scripts run.'
          : 'Off: reloading the tab without toolwire’s WebMCP.';
        return tabs.reload(id);
      })
      // The state as it now is (the tab's load completing refreshes it again).
      .then(
        () => refresh(),
        (error: { code?: string; message?: string }) => {
          status.textContent = `${error.message ?? String(error)} (${error.code ?? 'provide_failed'})`;
          toggle.checked = !on;
          toggle.disabled = false;
        },
      );
  });

  tabs.onUpdated((id) => {
    if (id === tabId) void refresh();
  });

  return {
    watch(id) {
      if (id === tabId) return;
      tabId = id;
      changed = undefined;
      section.hidden = true;
      void refresh();
    },
  };
}

/** The browser's side of `ProvideTabs`. */
export function chromeProvideTabs(): ProvideTabs {
  return {
    urlOf: (tabId) =>
      chrome.tabs.get(tabId).then(
        (tab) => tab.url,
        () => undefined,
      ),
    // The isolated world sees the browser's own `document.modelContext` only: toolwire's, set
    // by the provider in the MAIN world, is a property of that world's wrapper.
    hasNativeWebMcp: (tabId) =>
      chrome.scripting
        .executeScript({
          target: { tabId, frameIds: [0] },
          func: () => 'modelContext' in document,
        })
        .then(([first]) => first?.result === true),
    reload: (tabId) => chrome.tabs.reload(tabId),
    onUpdated(listener) {
      chrome.tabs.onUpdated.addListener((tabId, change) => {
        if (change.url !== undefined || change.status === 'complete') listener(tabId);
      });
    },
  };
}
