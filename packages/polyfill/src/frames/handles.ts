/**
 * Tool handles for other frames' tools: one stable handle per route, origin, name and
 * registration, and what the owner frame last reported about it.
 */
import type { HandleOwner, Tool } from '../tool.js';
import type { FrameNodeDeps } from './context.js';
import type { ToolDescriptor } from './messages.js';

/** Where a remote handle's calls go. */
export interface RemoteRef {
  route: number[];
  name: string;
  key: number;
  descriptor?: ToolDescriptor;
}

export class RemoteHandles {
  #makeTool: FrameNodeDeps['makeTool'];
  #refs = new WeakMap<Tool, RemoteRef>();
  #cache = new Map<string, Tool>();

  constructor(makeTool: FrameNodeDeps['makeTool']) {
    this.#makeTool = makeTool;
  }

  /** A stable Tool handle for a remote descriptor (per route, origin, name and registration). */
  handleFor(caller: HandleOwner, tool: ToolDescriptor): Tool {
    const cacheKey = `${tool.route.join('/')}|${tool.origin}|${tool.name}|${tool.key}`;
    let handle = this.#cache.get(cacheKey);
    if (!handle) {
      handle = this.#makeTool(caller, {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: tool.annotations,
        origin: tool.origin,
        agentExposed: tool.agentExposed,
      });
      this.#cache.set(cacheKey, handle);
      this.#refs.set(handle, {
        route: tool.route,
        name: tool.name,
        key: tool.key,
        descriptor: tool,
      });
    } else {
      // Same registration, fresher metadata (availability moves).
      const ref = this.#refs.get(handle);
      if (ref) ref.descriptor = tool;
    }
    return handle;
  }

  refOf(handle: Tool): RemoteRef | undefined {
    return this.#refs.get(handle);
  }

  /** What the owner frame reported about a remote tool when it was last listed. */
  descriptorOf(handle: Tool): ToolDescriptor | undefined {
    return this.#refs.get(handle)?.descriptor;
  }

  isRemote(handle: object): boolean {
    return this.#refs.has(handle as Tool);
  }
}
