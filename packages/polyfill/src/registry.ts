/**
 * One registry per document, shared by `window.toolManager` / `window.tools` and
 * `document.modelContext` (docs/browser-api.md "Two layers share one registry").
 *
 * 1. Names are unique per document; an entry is replaced only by unregistering it.
 * 2. Exposure: a tool is visible to its own origin, and to origins its `exposedTo` lists
 *    (or every origin for '*'). Frames ask the same question with their origin.
 * 3. Changes are coalesced: listeners hear once per microtask checkpoint, never from a
 *    macrotask, so `await register()` in a loop is not clamped by timers (docs/performance.md).
 * 4. Execution (spec "executeTool"): `toolactivated` fires at the owner once `execute` has
 *    started (as WPT executeTool-abort and Chromium order it; the spec's "imperative execute
 *    steps" fire it just before); each execution has its own AbortController; a caller abort rejects the caller with the
 *    caller's reason at once, then, in a later task, aborts the tool's signal with a default
 *    AbortError and fires `toolcancel`. Unregistering does not cancel a running execution.
 */
import { ToolActivatedEvent, ToolCancelEvent, unheard } from './events.js';
import { abortReason, domException, queueTask } from './lib/dom.js';
import { noProgress, progressReporter } from './progress.js';
import type { StandardSchemas } from './standard-schema.js';
import type {
  AvailabilityResult,
  JsonSchema,
  ToolAnnotations,
  ToolCaller,
  ToolExecuteContext,
  ToolPolicy,
  ToolProgress,
} from './types.js';

type ToolLayer = 'toolManager' | 'modelContext' | 'declarative';

export interface RegistryEntryInit {
  name: string;
  origin: string;
  exposedTo: readonly string[];
  layer: ToolLayer;
  agentExposed: boolean;
  title: string | null;
  description: string;
  annotations: ToolAnnotations | null;
  inputSchema: JsonSchema | undefined;
  outputSchema: JsonSchema | undefined;
  /**
   * A side given as a Standard Schema (defineTool): it validates that side, and the schema
   * fields above hold only the JSON Schema agents read (standard-schema.ts).
   */
  standard?: StandardSchemas | undefined;
  category: string | undefined;
  keywords: readonly string[];
  prerequisites: readonly string[];
  policy: ToolPolicy;
  availability: (() => AvailabilityResult) | undefined;
  execute: (input: unknown, context: ToolExecuteContext) => unknown;
  /** Where `toolactivated` / `toolcancel` fire for this tool. */
  events: EventTarget;
  /**
   * The tool fires `toolactivated` itself: a declarative (form) tool fires it after the form
   * is filled, not before (explainer "toolactivated"; WPT executeTool-pseudo-classes).
   */
  selfActivating?: boolean;
}

export interface RegistryEntry extends RegistryEntryInit {
  /** Unique per registration: a re-registered name is a different entry. */
  readonly key: number;
  /**
   * Per-entry memo for the layers (Tool handles, expanded schemas, native mirrors): made on
   * first use (`entry.memo ??= new Map()`), so that a registration nobody has listed yet holds no Map
   * (a Map per registration was a large share of what a cold page's collector copied).
   */
  memo: Map<string, unknown> | undefined;
}

export interface RegistryChange {
  /** Did an agent-exposed tool come or go? (document.modelContext listens only to those.) */
  agent: boolean;
  /** The union of the changed tools' exposedTo lists (frames tell exactly those origins). */
  exposedTo: Set<string>;
  /** Each registration that came or went, in order (modelContext fires one toolchange each). */
  entries: RegistryEntry[];
}

/**
 * Marks an error a tool's execute() rejects with as the registry's kind of failure (a form
 * tool whose form went away mid-call), not the tool's own: callers see it as it is
 * (NotFoundError) instead of a ToolExecutionError. A registered symbol, so that the lazily
 * loaded declarative chunk shares it.
 */
const CALLER_ERROR: unique symbol = Symbol.for('toolwire.callerError');

/** A tool's own failure, as opposed to the registry's: the layers report it differently. */
export class ToolFailure {
  readonly error: unknown;

  constructor(error: unknown) {
    this.error = error;
  }
}

export interface ExecuteOptions {
  signal?: AbortSignal | undefined;
  caller: ToolCaller;
  /** The caller's progress listener: the tool's reportProgress delivers to it while the call runs. */
  onProgress?: ((progress: ToolProgress) => void) | undefined;
}

export class ToolRegistry {
  readonly origin: string;
  #entries = new Map<string, RegistryEntry>();
  #listeners = new Set<(change: RegistryChange) => void>();
  #pending: RegistryChange | null = null;
  #nextKey = 1;

