/**
 * The catalog side of the bridge: the tools a page offers, as the wire lists them.
 *
 * 1. Static definitions are normalized into wire key order and hashed once per distinct
 *    definition (`definitionRevision`); the catalog `revision` and the all-available
 *    `availabilityRevision` are computed when the tool set or guard changes, never per query.
 * 2. Availability is evaluated per query (and again before every execution); its revision is
 *    looked up by the set of unavailable tools, so an unchanged state costs no hashing.
 * Answering a query from this state is query.ts.
 */
import type { Guard } from './guard.js';
import { isToolPolicy, isVisible } from './guard.js';
import type {
  JsonSchema,
  RuntimeState,
  StaticDefinition,
  ToolHints,
  ToolPolicy,
} from './messages.js';
import { CATALOG_SCHEMA, isPlainObject } from './messages.js';
import { revisionOfJson } from './revision.js';

/** What a tool says about its own availability; `true` or `undefined` mean available. */
export type AvailabilityInput =
  | true
  | undefined
  | {
      available: boolean;
      code?: string;
      reason?: string;
      requiredState?: string;
      remediation?: string;
      retryable?: boolean;
    };

export interface BridgeToolDefinition {
  id: string;
  name: string;
  description: string;
  category: string;
  policy: ToolPolicy;
  argumentsSchema: JsonSchema;
  resultSchema: JsonSchema;
  keywords?: string[];
  prerequisiteToolIds?: string[];
  /** Legacy tools only: arguments arrive as a flat map of strings. */
  argumentEncoding?: 'json' | 'flattened-string';
  /**
   * toolwire extension: the origin of the document that registered the tool (a widget frame's
   * tools carry the widget's). Sent after the standard keys, only when set.
   */
  origin?: string;
  /** toolwire extension: idempotentHint and openWorldHint, as the page set them; sent last. */
  annotations?: ToolHints;
}

/**
 * How a tool reports how far it has got (docs/wire.md "Deadlines, cancel and progress"):
 * `progress` must grow from one report to the next. Sent to the host only when the request
 * asked; otherwise it is `noProgress`, one function shared by every call, which does nothing.
 */
export type ReportProgress = (progress: number, total?: number, message?: string) => void;

/** The reporter of every call that did not ask for progress. */
export const noProgress: ReportProgress = () => {};

export interface ToolContext {
  /** The request id (the batch id for batch items). */
  requestId: string;
  sessionId: string | null;
  callId: string | null;
  toolId: string;
  /**
   * Aborted when the bridge gives up on the call: its deadline passed (reason: a
   * `tool_execution_timeout` ToolProtocolError) or the caller cancelled it (`tool_call_cancelled`).
   * The bridge makes it when a tool first reads it (a getter: a copy of the context made with
   * spread leaves it out), already aborted if the call was given up on before.
   */
  signal: AbortSignal;
  /** Reports progress to a caller that asked for it; `noProgress` when none did. */
  reportProgress: ReportProgress;
}

export interface BridgeTool {
  definition: BridgeToolDefinition;
  execute(args: Record<string, unknown>, context: ToolContext): unknown;
  availability?(): AvailabilityInput | Promise<AvailabilityInput>;
  /**
   * What the tool checks itself against its own schemas, so the bridge does not check it again
   * (one validation per call). `arguments`: execute refuses arguments that fail
   * argumentsSchema, reporting `tool_arguments_schema_invalid` with `$`-rooted details (as a
   * ToolFailureOutcome). `result`: what execute resolves to already fits resultSchema, or it
   * reports `tool_result_schema_invalid`. Serializability is always the bridge's to check.
   */
  validates?: SelfValidation;
  /**
   * toolwire: where the tool comes in a listing (docs/wire.md "Paging"): listings go by
   * `listingRank` (default 0), then by id. Not part of the definition, so never hashed; a page
   * uses it to decide which tools a host that reads only the first 1,000 gets.
   */
  listingRank?: number;
}

export interface SelfValidation {
  arguments?: boolean;
  result?: boolean;
}

export type ToolSource = () => Iterable<BridgeTool>;

export interface CatalogTool {
  tool: BridgeTool;
  definition: StaticDefinition;
  record: DefinitionRecord;
}

