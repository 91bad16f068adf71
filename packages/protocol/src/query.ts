/**
 * Answering tool.query (docs/wire.md "tool.query -> tool.catalog") from a built catalog state:
 *
 * 1. Answers follow docs/wire.md's order: the exact 3-key unchanged, unchanged + `changes`, or a
 *    listing.
 * 2. Filters (ids, policy, query / feature terms, executableOnly, limit) apply before
 *    serialization; `totalCount` and `categories` count all visible tools.
 * 3. Search: every term must appear in the tool's id, name, description, category, keywords
 *    or prerequisites, compared lower-cased with punctuation as spaces.
 * 4. Paging (toolwire, docs/wire.md "Paging"): a query with a `cursor` is paged. `""` is the
 *    first page (the unchanged answers still apply); a cursor from `nextCursor` resumes the
 *    listing order where the last page stopped, and is never answered "unchanged". A listing
 *    carries `nextCursor` only when the query was paged and more tools match. Without a cursor
 *    the answer is exactly the unpaged one.
 */
import type { CatalogState, CatalogTool } from './catalog.js';
import { cleanStrings, evaluateAvailability } from './catalog.js';
import { encodeCursor, readCursor } from './cursor.js';
import { isExecutable, parsePolicy } from './guard.js';
import type {
  CatalogDetail,
  CatalogEntry,
  CatalogPayload,
  FullEntry,
  IndexEntry,
  QueryPayload,
  RuntimeState,
  StaticDefinition,
} from './messages.js';
import { CATALOG_SCHEMA, isPlainObject } from './messages.js';

function parseDetail(value: unknown): CatalogDetail {
  if (typeof value !== 'string') return 'full';
  const lower = value.trim().toLowerCase();
  return lower === 'index' || lower === 'definitions' ? lower : 'full';
}

function nonBlank(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function clampLimit(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  return Math.min(1000, Math.max(1, Math.trunc(value)));
}

/** Answers one tool.query against a catalog state (docs/wire.md order). */
export async function answerQuery(
  state: CatalogState,
  rawPayload: unknown,
): Promise<CatalogPayload> {
  const payload = (isPlainObject(rawPayload) ? rawPayload : {}) as QueryPayload &
    Record<string, unknown>;
  const detail = parseDetail(payload.detail);
  const ifRevision = nonBlank(payload.ifRevision);
  const ifAvailabilityRevision = nonBlank(payload.ifAvailabilityRevision);
  // The cursor is checked before anything else is read from the state.
  const paged = payload.cursor !== undefined && payload.cursor !== null;
  const start = paged && payload.cursor !== '' ? readCursor(state, payload.cursor) : 0;

  if (ifRevision === state.revision && detail !== 'definitions' && start === 0) {
    if (ifAvailabilityRevision === undefined) {
      return { schema: CATALOG_SCHEMA, revision: state.revision, unchanged: true };
    }
    const availability = await evaluateAvailability(state);
    if (availability.revision === ifAvailabilityRevision) {
      return { schema: CATALOG_SCHEMA, revision: state.revision, unchanged: true };
    }
    return {
      schema: CATALOG_SCHEMA,
      revision: state.revision,
      unchanged: true,
      availabilityRevision: availability.revision,
      evaluatedAtUtc: availability.evaluatedAtUtc,
      changes: Object.fromEntries(availability.unavailable),
    };
  }

  const executableOnly = payload.executableOnly === true;
  const needsAvailability = detail !== 'definitions' || executableOnly;
  const availability = needsAvailability ? await evaluateAvailability(state) : undefined;

  const ids = Array.isArray(payload.ids) ? new Set(cleanStrings(payload.ids)) : undefined;
  const terms = [nonBlank(payload.query), nonBlank(payload.feature)]
    .filter((text): text is string => text !== undefined)
    .flatMap((text) => normalizeSearch(text).split(' '))
    .filter((term) => term !== '');
  const policy = parsePolicy(payload.policy);
  const limit = clampLimit(payload.limit) ?? clampLimit(payload.maxResults) ?? 1000;

  const tools: CatalogEntry[] = [];
  const { listed } = state;
  let nextCursor: string | undefined;
  for (let index = start; index < listed.length; index++) {
    const entry = listed[index] as CatalogTool;
    const { definition } = entry;
    if (ids && ids.size > 0 && !ids.has(definition.id)) continue;
    if (policy && definition.policy !== policy) continue;
    if (terms.length > 0 && !terms.every((term) => haystackOf(entry).includes(term))) continue;
    const runtime = availability?.unavailable.get(definition.id);
    const executable = runtime === undefined && isExecutable(state.guard, definition.policy);
    if (executableOnly && !executable) continue;
    if (tools.length >= limit) {
      // One more tool matches: a paged listing says where the next page starts.
      if (paged) nextCursor = encodeCursor(state, index);
      break;
    }
    tools.push(toEntry(entry, detail, runtime, executable));
  }

  if (detail === 'definitions') {
    const listing: CatalogPayload = {
      schema: CATALOG_SCHEMA,
      revision: state.revision,
      tools,
      count: tools.length,
      detail,
    };
    if (nextCursor) listing.nextCursor = nextCursor;
    return listing;
  }
  const listing: CatalogPayload = {
    schema: CATALOG_SCHEMA,
    revision: state.revision,
    tools,
    count: tools.length,
  };
  if (detail === 'index') listing.detail = 'index';
  listing.availabilityRevision = availability?.revision ?? state.allAvailableRevision;
  listing.evaluatedAtUtc = availability?.evaluatedAtUtc ?? new Date().toISOString();
  listing.totalCount = state.visible.length;
  listing.categories = state.categories;
  if (nextCursor) listing.nextCursor = nextCursor;
  return listing;
}

function toEntry(
  entry: CatalogTool,
  detail: CatalogDetail,
  runtime: RuntimeState | undefined,
  executable: boolean,
): CatalogEntry {
  const { definition } = entry;
  const definitionRevision = entry.record.revision;
  if (detail === 'definitions') return { ...definition, definitionRevision };
  let result: IndexEntry | FullEntry;
  if (detail === 'index') {
    result = {
      id: definition.id,
      name: definition.name,
      description: definition.description,
      category: definition.category,
      policy: definition.policy,
      definitionRevision,
    };
    if (definition.keywords) result.keywords = definition.keywords;
    if (definition.prerequisiteToolIds) result.prerequisiteToolIds = definition.prerequisiteToolIds;
    if (definition.origin) result.origin = definition.origin;
  } else {
    result = { ...definition, definitionRevision };
  }
  if (runtime) result.runtime = runtime;
  if (!executable) result.executable = false;
  return result;
}

/** Lower-cased text searched by `query` / `feature`, built once per definition. */
function haystackOf(entry: CatalogTool): string {
  entry.record.haystack ??= searchText(entry.definition);
  return entry.record.haystack;
}

function searchText(definition: StaticDefinition): string {
  return normalizeSearch(
    [
      definition.id,
      definition.name,
      definition.description,
      definition.category,
      ...(definition.keywords ?? []),
      ...(definition.prerequisiteToolIds ?? []),
    ].join(' '),
  );
}

/** Lower-case, and every character that is not a letter or digit becomes a space. */
export function normalizeSearch(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ');
}
