/**
 * The host's copy of one page's catalog (docs/wire.md "Host behaviour").
 *
 * 1. The first refresh asks for the `index`, then for `definitions` of only the ids that are new
 *    or whose `definitionRevision` changed; unchanged definitions are kept.
 * 2. Later refreshes send both `ifRevision` and `ifAvailabilityRevision`: an exact `unchanged`
 *    costs nothing, and `changes` replaces the set of unavailable tools.
 * 3. A forced refresh (after `tool_not_found`) asks for the index without `ifRevision`.
 * 4. An index and the definitions fetched for it must carry one revision; when the page changed
 *    in between, the refresh starts over (at most MAX_ATTEMPTS times).
 * 5. Everything the page sends is checked: malformed entries are dropped, never trusted. A tool's
 *    `origin` (toolwire extension) is kept only as a canonical origin (`new URL(o).origin === o`),
 *    and `annotations` (toolwire extension) only as its two boolean hints.
 * 6. The index is paged (docs/wire.md "Paging"): the first query sends
 *    `cursor: ""`, and every `nextCursor` is followed, so a page past 1,000 tools is read whole.
 *    A page that does not page answers without `nextCursor`, and its first 1,000 are the
 *    catalog, as before. Every page must carry the first one's revision, and a
 *    `tool_cursor_stale` refusal starts the refresh over, like a definitions mismatch. At most
 *    MAX_PAGES pages are read; a cursor longer than MAX_CURSOR_LENGTH or a page that makes no
 *    progress is a bad answer.
 */
import type {
  CatalogListingPayload,
  CatalogPayload,
  FullEntry,
  IndexEntry,
  QueryPayload,
  RuntimeState,
  ToolHints,
} from '@toolwire/protocol';
import {
  isPlainObject,
  isUnchangedCatalog,
  MAX_CURSOR_LENGTH,
  parsePolicy,
  ToolProtocolError,
  toolHints,
} from '@toolwire/protocol';

/**
 * One tool as the host knows it: its static definition with its revision, and `runtime` only
 * while it is unavailable (the wire's full entry, without the `executable` flag it derives).
 */
export type HostTool = Omit<FullEntry, 'executable'>;

/** What a refresh changed: nothing, only availability, or the tool set / definitions. */
export type CatalogChange = 'none' | 'availability' | 'tools';

export type CatalogQuery = (payload: QueryPayload) => Promise<CatalogPayload>;

/** docs/wire.md clamps `limit` to 1..1000: the most one listing can carry. */
const MAX_LISTING = 1000;
const MAX_ATTEMPTS = 3;
/** Index pages read per refresh: 100,000 tools, far past any page, short of a page that never ends. */
const MAX_PAGES = 100;

/** The refresh must start over: the page's catalog moved while its pages were read. */
const MOVED = Symbol('moved');

/** An index entry as read from the page (the wire's IndexEntry, `executable` aside). */
type IndexRow = Omit<IndexEntry, 'executable'>;
/** What a definitions query adds to an index row. */
type Definition = Pick<
  HostTool,
  'argumentsSchema' | 'resultSchema' | 'argumentEncoding' | 'annotations'
>;

function invalid(message: string): ToolProtocolError {
  return new ToolProtocolError('tool_response_invalid', message);
}

function stringList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const list = value.filter((item): item is string => typeof item === 'string');
  return list.length > 0 ? list : undefined;
}

function readRuntime(value: unknown): RuntimeState | undefined {
  if (!isPlainObject(value) || value.available !== false) return undefined;
  const runtime: RuntimeState = { available: false };
  for (const key of ['code', 'reason', 'requiredState', 'remediation'] as const) {
    const text = value[key];
    if (typeof text === 'string' && text !== '') runtime[key] = text;
  }
  if (value.retryable === true) runtime.retryable = true;
  return runtime;
}

/** A canonical origin, or undefined: `HTTP://x`, `https://x/` or `null` never pass as one. */
function readOrigin(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048) return undefined;
  try {
    return new URL(value).origin === value ? value : undefined;
  } catch {
    return undefined;
  }
}

function readIndexRow(value: unknown): IndexRow | undefined {
  if (!isPlainObject(value)) return undefined;
  const { id, name, description, category, definitionRevision } = value;
  const policy = parsePolicy(value.policy);
  if (typeof id !== 'string' || id === '' || typeof definitionRevision !== 'string' || !policy) {
    return undefined;
  }
  const row: IndexRow = {
    id,
    name: typeof name === 'string' ? name : id,
    description: typeof description === 'string' ? description : '',
    category: typeof category === 'string' ? category : '',
    policy,
    definitionRevision,
  };
  const keywords = stringList(value.keywords);
  if (keywords) row.keywords = keywords;
  const prerequisites = stringList(value.prerequisiteToolIds);
  if (prerequisites) row.prerequisiteToolIds = prerequisites;
  const origin = readOrigin(value.origin);
  if (origin) row.origin = origin;
  const runtime = readRuntime(value.runtime);
  if (runtime) row.runtime = runtime;
  return row;
}