export interface CatalogState {
  guard: Guard;
  /** Every valid tool by id, visible or not (a hidden tool is denied, not unknown). */
  byId: Map<string, CatalogTool>;
  /** Visible tools sorted by id (ordinal). */
  visible: CatalogTool[];
  /** Visible tools in listing order: by `listingRank`, then id (`visible` itself when unranked). */
  listed: CatalogTool[];
  /**
   * What a paging cursor is bound to (64 hex): the revision's hash when the listing goes by id,
   * else a hash of the revision and the listing order (docs/wire.md "Paging").
   */
  listingKey: string;
  /** Visible tools that have an availability() check, in the same order. */
  checked: CatalogTool[];
  revision: string;
  categories: Record<string, number>;
  allAvailableRevision: string;
  /** availabilityRevision by the JSON of the unavailable set. */
  availabilityRevisions: Map<string, string>;
}

export interface AvailabilitySnapshot {
  revision: string;
  /** Unavailable visible tools, id -> runtime object, in id order. */
  unavailable: Map<string, RuntimeState>;
  evaluatedAtUtc: string;
}

const AVAILABLE_RUNTIME_JSON = '{"available":true}';
const MAX_CACHED_AVAILABILITY_STATES = 64;

export function cleanStrings(values: unknown): string[] {
  if (!Array.isArray(values)) return [];
  const out: string[] = [];
  for (const value of values)
    if (typeof value === 'string' && value.trim() !== '') out.push(value.trim());
  return out;
}

/** Normalizes a definition into wire key order (this exact object is hashed). */
export function toStaticDefinition(definition: BridgeToolDefinition): StaticDefinition {
  const problems: string[] = [];
  if (typeof definition.id !== 'string' || definition.id.trim() === '')
    problems.push('id must be a non-empty string');
  if (typeof definition.name !== 'string') problems.push('name must be a string');
  if (typeof definition.description !== 'string') problems.push('description must be a string');
  if (typeof definition.category !== 'string') problems.push('category must be a string');
  if (!isToolPolicy(definition.policy)) problems.push('policy must be read, write or critical');
  if (!isPlainObject(definition.argumentsSchema))
    problems.push('argumentsSchema must be an object');
  if (!isPlainObject(definition.resultSchema)) problems.push('resultSchema must be an object');
  if (problems.length > 0) {
    throw new TypeError(`Tool "${String(definition.id)}" is invalid: ${problems.join('; ')}.`);
  }
  const result: StaticDefinition = {
    id: definition.id,
    name: definition.name,
    description: definition.description,
    category: definition.category,
    policy: definition.policy,
    argumentsSchema: definition.argumentsSchema,
    resultSchema: definition.resultSchema,
  };
  const keywords = cleanStrings(definition.keywords);
  if (keywords.length > 0) result.keywords = keywords;
  // Prerequisites: trimmed, de-duplicated, sorted (docs/wire.md "Tool entry by detail").
  const prerequisites = [...new Set(cleanStrings(definition.prerequisiteToolIds))].sort(
    compareOrdinal,
  );
  if (prerequisites.length > 0) result.prerequisiteToolIds = prerequisites;
  if (definition.argumentEncoding === 'flattened-string')
    result.argumentEncoding = 'flattened-string';
  // The toolwire extension goes last, so a definition without it hashes as docs/wire.md's vectors do.
  if (typeof definition.origin === 'string' && definition.origin !== '')
    result.origin = definition.origin;
  const hints = toolHints(definition.annotations);
  if (hints) result.annotations = hints;
  return result;
}

/** The booleans among `idempotentHint` and `openWorldHint`, in that order; undefined if none. */
export function toolHints(value: unknown): ToolHints | undefined {
  if (!isPlainObject(value)) return undefined;
  const hints: ToolHints = {};
  for (const key of ['idempotentHint', 'openWorldHint'] as const) {
    if (typeof value[key] === 'boolean') hints[key] = value[key];
  }
  return Object.keys(hints).length > 0 ? hints : undefined;
}

