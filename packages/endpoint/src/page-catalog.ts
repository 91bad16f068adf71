/**
 * The page's own tools as the bridge serves them: read again on every `toolchange`, one read at
 * a time, the newest last (page-tools.ts: concurrent reads let a stale one win).
 */
import type { Tools } from '@toolwire/polyfill';
import { loadLowering } from '@toolwire/polyfill';
import type { BridgeTool } from '@toolwire/protocol';
import { oneReadAtATime, readPageTools } from './page-tools.js';

interface PageCatalogOptions {
  tools: Tools;
  /** Ids the page's tools may not take (the built-ins'). */
  reserved: Set<string>;
  /** After each read, successful or not: the bridge drops what it derived from the old list. */
  onRead: () => void;
}

export class PageCatalog {
  /** The latest read's tools. */
  tools: BridgeTool[] = [];
  /** The read in progress, if any: requests wait for it (a field, read on every request). */
  refreshing: Promise<void> | undefined;
  #options: PageCatalogOptions;
  #expand: ((schema: object) => object) | undefined;

  constructor(options: PageCatalogOptions) {
    this.#options = options;
  }

  async refresh(): Promise<void> {
    const run = this.#read();
    this.refreshing = run;
    try {
      await run;
    } finally {
      if (this.refreshing === run) this.refreshing = undefined;
    }
  }

  #read = oneReadAtATime(async () => {
    this.#expand ??= (await loadLowering()).expandSchema as (schema: object) => object;
    try {
      this.tools = await readPageTools({
        tools: this.#options.tools,
        origin: typeof location !== 'undefined' ? location.origin : 'null',
        expandSchema: this.#expand,
        reserved: this.#options.reserved,
      });
    } catch (error) {
      console.warn(`toolwire: reading the page's tools failed: ${String(error)}`);
    }
    this.#options.onRead();
  });
}