/** The toolwire extension `annotations`: only its two boolean hints are kept. */
function hintsOf(value: unknown): { annotations?: ToolHints } {
  const annotations = toolHints(value);
  return annotations ? { annotations } : {};
}

function asListing(payload: CatalogPayload): CatalogListingPayload {
  if (!Array.isArray((payload as CatalogListingPayload).tools)) {
    throw invalid('The tool.catalog listing has no tools array.');
  }
  if (typeof payload.revision !== 'string') throw invalid('The tool.catalog has no revision.');
  return payload as CatalogListingPayload;
}

function withRuntime(tool: HostTool, runtime: RuntimeState | undefined): HostTool {
  if (tool.runtime === runtime) return tool;
  const { runtime: _old, ...rest } = tool;
  return runtime ? { ...rest, runtime } : rest;
}

export class CatalogCache {
  #tools = new Map<string, HostTool>();
  #list: readonly HostTool[] = [];
  #revision: string | null = null;
  #availabilityRevision: string | null = null;
  #evaluatedAtUtc: string | null = null;
  #totalCount = 0;

  /** The catalog revision of the last listing; null before the first. */
  get revision(): string | null {
    return this.#revision;
  }

  get availabilityRevision(): string | null {
    return this.#availabilityRevision;
  }

  get evaluatedAtUtc(): string | null {
    return this.#evaluatedAtUtc;
  }

  /**
   * Visible tools on the page; more than `list().length` when the page did not page past its
   * first 1,000 (an SDK without paging) or listed more than MAX_PAGES pages.
   */
  get totalCount(): number {
    return this.#totalCount;
  }

  get(id: string): HostTool | undefined {
    return this.#tools.get(id);
  }

  /** The tools of the last catalog, sorted by id (as the page lists them). */
  list(): readonly HostTool[] {
    return this.#list;
  }

  /** Forget everything (the page refused discovery, or the session ended). */
  clear(): CatalogChange {
    const had = this.#revision !== null || this.#tools.size > 0;
    this.#tools = new Map();
    this.#list = [];
    this.#revision = null;
    this.#availabilityRevision = null;
    this.#evaluatedAtUtc = null;
    this.#totalCount = 0;
    return had ? 'tools' : 'none';
  }

