/**
 * An in-memory `chrome.scripting` (dynamic content scripts) and `chrome.storage.local` for the
 * "provide WebMCP" tests, refusing what Chromium refuses: a duplicate id, unregistering an id
 * that is not registered.
 */
import type { ProvideApi } from '../app/provide/sites.js';

type Script = chrome.scripting.RegisteredContentScript;

export class FakeBrowser {
  scripts = new Map<string, Script>();
  stored: Record<string, unknown> = {};
  api: ProvideApi = {
    scripting: {
      registerContentScripts: (async (list: Script[]) => {
        for (const script of list)
          if (this.scripts.has(script.id)) throw new Error(`Duplicate script ID '${script.id}'`);
        for (const script of list) this.scripts.set(script.id, structuredClone(script));
      }) as ProvideApi['scripting']['registerContentScripts'],
      unregisterContentScripts: (async (filter?: { ids?: string[] }) => {
        const ids = filter?.ids ?? [...this.scripts.keys()];
        for (const id of ids)
          if (!this.scripts.has(id)) throw new Error(`Nonexistent script ID '${id}'`);
        for (const id of ids) this.scripts.delete(id);
      }) as ProvideApi['scripting']['unregisterContentScripts'],
      getRegisteredContentScripts: (async () =>
        [...this.scripts.values()].map((script) =>
          structuredClone(script),
        )) as ProvideApi['scripting']['getRegisteredContentScripts'],
    },
    storage: {
      get: async (key) => (key in this.stored ? { [key]: structuredClone(this.stored[key]) } : {}),
      set: async (items) => {
        Object.assign(this.stored, structuredClone(items));
      },
    },
  };
}
