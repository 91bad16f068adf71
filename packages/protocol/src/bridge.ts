/**
 * createToolBridge: the page (SDK endpoint) side of the wire (docs/wire.md), over any ToolSource.
 * It holds the catalog (built once per invalidate()) and puts the rooms together:
 *
 * - dispatch.ts: reads each message and answers tool.query / tool.call / tool.batch with
 *   exactly one response, or passes it through; never throws;
 * - call.ts: one call's checks in docs/wire.md's order, each with its code, then evidence;
 * - deadlines.ts: the running calls and batches: their deadlines (one sweep timer for all),
 *   cancels by request id, and progress for those that asked;
 * - frame.ts: writing the response frame, where serializability is checked (a payload that
 *   cannot be serialized becomes `tool_protocol_bridge_failed`; >= 32 KiB is gzip-wrapped when
 *   that is smaller, after it is written).
 * - deflate-load.ts: fflate, loaded the first time a payload must be inflated, or gzipped without
 *   a compressor given.
 */
import type { EvidenceProvider } from './call.js';
import { createCallPipeline, DEFAULT_EVIDENCE } from './call.js';
import type { CatalogState, ToolSource } from './catalog.js';
import { buildCatalogState, createDefinitionCache, evaluateAvailability } from './catalog.js';
import type { CodecLimits, GzipAsync } from './codec.js';
import type { HandleScope } from './deadlines.js';
import { createDeadlines } from './deadlines.js';
import type { DeflateModule } from './deflate-load.js';
import { importDeflate } from './deflate-load.js';
import type { CatalogHolder } from './dispatch.js';
import { createDispatch } from './dispatch.js';
import type { BridgeResponse } from './frame.js';
import type { Guard, GuardPreset } from './guard.js';
import { resolveGuard } from './guard.js';
import { DEFAULT_MAX_DEPTH, FRAME_DEPTH_ALLOWANCE } from './json.js';
import type { ToolPolicy } from './messages.js';
import { DEFAULT_CALL_TIMEOUT_MS } from './messages.js';
import type { SchemaFailureModule } from './schema-failure-load.js';
import { importSchemaFailure } from './schema-failure-load.js';
import type { ValidatorProvider } from './validator.js';

export type { EvidenceProvider } from './call.js';
export { DEFAULT_EVIDENCE } from './call.js';
export type { HandleScope } from './deadlines.js';

export interface BridgeLimits extends CodecLimits {
  /**
   * Give up on a tool that has not settled after this long (its signal aborts). Default 60 s;
   * 0 = never. A request's own `timeoutMs` applies when it is smaller.
   */
  callTimeoutMs?: number;
}

export interface ToolBridgeOptions {
  tools: ToolSource;
  /** Read again on every invalidate(). Default `read-only`. */
  guard?: GuardPreset | Guard | (() => GuardPreset | Guard);
  /**
   * The paired host's grant (`maxToolPolicy`), read at every execution: it lowers what the page
   * executes, never raises it (docs/wire.md "Authorization"). Discovery stays the guard's, so a host
   * still sees, and can explain, a tool above its grant. Undefined = no grant to apply.
   */
  grant?: () => ToolPolicy | undefined;
  /**
   * Checks arguments and results against the tools' schemas (those that do not check their
   * own: BridgeTool.validates). No default, so the protocol carries no validator: in Node, take
   * `createAjvProvider` from `@toolwire/protocol/ajv`.
   */
  validator: ValidatorProvider;
  /** Merged over DEFAULT_EVIDENCE. */
  evidence?: Record<string, EvidenceProvider>;
  limits?: BridgeLimits;
  /**
   * Asked at every response: gzip large payloads with this compressor (asynchronously: the
   * page's CompressionStream), or `false` to send them as they are (the host said so in its
   * welcome, docs/wire.md "Large payloads"). Absent: gzipped with fflate (the same bytes as
   * `encodePayload`'s), loaded by `loadDeflate` the first time a payload is large enough.
   */
  compress?: () => GzipAsync | false;
  /**
   * Loads fflate: for a request whose payload is gzipped, and for the default `compress`.
   * Default: this package's own module, by import(). A page script that fetches its chunks by
   * URL passes its own.
   */
  loadDeflate?: () => Promise<DeflateModule>;
  /**
   * Loads schema-failure.ts (a schema failure's `details` and worded message), the first time a
   * call fails its schema. Default: this package's own module, by import(). A page script that
   * fetches its chunks by URL passes its own; when it cannot load, the call fails with the same
   * code, a plainer message and no `details`.
   */
  loadSchemaFailure?: () => Promise<SchemaFailureModule>;
  /** Told about tool definitions left out of the catalog (invalid, duplicate). Default: console.warn. */
  onToolError?: (error: Error) => void;
}

