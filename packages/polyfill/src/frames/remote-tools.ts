/**
 * `tools.of(frame)`: one frame's subtree read directly (docs/browser-api.md "Reading and calling"): no
 * permission needed, subject to each tool's `exposedTo`. Calls go to that frame; `toolchange`
 * fires when that subtree reports a change.
 */
import { domException } from '../lib/dom.js';
import type { HandleOwner, Tool } from '../tool.js';
import type { CallToolOptions, GetToolsOptions } from '../types.js';
import type { FramesGate } from './gate.js';

export interface FramesOwner {
  of(target: unknown): EventTarget;
}

export class RemoteTools extends EventTarget implements HandleOwner {
  readonly #node: FramesGate;
  readonly #route: number[];
  readonly #owner: FramesOwner;

  constructor(node: FramesGate, route: number[], owner: FramesOwner) {
    super();
    this.#node = node;
    this.#route = route;
    this.#owner = owner;
    node.watch(route, () => this.dispatchEvent(new Event('toolchange')));
  }

  async getTools(options: GetToolsOptions = {}): Promise<Tool[]> {
    return this.#node.toolsAt(this, this.#route, options.agentOnly === true);
  }

  callTool(tool: string | Tool, input?: unknown, options: CallToolOptions = {}): Promise<unknown> {
    if (typeof tool === 'string') {
      return this.#node.callRemote(
        { route: this.#route, name: tool },
        input === undefined ? {} : input,
        options,
      );
    }
    if (!this.#node.isRemote(tool))
      return Promise.reject(
        domException('NotFoundError', `No tool ${tool?.name} in that frame.`, 'tool_not_found'),
      );
    return this.#node.callRemote(tool, input === undefined ? {} : input, options);
  }

  /** A frame below this one (for example `of(child).of(child.contentWindow.frames[0])`). */
  of(target: unknown): EventTarget {
    return this.#owner.of(target);
  }
}