function compareOrdinal(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `{available:false, code?, reason?, requiredState?, remediation?, retryable?}` or null when available. */
export function normalizeRuntime(input: unknown): RuntimeState | null {
  if (input === true || input === undefined || input === null) return null;
  if (!isPlainObject(input) || input.available !== false) return null;
  const runtime: RuntimeState = { available: false };
  for (const key of ['code', 'reason', 'requiredState', 'remediation'] as const) {
    const value = input[key];
    if (typeof value === 'string' && value !== '') runtime[key] = value;
  }
  if (input.retryable === true) runtime.retryable = true;
  return runtime;
}

/** A throwing availability() makes its tool unavailable rather than breaking the catalog. */
export function runtimeFromFailure(error: unknown): RuntimeState {
  const message = error instanceof Error ? error.message : String(error);
  return {
    available: false,
    code: 'tool_unavailable',
    reason: `availability check failed: ${message}`,
  };
}

/**
 * What the bridge remembers about each definition object across rebuilds, so that one
 * registration among 10,000 does not normalize, stringify and hash the other 9,999 again.
 * Entries are keyed by the definition object and trusted while its top-level fields are the
 * same values (===); a schema object mutated in place is not noticed: pass a new definition.
 */
interface DefinitionRecord {
  fingerprint: readonly unknown[];
  definition: StaticDefinition;
  json: string;
  revision: string;
  /** Set while `revision` is being hashed: a build that reuses the record awaits it too. */
  hashing?: Promise<void>;
  /** Built on the first query that searches text. */
  haystack?: string;
}

export interface DefinitionCache {
  records: WeakMap<object, DefinitionRecord>;
  /** definition JSON -> definitionRevision: a re-registered identical definition is not rehashed. */
  revisions: Map<string, string>;
}

export function createDefinitionCache(): DefinitionCache {
  return { records: new WeakMap(), revisions: new Map() };
}

function fingerprintOf(definition: BridgeToolDefinition): unknown[] {
  return [
    definition.id,
    definition.name,
    definition.description,
    definition.category,
    definition.policy,
    definition.argumentsSchema,
    definition.resultSchema,
    definition.keywords,
    definition.prerequisiteToolIds,
    definition.argumentEncoding,
    definition.origin,
    definition.annotations,
  ];
}

function sameFingerprint(record: DefinitionRecord, definition: BridgeToolDefinition): boolean {
  const next = fingerprintOf(definition);
  return next.every((value, i) => value === record.fingerprint[i]);
}

export interface BuildCatalogOptions {
  guard: Guard;
  onToolError?: (error: Error) => void;
  cache: DefinitionCache;
}

export async function buildCatalogState(
  source: ToolSource,
  options: BuildCatalogOptions,
): Promise<CatalogState> {
  const { guard, cache } = options;
  const byId = new Map<string, CatalogTool>();
  const pending: Promise<void>[] = [];
  const used = new Set<string>();
  for (const tool of source()) {
    const raw = tool?.definition;
    let record = raw && typeof raw === 'object' ? cache.records.get(raw) : undefined;
    if (!record || !sameFingerprint(record, raw)) {
      let definition: StaticDefinition;
      try {
        definition = toStaticDefinition(raw ?? ({} as BridgeToolDefinition));
      } catch (error) {
        options.onToolError?.(error as Error);
        continue;
      }
      const json = JSON.stringify(definition);
      const fresh: DefinitionRecord = {
        fingerprint: fingerprintOf(raw),
        definition,
        json,
        revision: cache.revisions.get(json) ?? '',
      };
      if (fresh.revision === '') {
        fresh.hashing = revisionOfJson(json).then(
          (revision) => {
            cache.revisions.set(json, revision);
            fresh.revision = revision;
            fresh.hashing = undefined;
          },
          (error: unknown) => {
            // Not remembered half-made: the next build hashes it again.
            cache.records.delete(raw);
            throw error;
          },
        );
      }
      cache.records.set(raw, fresh);
      record = fresh;
    }
    // Also when another build made the record: its revision may still be on the way.
    if (record.hashing) pending.push(record.hashing);
    const { definition } = record;
    if (byId.has(definition.id)) {
      options.onToolError?.(
        new Error(`Duplicate tool id "${definition.id}": the first registration wins.`),
      );
      continue;
    }
    used.add(record.json);
    byId.set(definition.id, { tool, definition, record });
  }
  await Promise.all(pending);
  // Forget revisions of definitions that left the catalog, so the cache tracks the tool set.
  if (cache.revisions.size > 2 * used.size + 64) {
    for (const key of cache.revisions.keys()) if (!used.has(key)) cache.revisions.delete(key);
  }

  const visible = [...byId.values()]
    .filter((entry) => isVisible(guard, entry.definition.policy))
    .sort((a, b) => compareOrdinal(a.definition.id, b.definition.id));
  const categoryCounts = new Map<string, number>();
  for (const entry of visible) {
    categoryCounts.set(
      entry.definition.category,
      (categoryCounts.get(entry.definition.category) ?? 0) + 1,
    );
  }
  const categories: Record<string, number> = {};
  for (const name of [...categoryCounts.keys()].sort(compareOrdinal))
    categories[name] = categoryCounts.get(name) ?? 0;

  const revisionJson = JSON.stringify({
    schema: CATALOG_SCHEMA,
    guard: {
      discoveryEnabled: guard.discoveryEnabled,
      executionEnabled: guard.executionEnabled,
      maxPolicy: guard.maxPolicy,
    },
    tools: visible.map((entry) => ({
      id: entry.definition.id,
      definitionRevision: entry.record.revision,
    })),
  });
  const ranked = visible.some((entry) => rankOf(entry) !== 0);
  const listed = ranked
    ? [...visible].sort(
        (a, b) => rankOf(a) - rankOf(b) || compareOrdinal(a.definition.id, b.definition.id),
      )
    : visible;
  const [revision, allAvailableRevision, orderKey] = await Promise.all([
    revisionOfJson(revisionJson),
    revisionOfJson(availabilityJson(visible, new Map())),
    // Ranks are the page's to set (by registration order, say), which the revision does not
    // cover: a cursor must not resume in a listing that was reordered under it.
    ranked
      ? revisionOfJson(`${revisionJson}${JSON.stringify(listed.map((e) => e.definition.id))}`)
      : undefined,
  ]);
  return {
    guard,
    byId,
    visible,
    listed,
    listingKey: (orderKey ?? revision).slice('sha256:'.length),
    checked: visible.filter((entry) => typeof entry.tool.availability === 'function'),
    revision,
    categories,
    allAvailableRevision,
    availabilityRevisions: new Map(),
  };
}

function rankOf(entry: CatalogTool): number {
  const rank = entry.tool.listingRank;
  return typeof rank === 'number' && Number.isFinite(rank) ? rank : 0;
}

function availabilityJson(visible: CatalogTool[], unavailable: Map<string, RuntimeState>): string {
  const parts: string[] = [];
  for (const entry of visible) {
    const runtime = unavailable.get(entry.definition.id);
    parts.push(
      `{"id":${JSON.stringify(entry.definition.id)},"runtime":${runtime ? JSON.stringify(runtime) : AVAILABLE_RUNTIME_JSON}}`,
    );
  }
  return `{"tools":[${parts.join(',')}]}`;
}

/** Evaluates every availability() of the visible tools and finds (or computes) the revision. */
export async function evaluateAvailability(state: CatalogState): Promise<AvailabilitySnapshot> {
  const unavailable = new Map<string, RuntimeState>();
  const results: unknown[] = [];
  let async = false;
  for (const entry of state.checked) {
    let value: unknown;
    try {
      value = entry.tool.availability?.();
    } catch (error) {
      value = runtimeFromFailure(error);
    }
    if (typeof (value as PromiseLike<unknown> | undefined)?.then === 'function') {
      async = true;
      value = Promise.resolve(value).catch(runtimeFromFailure);
    }
    results.push(value);
  }
  const settled = async ? await Promise.all(results) : results;
  for (let i = 0; i < settled.length; i++) {
    const runtime = normalizeRuntime(settled[i]);
    const entry = state.checked[i];
    if (runtime && entry) unavailable.set(entry.definition.id, runtime);
  }
  const evaluatedAtUtc = new Date().toISOString();
  if (unavailable.size === 0)
    return { revision: state.allAvailableRevision, unavailable, evaluatedAtUtc };
  const key = JSON.stringify([...unavailable]);
  let revision = state.availabilityRevisions.get(key);
  if (!revision) {
    revision = await revisionOfJson(availabilityJson(state.visible, unavailable));
    if (state.availabilityRevisions.size >= MAX_CACHED_AVAILABILITY_STATES)
      state.availabilityRevisions.clear();
    state.availabilityRevisions.set(key, revision);
  }
  return { revision, unavailable, evaluatedAtUtc };
}
