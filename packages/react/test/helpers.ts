import { install, type ToolDefinition } from '@toolwire/polyfill';
import { Window } from 'happy-dom';
import { act, createElement, type ReactNode, StrictMode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { useTool } from '../src/index.js';
import type { UseToolResult } from '../src/types.js';

// react-dom's act() warns unless the environment says it is a test.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

type Globals = { toolManager?: unknown; tools?: unknown };

/**
 * A polyfill installed on its own happy-dom window, its toolManager and tools put on this
 * realm's globals as the IIFE would: the app never imports the polyfill (the script-tag case).
 */
export function scriptTagPolyfill() {
  const installation = install({ window: new Window({ url: 'https://app.example/' }) as never });
  const globals = globalThis as Globals;
  globals.toolManager = installation.toolManager;
  globals.tools = installation.tools;
  return installation;
}

export function removeGlobals(): void {
  const globals = globalThis as Globals;
  delete globals.toolManager;
  delete globals.tools;
}

/** What the probe component's hook returned on its latest render. */
export interface Probe {
  result: UseToolResult | undefined;
}

export function ToolProbe(props: { definition: ToolDefinition; probe: Probe }): null {
  props.probe.result = useTool(props.definition);
  return null;
}

/** A React root rendering one tool-registering component, optionally under StrictMode. */
export function mountTool(strict = false) {
  const root: Root = createRoot(document.createElement('div'));
  const probe: Probe = { result: undefined };
  const wrap = (node: ReactNode) => (strict ? createElement(StrictMode, null, node) : node);
  return {
    probe,
    async render(definition: ToolDefinition): Promise<void> {
      await act(async () => {
        root.render(wrap(createElement(ToolProbe, { definition, probe })));
      });
    },
    /**
     * Waits inside act() for the event `work` awaits (a latch opened, a registration settled):
     * the state updates the hook makes when it comes land inside act() (so React does not warn)
     * and are applied before this returns. act() keeps its scope open for a task after `work`
     * resolves, so the hook's own reaction to the event, a few microtasks later, is included.
     */
    async inAct(work: () => Promise<unknown>): Promise<void> {
      await act(async () => {
        await work();
      });
    },
    async unmount(): Promise<void> {
      await act(async () => {
        root.unmount();
      });
    },
  };
}

/** The error a promise rejects with. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the promise to reject');
}
