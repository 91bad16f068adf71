/**
 * What the parts of a frame's node (node.ts) share: the core's hooks, the permission state, the
 * discovery deadline, and the links to the neighbouring frames.
 */
import type { LoweringModule } from '../lib/lowering.js';
import type { RegistryEntry, ToolRegistry } from '../registry.js';
import type { HandleOwner, Tool, ToolFields } from '../tool.js';
import type { CallEncoding, ToolProgress } from '../types.js';
import type { ErrorFactories } from './errors.js';
import type { Neighbours } from './neighbours.js';

/** Deadlines bound the handshake and discovery, never tool execution. */
export const DISCOVERY_MS = 1500;

export interface FrameNodeDeps {
  window: Window & typeof globalThis;
  registry: ToolRegistry;
  /** The document's own permissions-policy answer when the browser knows `tools`, else undefined. */
  ownPolicy: boolean | undefined;
  /**
   * Runs a local tool for a remote caller through the generic layer; `onProgress` (when the
   * caller asked) receives the tool's checked reports while the call runs.
   */
  runGeneric(
    entry: RegistryEntry,
    input: unknown,
    encoding: CallEncoding,
    signal: AbortSignal,
    caller: string,
    onProgress: ((progress: ToolProgress) => void) | undefined,
  ): Promise<unknown>;
  /** Runs a local tool for a remote document.modelContext caller; resolves a JSON string. */
  runSpec(
    entry: RegistryEntry,
    input: unknown,
    signal: AbortSignal,
    caller: string,
  ): Promise<string>;
  /** The subtree `window.tools` sees changed. */
  toolsChanged(): void;
  /** A tool exposed to this document came or went somewhere in the tree. */
  specChanged(): void;
  /**
   * The core's own constructors: in the IIFE build this module is a separate chunk, and its
   * own copies of Tool or ToolExecutionError would make objects the core does not recognise.
   */
  makeTool(caller: HandleOwner, fields: ToolFields): Tool;
  rebuildError: ErrorFactories;
  /**
   * The core's loader of the lowering (lib/lowering.ts): it finds the chunk beside the script,
   * which a chunk's own copy could not.
   */
  loadLowering(): Promise<LoweringModule>;
}

/** What the node needs from the always-loaded gate (gate.ts): the permission state. */
export interface GateState {
  readonly allowed: boolean | undefined;
  readonly ready: Promise<boolean>;
  decide(vouched: boolean): void;
  /** A welcome after the fallback decided: the parent's word wins unless the policy API spoke. */
  update(vouched: boolean): void;
}

/** One document's node, as its parts see it. */
export interface NodeContext {
  readonly origin: string;
  readonly window: Window & typeof globalThis;
  readonly deps: FrameNodeDeps;
  readonly gate: GateState;
  readonly links: Neighbours;
}
