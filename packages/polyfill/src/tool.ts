import type { ToolDescriptor } from './frames/messages.js';
import type { RegistryEntry } from './registry.js';
import type { CallToolOptions, JsonSchema, ToolAnnotations } from './types.js';

/** What a Tool handle calls through: the Tools object that handed it out (`window.tools`, or `tools.of(frame)`). */
export interface HandleOwner {
  callTool(tool: Tool, input?: unknown, options?: CallToolOptions): Promise<unknown>;
}

/**
 * Where a handle's tool lives: this document's registry, the browser's own
 * `document.modelContext`, or another frame (with what that frame last reported of it).
 */
export type ToolSource =
  | { kind: 'registry'; entry: RegistryEntry }
  | {
      kind: 'native';
      /**
       * Is it the browser's own form tool (a `<form toolname>` it registered)? Looked up when
       * asked (the form's document is read), false where that document cannot be read.
       */
      declarative(): boolean;
    }
  | { kind: 'frame'; descriptor: ToolDescriptor };

/** What a Tool handle shows. */
export interface ToolFields {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema | undefined;
  outputSchema: JsonSchema | undefined;
  annotations: ToolAnnotations | undefined;
  origin: string;
  agentExposed: boolean;
}

/**
 * A handle on one registration (docs/browser-api.md `Tool`): stable for that registration, so handles can
 * be compared with ===; once the tool is unregistered, calling it rejects NotFoundError.
 */
export class Tool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonSchema | undefined;
  readonly outputSchema: JsonSchema | undefined;
  readonly annotations: Readonly<ToolAnnotations> | undefined;
  readonly origin: string;
  readonly agentExposed: boolean;
  #caller: HandleOwner;

  constructor(caller: HandleOwner, fields: ToolFields) {
    this.#caller = caller;
    this.name = fields.name;
    this.title = fields.title;
    this.description = fields.description;
    this.inputSchema = fields.inputSchema;
    this.outputSchema = fields.outputSchema;
    this.annotations = fields.annotations ? Object.freeze({ ...fields.annotations }) : undefined;
    this.origin = fields.origin;
    this.agentExposed = fields.agentExposed;
    Object.freeze(this);
  }

  call(input?: unknown, options?: CallToolOptions): Promise<unknown> {
    return this.#caller.callTool(this, input, options);
  }
}

const HANDLE = 'tools.handle';
const HANDLES = new WeakMap<Tool, RegistryEntry>();

/** The Tool handle of a registry entry, made once per entry. */
export function handleOf(caller: HandleOwner, entry: RegistryEntry): Tool {
  entry.memo ??= new Map();
  const memo = entry.memo;
  let handle = memo.get(HANDLE) as Tool | undefined;
  if (!handle) {
    handle = new Tool(caller, {
      name: entry.name,
      title: entry.title ?? '',
      description: entry.description,
      inputSchema: entry.inputSchema,
      outputSchema: entry.outputSchema,
      annotations: entry.annotations ?? undefined,
      origin: entry.origin,
      agentExposed: entry.agentExposed,
    });
    memo.set(HANDLE, handle);
    HANDLES.set(handle, entry);
  }
  return handle;
}

export function entryOf(handle: Tool): RegistryEntry | undefined {
  return HANDLES.get(handle);
}
