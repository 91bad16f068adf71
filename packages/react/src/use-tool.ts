/**
 * `useTool(definition)`: the tool is registered with `window.toolManager` while the component
 * is mounted (issue 15, item 6).
 *
 * 1. Mount registers, unmount unregisters (by aborting the registration's signal: it removes
 *    exactly this registration, never a later one under the same name).
 * 2. StrictMode's mount, unmount, mount ends with one registration: every register and
 *    unregister for a name is queued behind the previous one (lib/queue.ts), and a registration
 *    cancelled before its turn is never sent.
 * 3. Unmounting aborts the calls in flight (lib/calls.ts): callers get an AbortError, and the
 *    `signal` execute() was given aborts.
 * 4. `execute` and `availability` are read from a ref at call time: a new closure every render
 *    does not re-register. A change in the definition's data does (lib/identity.ts).
 * 5. Nothing touches `window` during render (SSR renders fine; effects do not run there).
 */
import type { ToolDefinition, ToolExecuteContext } from '@toolwire/polyfill';
import { useEffect, useInsertionEffect, useRef, useState } from 'react';
import { CallTracker } from './lib/calls.js';
import { identityKey } from './lib/identity.js';
import { enqueue } from './lib/queue.js';
import type { ToolManagerLike, UseToolResult } from './types.js';

interface Outcome {
  /** The identity key of the definition this outcome is for. */
  key: string;
  error: Error | undefined;
}

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

/** The definition register() receives: this render's data, the latest functions by `latest`. */
function registered<D extends ToolDefinition>(
  snapshot: D,
  latest: { readonly current: D },
  calls: CallTracker,
  live: () => boolean,
): ToolDefinition {
  const { execute: _execute, availability, ...data } = snapshot;
  const tool: ToolDefinition = {
    ...data,
    execute: (input: unknown, context: ToolExecuteContext) =>
      calls.run(snapshot.name, live, context, (own) => latest.current.execute(input, own)),
  };
  if (availability)
    tool.availability = () => {
      const current = latest.current;
      // Dropped since registration without a data change: the tool is available.
      return current.availability ? current.availability() : true;
    };
  return tool;
}

export function useTool<D extends ToolDefinition>(definition: D): UseToolResult<D['name']> {
  const latest = useRef(definition);
  // Before any effect of this commit, and never for a render React throws away.
  useInsertionEffect(() => {
    latest.current = definition;
  });
  const tracker = useRef<CallTracker | null>(null);
  tracker.current ??= new CallTracker();
  const calls = tracker.current;
  const key = identityKey(definition);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  // Calls belong to the mounted component, not to one registration: a re-registration after a
  // data change leaves running calls alone; only unmounting aborts them.
  useEffect(() => {
    calls.open();
    return () => calls.close();
  }, [calls]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is the definition's identity (lib/identity.ts); `definition` itself is a new object every render.
  useEffect(() => {
    const manager = findToolManager();
    if (!manager) {
      const error = new TypeError(MISSING);
      if (!reportedMissing) {
        reportedMissing = true;
        console.error(error.message);
      }
      setOutcome({ key, error });
      return;
    }
    const { name } = definition;
    const controller = new AbortController();
    let live = true;
    const tool = registered(definition, latest, calls, () => live);
    enqueue(manager, name, () => {
      if (!live) return; // unmounted before its turn: never registered
      // A promise even if register() throws instead of rejecting (not the polyfill's way).
      return new Promise<void>((resolve) =>
        resolve(manager.register(tool, { signal: controller.signal })),
      ).then(
        () => {
          if (live) setOutcome({ key, error: undefined });
        },
        (reason: unknown) => {
          if (!live) return;
          const error = asError(reason);
          console.error(`useTool: could not register "${name}": ${error.name}: ${error.message}`);
          setOutcome({ key, error });
        },
      );
    });
    return () => {
      live = false;
      enqueue(manager, name, () => controller.abort());
    };
  }, [key, calls]);

  const name: D['name'] = definition.name;
  if (outcome?.key !== key) return { status: 'pending', name, error: undefined };
  if (outcome.error) return { status: 'error', name, error: outcome.error };
  return { status: 'registered', name, error: undefined };
}
