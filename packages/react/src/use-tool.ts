/**
 * `useTool(definition)` and `useTools([...])`: the tools are registered with
 * `window.toolManager` while the component is mounted (docs/react.md).
 *
 * 1. Mount registers, unmount unregisters (by aborting the registration's signal: it removes
 *    exactly this registration, never a later one under the same name).
 * 2. StrictMode's mount, unmount, mount ends with one registration per tool: every register and
 *    unregister for a name is queued behind the previous one (lib/queue.ts), and a registration
 *    cancelled before its turn is never sent.
 * 3. Unmounting aborts the calls in flight (lib/calls.ts): callers get an AbortError, and the
 *    `signal` execute() was given aborts.
 * 4. `execute` and `availability` are read from a ref at call time: a new closure every render
 *    does not re-register. A change in a definition's data does, that tool's only
 *    (lib/identity.ts).
 * 5. Nothing touches `window` during render (SSR renders fine; effects do not run there).
 * 6. A definition whose `inputSchema` or `outputSchema` is a Standard Schema (zod, valibot...)
 *    goes through `defineTool()` when it registers: agents get its JSON Schema, every call is
 *    validated by the schema itself. A definition `defineTool()` refuses is the tool's error.
 */
import type { ToolDefinition, ToolExecuteContext, ToolSchema, ToolSpec } from '@toolwire/polyfill';
import { defineTool } from '@toolwire/polyfill';
import { useEffect, useInsertionEffect, useRef, useState } from 'react';
import { CallTracker } from './lib/calls.js';
import { identityKey } from './lib/identity.js';
import { enqueue } from './lib/queue.js';
import type { ToolInput, ToolManagerLike, UseToolResult } from './types.js';

const MISSING =
  'useTool: window.toolManager is missing. Call install() from @toolwire/polyfill before ' +
  'rendering, or load polyfill.iife.js in a <script> before the app.';

let reportedMissing = false;