  constructor(origin: string) {
    this.origin = origin;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(name: string): RegistryEntry | undefined {
    return this.#entries.get(name);
  }

  values(): IterableIterator<RegistryEntry> {
    return this.#entries.values();
  }

  /** Adds a registration; the caller has checked the name is free. */
  add(init: RegistryEntryInit): RegistryEntry {
    if (this.#entries.has(init.name))
      throw domException('InvalidStateError', `A tool named "${init.name}" is already registered.`);
    const entry: RegistryEntry = { ...init, key: this.#nextKey++, memo: undefined };
    this.#entries.set(entry.name, entry);
    this.#changed(entry);
    return entry;
  }

  /** Removes exactly this registration (not a later one that reused the name). */
  remove(entry: RegistryEntry): boolean {
    if (this.#entries.get(entry.name) !== entry) return false;
    this.#entries.delete(entry.name);
    this.#changed(entry);
    return true;
  }

  isCurrent(entry: RegistryEntry): boolean {
    return this.#entries.get(entry.name) === entry;
  }

  static isExposedTo(entry: RegistryEntry, callerOrigin: string): boolean {
    return (
      entry.origin === callerOrigin ||
      entry.exposedTo.includes('*') ||
      entry.exposedTo.includes(callerOrigin)
    );
  }

  /** Tools visible to `callerOrigin`, sorted by name (code units), then origin. */
  list(callerOrigin: string, filter?: (entry: RegistryEntry) => boolean): RegistryEntry[] {
    const out: RegistryEntry[] = [];
    for (const entry of this.#entries.values()) {
      if (ToolRegistry.isExposedTo(entry, callerOrigin) && (!filter || filter(entry)))
        out.push(entry);
    }
    return out.sort(compareByName);
  }

  onChange(listener: (change: RegistryChange) => void): () => void {
    this.#listeners.add(listener);
    this.#snapshot = null;
    return () => {
      this.#snapshot = null;
      return this.#listeners.delete(listener);
    };
  }

  #changed(entry: RegistryEntry): void {
    const pending = this.#pending;
    if (pending) {
      pending.agent ||= entry.agentExposed;
      for (const origin of entry.exposedTo) pending.exposedTo.add(origin);
      pending.entries.push(entry);
      return;
    }
    this.#pending = {
      agent: entry.agentExposed,
      exposedTo: new Set(entry.exposedTo),
      entries: [entry],
    };
    queueMicrotask(this.#flush);
  }

  /**
   * The listeners as they were when a change is told: a copy, made again only after one comes
   * or goes (not once per registration).
   */
  #snapshot: ((change: RegistryChange) => void)[] | null = null;

  #flush = (): void => {
    const change = this.#pending as RegistryChange;
    this.#pending = null;
    this.#snapshot ??= [...this.#listeners];
    for (const listener of this.#snapshot) listener(change);
  };

  /**
   * Runs a tool for a caller. Resolves with what `execute` returned; rejects
   * with the caller's abort reason, or with a ToolFailure wrapping what the tool threw.
   */
  execute(entry: RegistryEntry, input: unknown, options: ExecuteOptions): Promise<unknown> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      // The tool's AbortController is made when the tool first reads `signal` (or when it must
      // abort): most tools never look, and it is a third of a plain call's cost.
      let controller: AbortController | undefined;
      let settled = false;
      const context: ToolExecuteContext = {
        get signal() {
          controller ??= new AbortController();
          return controller.signal;
        },
        caller: options.caller,
        // Reports reach the caller only while the call runs: not once it settled, nor once the
        // caller aborted (also while execute() itself still runs, before onAbort is called).
        reportProgress: options.onProgress
          ? progressReporter(options.onProgress, () => settled || signal?.aborted === true)
          : noProgress,
      };
      const onAbort = () => {
        if (settled) return;
        settled = true;
        reject(abortReason(signal as AbortSignal));
        queueTask(() => {
          controller ??= new AbortController();
          controller.abort(domException('AbortError', 'The caller cancelled this tool execution.'));
          entry.events.dispatchEvent(new ToolCancelEvent('toolcancel', { toolName: entry.name }));
        });
      };
      // The abort listener goes on only when the tool returns a promise: a tool that answers at
      // once is settled before anyone could abort, so most calls never touch the signal. An
      // abort during toolactivated or execute() itself is found by looking, right after.
      let listening = false;
      const finish = (ok: boolean, value: unknown) => {
        if (settled) return; // cancelled meanwhile: the late outcome is ignored (spec)
        settled = true;
        if (listening) signal?.removeEventListener('abort', onAbort);
        if (ok) resolve(value);
        // A failure the registry would report for any tool (a form tool whose form went away):
        // passed on as it is, not as the tool's own failure.
        else if ((value as { [CALLER_ERROR]?: boolean } | null)?.[CALLER_ERROR]) reject(value);
        else reject(new ToolFailure(value));
      };
      let returned: unknown;
      let threw = false;
      let then: unknown;
      try {
        returned = entry.execute(input, context);
      } catch (error) {
        threw = true;
        returned = error;
      }
      // After execute has started, before its outcome is looked at; not built for a target
      // nobody listens to (events.ts).
      if (!entry.selfActivating && !unheard.has(entry.events))
        entry.events.dispatchEvent(
          new ToolActivatedEvent('toolactivated', { toolName: entry.name }),
        );
      if (!threw && returned !== null) then = (returned as PromiseLike<unknown> | undefined)?.then;
      // Aborted meanwhile (by a toolactivated listener, or by execute): as the listener would
      // have, the caller gets the reason and the tool's signal aborts in a later task.
      if (signal?.aborted) {
        onAbort();
        return;
      }
      if (threw) {
        finish(false, returned);
      } else if (typeof then === 'function') {
        if (signal) {
          signal.addEventListener('abort', onAbort, { once: true });
          listening = true;
        }
        (then as PromiseLike<unknown>['then']).call(
          returned,
          (value) => finish(true, value),
          (error) => finish(false, error),
        );
      } else {
        finish(true, returned);
      }
    });
  }
}

/** By name, then origin (code units): the order every listing has (entries and Tool handles). */
export function compareByName(
  a: { name: string; origin: string },
  b: { name: string; origin: string },
): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0;
}