/** The catalog's two revisions as a host would read them now (docs/wire.md "Revisions"). */
export interface BridgeRevisions {
  revision: string;
  availabilityRevision: string;
}

/** The catalog as a host would see it now, read without a request. */
export interface BridgeSnapshot extends BridgeRevisions {
  guard: Guard;
  /** Valid tools the guard keeps out of the catalog, sorted by id. */
  hidden: { id: string; policy: ToolPolicy }[];
}

export interface ToolBridge {
  /**
   * Answers one message (undefined: not a tool request). `scope` is the connection it came on:
   * its requests report progress there, and only a cancel naming that scope reaches them.
   */
  handle(message: unknown, scope?: HandleScope): Promise<BridgeResponse | undefined>;
  /**
   * Cancels the pending `tool.call` or `tool.batch` `requestId` (of `scope`, when given): its
   * tool's signal aborts with a `tool_call_cancelled` ToolProtocolError and the request is
   * answered with that code (a batch stops). False when no such request is pending.
   */
  cancel(requestId: string, scope?: HandleScope, reason?: string): boolean;
  /** The tool set or guard changed: rebuild revisions on the next request. */
  invalidate(): void;
  /** Both revisions as of now (availability evaluated now), without a request. */
  revisions(): Promise<BridgeRevisions>;
  /** Both revisions, the guard and the hidden tools, as of now. */
  snapshot(): Promise<BridgeSnapshot>;
}

export function createToolBridge(options: ToolBridgeOptions): ToolBridge {
  const maxDepth = options.limits?.maxDepth ?? DEFAULT_MAX_DEPTH;
  const frameDepth = maxDepth + FRAME_DEPTH_ALLOWANCE;
  const onToolError =
    options.onToolError ?? ((error: Error) => console.warn(`toolwire: ${error.message}`));
  const definitionCache = createDefinitionCache();
  const loadDeflate = options.loadDeflate ?? importDeflate;
  // No compressor given: fflate's gzip at level 1, as encodePayload writes it.
  const gzipInLine: GzipAsync = async (bytes) => (await loadDeflate()).gzip(bytes);
  let statePromise: Promise<CatalogState> | undefined;
  /** The state statePromise resolved to, once it has: calls then skip an await. */
  let ready: CatalogState | undefined;

  const readGuard = (): Guard =>
    resolveGuard(typeof options.guard === 'function' ? options.guard() : options.guard);

  const catalog: CatalogHolder = {
    current: () => ready,
    get() {
      if (!statePromise) {
        const building = buildCatalogState(options.tools, {
          guard: readGuard(),
          cache: definitionCache,
          onToolError,
        });
        statePromise = building;
        // A failed build is not cached: the next request tries again.
        building.then(
          (state) => {
            if (statePromise === building) ready = state;
          },
          () => {
            if (statePromise === building) statePromise = undefined;
          },
        );
      }
      return statePromise;
    },
  };

  const deadlines = createDeadlines(options.limits?.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS);
  const handle = createDispatch({
    catalog,
    deadlines,
    runCall: createCallPipeline({
      validator: options.validator,
      evidence: { ...DEFAULT_EVIDENCE, ...options.evidence },
      maxDepth,
      grant: options.grant,
      deadlines,
      loadSchemaFailure: options.loadSchemaFailure ?? importSchemaFailure,
    }),
    frameLimits: { maxInflatedBytes: options.limits?.maxInflatedBytes, maxDepth: frameDepth },
    write: { maxDepth: frameDepth },
    compress: options.compress ?? (() => gzipInLine),
    loadDeflate,
  });

  const revisionsOf = async (state: CatalogState): Promise<BridgeRevisions> => ({
    revision: state.revision,
    availabilityRevision: (await evaluateAvailability(state)).revision,
  });

  return {
    handle,
    cancel: deadlines.cancel,
    invalidate() {
      statePromise = undefined;
      ready = undefined;
    },
    async revisions() {
      return revisionsOf(await catalog.get());
    },
    async snapshot() {
      const state = await catalog.get();
      const revisions = await revisionsOf(state);
      const hidden: BridgeSnapshot['hidden'] = [];
      const shown = new Set(state.visible);
      for (const entry of state.byId.values()) {
        if (!shown.has(entry)) {
          hidden.push({ id: entry.definition.id, policy: entry.definition.policy });
        }
      }
      hidden.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return { ...revisions, guard: state.guard, hidden };
    },
  };
}