  /** Brings the copy up to date through `query`. */
  async refresh(query: CatalogQuery, options: { force?: boolean } = {}): Promise<CatalogChange> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const conditional = options.force !== true && this.#revision !== null;
      const request: QueryPayload = { detail: 'index', limit: MAX_LISTING, cursor: '' };
      if (conditional) {
        request.ifRevision = this.#revision as string;
        if (this.#availabilityRevision) request.ifAvailabilityRevision = this.#availabilityRevision;
      }
      const answer = await query(request);
      if (isUnchangedCatalog(answer)) {
        if (!conditional || answer.revision !== this.#revision) {
          throw invalid('The page answered "unchanged" to a question it was not asked.');
        }
        return 'changes' in answer ? this.#applyChanges(answer) : 'none';
      }
      const listing = asListing(answer);
      const rows = new Map<string, IndexRow>();
      const read = (page: CatalogListingPayload) => {
        for (const value of page.tools) {
          const row = readIndexRow(value);
          if (row && !rows.has(row.id)) rows.set(row.id, row);
        }
      };
      read(listing);
      const paged = await this.#readPages(query, listing, read);
      if (paged === MOVED) continue; // the page changed while we read it: start over
      const definitions = await this.#fetchDefinitions(query, rows, listing.revision);
      if (!definitions) continue; // the page changed while we asked: start over
      return this.#commit(listing, rows, definitions);
    }
    throw invalid(`The catalog kept changing during ${MAX_ATTEMPTS} refreshes in a row.`);
  }

  /** Follows `nextCursor` from the first index page. */
  async #readPages(
    query: CatalogQuery,
    first: CatalogListingPayload,
    read: (page: CatalogListingPayload) => void,
  ): Promise<typeof MOVED | undefined> {
    let cursor = first.nextCursor;
    for (let pages = 1; cursor !== undefined && cursor !== null && pages < MAX_PAGES; pages++) {
      if (typeof cursor !== 'string' || cursor === '' || cursor.length > MAX_CURSOR_LENGTH) {
        throw invalid('The tool.catalog nextCursor is not a cursor.');
      }
      let answer: CatalogPayload;
      try {
        answer = await query({ detail: 'index', limit: MAX_LISTING, cursor });
      } catch (error) {
        if (error instanceof ToolProtocolError && error.code === 'tool_cursor_stale') return MOVED;
        throw error;
      }
      if (isUnchangedCatalog(answer))
        throw invalid('The page answered "unchanged" to a query with a cursor.');
      const page = asListing(answer);
      if (page.revision !== first.revision) return MOVED;
      if (page.tools.length === 0 && page.nextCursor !== undefined) {
        throw invalid('The page sent an empty page with a nextCursor.');
      }
      read(page);
      cursor = page.nextCursor;
    }
    return undefined;
  }

  /** Definitions for new or changed ids; undefined when the page's revision moved meanwhile. */
  async #fetchDefinitions(
    query: CatalogQuery,
    rows: Map<string, IndexRow>,
    revision: string,
  ): Promise<Map<string, Definition> | undefined> {
    const needed: string[] = [];
    for (const row of rows.values()) {
      if (this.#tools.get(row.id)?.definitionRevision !== row.definitionRevision)
        needed.push(row.id);
    }
    const found = new Map<string, Definition>();
    for (let start = 0; start < needed.length; start += MAX_LISTING) {
      const ids = needed.slice(start, start + MAX_LISTING);
      const answer = await query({ detail: 'definitions', ids, limit: MAX_LISTING });
      if (isUnchangedCatalog(answer))
        throw invalid('The page answered "unchanged" to a definitions query.');
      const listing = asListing(answer);
      if (listing.revision !== revision) return undefined;
      for (const value of listing.tools) {
        if (!isPlainObject(value) || typeof value.id !== 'string') continue;
        const row = rows.get(value.id);
        if (!row || value.definitionRevision !== row.definitionRevision) return undefined;
        found.set(value.id, {
          argumentsSchema: isPlainObject(value.argumentsSchema) ? value.argumentsSchema : {},
          resultSchema: isPlainObject(value.resultSchema) ? value.resultSchema : {},
          ...(value.argumentEncoding === 'flattened-string'
            ? { argumentEncoding: 'flattened-string' as const }
            : {}),
          ...hintsOf(value.annotations),
        });
      }
      for (const id of ids) if (!found.has(id)) return undefined;
    }
    return found;
  }

  #commit(
    listing: CatalogListingPayload,
    rows: Map<string, IndexRow>,
    definitions: Map<string, Definition>,
  ): CatalogChange {
    const tools = new Map<string, HostTool>();
    for (const row of rows.values()) {
      const previous = this.#tools.get(row.id);
      const definition =
        definitions.get(row.id) ??
        (previous && {
          argumentsSchema: previous.argumentsSchema,
          resultSchema: previous.resultSchema,
          ...(previous.argumentEncoding ? { argumentEncoding: previous.argumentEncoding } : {}),
          ...(previous.annotations ? { annotations: previous.annotations } : {}),
        });
      if (!definition) continue; // unreachable: every new id was fetched
      const { runtime, ...index } = row;
      tools.set(row.id, { ...index, ...definition, ...(runtime ? { runtime } : {}) });
    }
    const toolsChanged = listing.revision !== this.#revision;
    const availabilityRevision = listing.availabilityRevision ?? null;
    const availabilityChanged = availabilityRevision !== this.#availabilityRevision;
    this.#tools = tools;
    this.#list = [...tools.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.#revision = listing.revision;
    this.#availabilityRevision = availabilityRevision;
    this.#evaluatedAtUtc = listing.evaluatedAtUtc ?? null;
    this.#totalCount = typeof listing.totalCount === 'number' ? listing.totalCount : tools.size;
    return toolsChanged ? 'tools' : availabilityChanged ? 'availability' : 'none';
  }

  #applyChanges(answer: {
    availabilityRevision: string;
    evaluatedAtUtc: string;
    changes: Record<string, RuntimeState>;
  }): CatalogChange {
    if (!isPlainObject(answer.changes)) throw invalid('The catalog `changes` is not an object.');
    const changes = answer.changes as Record<string, unknown>;
    const tools = new Map<string, HostTool>();
    // A replacement snapshot: a tool missing from `changes` is available again.
    for (const [id, tool] of this.#tools) {
      const runtime = Object.hasOwn(changes, id) ? readRuntime(changes[id]) : undefined;
      const same = JSON.stringify(runtime ?? null) === JSON.stringify(tool.runtime ?? null);
      tools.set(id, same ? tool : withRuntime(tool, runtime));
    }
    this.#tools = tools;
    this.#list = this.#list.map((tool) => tools.get(tool.id) as HostTool);
    const changed = answer.availabilityRevision !== this.#availabilityRevision;
    this.#availabilityRevision =
      typeof answer.availabilityRevision === 'string' ? answer.availabilityRevision : null;
    this.#evaluatedAtUtc = typeof answer.evaluatedAtUtc === 'string' ? answer.evaluatedAtUtc : null;
    return changed ? 'availability' : 'none';
  }
}
