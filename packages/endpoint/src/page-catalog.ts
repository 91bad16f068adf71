/**
 * The page's own tools as the bridge serves them: read again on every `toolchange`, one read at
 * a time, the newest last (page-tools.ts: concurrent reads let a stale one win).
 *
 * A catalog lists each schema with its `webType`s expanded to plain JSON Schema (the lowering's
 * expandSchema, a 17 KB chunk). Most pages name no web type: their schemas are copied as they
 * are, and the lowering is loaded only for the first schema that needs it.
 */
import type { Tools } from '@toolwire/polyfill';
import { loadLowering } from '@toolwire/polyfill';
import type { BridgeTool } from '@toolwire/protocol';
import type { ToolCatalogSource } from './options.js';
import { oneReadAtATime, readPageTools } from './page-tools.js';

interface PageCatalogOptions {
  /** The polyfill's tools, mapped here; or `source`, whose tools are served as they are. */
  tools?: Tools;
  source?: ToolCatalogSource;
  /** Ids the page's tools may not take (the built-ins'). */
  reserved: Set<string>;
  /** After each read, successful or not: the bridge drops what it derived from the old list. */
  onRead: () => void;
}

/** Text that only a schema expandSchema changes (or refuses) can hold. */
const NEEDS_EXPANSION = /"(?:webType|keys|values|cause)"/;

class NeedsLowering extends Error {}

/** expandSchema for a schema that names no web type: a copy; else throws NeedsLowering. */
function copyPlain(schema: object): object {
  let text: string | undefined;
  try {
    text = JSON.stringify(schema);
  } catch {
    throw new NeedsLowering(); // a cycle: expandSchema says what is wrong with it
  }
  if (text === undefined || NEEDS_EXPANSION.test(text)) throw new NeedsLowering();
  return JSON.parse(text) as object;
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
    const source = this.#options.source;
    if (source) {
      try {
        // A source's tool may not take a built-in's id: that id stays the built-in's.
        const reserved = this.#options.reserved;
        this.tools = (await source.read()).filter((tool) => !reserved.has(tool.definition.id));
      } catch (error) {
        console.warn(`toolwire: reading the served tools failed: ${String(error)}`);
      }
      this.#options.onRead();
      return;
    }
    const tools = this.#options.tools;
    if (!tools) throw new TypeError('PageCatalog needs tools or a source.');
    const read = (expandSchema: (schema: object) => object) =>
      readPageTools({
        tools,
        origin: typeof location !== 'undefined' ? location.origin : 'null',
        expandSchema,
        reserved: this.#options.reserved,
      });
    for (;;) {
      try {
        this.tools = await read(this.#expand ?? copyPlain);
      } catch (error) {
        if (error instanceof NeedsLowering && !this.#expand) {
          // Outside the try: a lowering chunk that does not load rejects the read, as it did.
          this.#expand = (await loadLowering()).expandSchema as (schema: object) => object;
          continue;
        }
        console.warn(`toolwire: reading the page's tools failed: ${String(error)}`);
      }
      break;
    }
    this.#options.onRead();
  });
}