function findToolManager(): ToolManagerLike | undefined {
  const candidate = (globalThis as { toolManager?: Partial<ToolManagerLike> }).toolManager;
  return typeof candidate?.register === 'function' ? (candidate as ToolManagerLike) : undefined;
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

function isStandard(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '~standard' in value;
}

/** What register() takes: a definition with a Standard Schema through defineTool() first. */
function prepared(definition: ToolInput): ToolDefinition {
  return isStandard(definition.inputSchema) || isStandard(definition.outputSchema)
    ? (defineTool(definition as ToolSpec<ToolSchema, ToolSchema>) as ToolDefinition)
    : (definition as ToolDefinition);
}

/** The definition register() receives: this render's data, the latest functions by name. */
function registered(
  snapshot: ToolInput,
  latest: { readonly current: readonly ToolInput[] },
  calls: CallTracker,
  live: () => boolean,
): ToolDefinition {
  const { execute: _execute, availability, ...data } = prepared(snapshot);
  const { name } = snapshot;
  // The latest committed render's definition of this name (gone since: this render's).
  const current = () => latest.current.find((each) => each.name === name) ?? snapshot;
  const tool: ToolDefinition = {
    ...data,
    execute: (input: unknown, context: ToolExecuteContext) =>
      calls.run(name, live, context, (own) => current().execute(input, own)),
  };
  if (availability)
    tool.availability = () => {
      const now = current();
      // Dropped since registration without a data change: the tool is available.
      return now.availability ? now.availability() : true;
    };
  return tool;
}

/** One registration the component holds: which definition data, and how to take it back. */
interface Slot {
  name: string;
  manager: ToolManagerLike | undefined;
  controller: AbortController;
  live: boolean;
}

/** Identity keys, one per definition; a repeat of the same data gets a key of its own. */
function keysOf(definitions: readonly ToolInput[]): string[] {
  const seen = new Map<string, number>();
  return definitions.map((definition) => {
    const key = identityKey(definition);
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    return count === 1 ? key : `${key}\u0000#${count}`;
  });
}

/** The registrations of a list of definitions, one result each (the two hooks' one core). */
function useRegistrations(definitions: readonly ToolInput[]): UseToolResult[] {
  const latest = useRef(definitions);
  // Before any effect of this commit, and never for a render React throws away.
  useInsertionEffect(() => {
    latest.current = definitions;
  });
  const tracker = useRef<CallTracker | null>(null);
  tracker.current ??= new CallTracker();
  const calls = tracker.current;
  const slots = useRef(new Map<string, Slot>());
  const keys = keysOf(definitions);
  // Per identity key: undefined once registered, the Error when it failed; absent: pending.
  const [outcomes, setOutcomes] = useState<ReadonlyMap<string, Error | undefined>>(() => new Map());

  // Calls belong to the mounted component, not to one registration: a re-registration after a
  // data change leaves running calls alone; only unmounting aborts them.
  useEffect(() => {
    calls.open();
    return () => calls.close();
  }, [calls]);

  // Unmounting (StrictMode's rehearsal too) takes every registration back.
  useEffect(() => {
    const held = slots.current;
    return () => {
      for (const slot of held.values()) release(slot);
      held.clear();
    };
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the keys are the definitions' identity (lib/identity.ts); the definitions themselves are new objects every render.
  useEffect(() => {
    const held = slots.current;
    const wanted = new Set(keys);
    const settle = (key: string, error: Error | undefined) =>
      setOutcomes((previous) => {
        const next = new Map([...previous].filter(([known]) => held.has(known)));
        return next.set(key, error);
      });
    // What this render no longer has goes first: a changed tool's old registration is
    // queued before its new one.
    for (const [key, slot] of held) {
      if (wanted.has(key)) continue;
      release(slot);
      held.delete(key);
    }
    definitions.forEach((definition, index) => {
      const key = keys[index] as string;
      if (held.has(key)) return;
      const manager = findToolManager();
      const slot: Slot = {
        name: definition.name,
        manager,
        controller: new AbortController(),
        live: true,
      };
      held.set(key, slot);
      if (!manager) {
        const error = new TypeError(MISSING);
        if (!reportedMissing) {
          reportedMissing = true;
          console.error(error.message);
        }
        settle(key, error);
        return;
      }
      const fail = (reason: unknown) => {
        if (!slot.live) return;
        const error = asError(reason);
        console.error(
          `useTool: could not register "${definition.name}": ${error.name}: ${error.message}`,
        );
        settle(key, error);
      };
      let tool: ToolDefinition;
      try {
        tool = registered(definition, latest, calls, () => slot.live);
      } catch (error) {
        fail(error);
        return;
      }
      enqueue(manager, slot.name, () => {
        if (!slot.live) return; // released before its turn: never registered
        // A promise even if register() throws instead of rejecting (not the polyfill's way).
        return new Promise<void>((resolve) =>
          resolve(manager.register(tool, { signal: slot.controller.signal })),
        ).then(() => {
          if (slot.live) settle(key, undefined);
        }, fail);
      });
    });
  }, [keys.join('\u0001'), calls]);

  return definitions.map((definition, index) => {
    const { name } = definition;
    const key = keys[index] as string;
    if (!outcomes.has(key)) return { status: 'pending', name, error: undefined };
    const error = outcomes.get(key);
    if (error) return { status: 'error', name, error };
    return { status: 'registered', name, error: undefined };
  });
}

function release(slot: Slot): void {
  slot.live = false;
  const { manager, controller } = slot;
  if (manager) enqueue(manager, slot.name, () => controller.abort());
}

/**
 * Registers one tool while the component is mounted. `definition` is what
 * `toolManager.register()` takes, typically `defineTool({...})`; its `inputSchema` may also be
 * a zod (or other Standard Schema) schema, which types `execute`'s input.
 */
export function useTool<D extends ToolDefinition>(definition: D): UseToolResult<D['name']>;
// No defaults: `useTool<D>` (one type argument) names the overload above.
export function useTool<
  const I extends ToolSchema | undefined,
  const O extends ToolSchema | undefined,
  const N extends string,
>(definition: ToolSpec<I, O> & { name: N }): UseToolResult<N>;
export function useTool(definition: ToolInput): UseToolResult {
  return useRegistrations([definition])[0] as UseToolResult;
}

/**
 * Registers several tools in one call while the component is mounted: one result each, in
 * order. A change in one definition's data re-registers that tool only. The list may change
 * length between renders (a tool added or dropped is registered or removed).
 */
export function useTools<const T extends readonly ToolInput[]>(
  definitions: T,
): { [K in keyof T]: UseToolResult<T[K]['name']> } {
  return useRegistrations(definitions) as { [K in keyof T]: UseToolResult<T[K]['name']> };
}
