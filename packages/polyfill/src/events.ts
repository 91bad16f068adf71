/**
 * WebMCP's events (spec "Events"): `toolactivated` and `toolcancel` carry the tool's name;
 * `toolchange` is a plain Event. All fire without bubbling and cannot be cancelled.
 */
export interface ToolEventInit extends EventInit {
  toolName?: string;
}

export class ToolActivatedEvent extends Event {
  readonly toolName: string;
  constructor(type: string, init: ToolEventInit = {}) {
    super(type, init);
    this.toolName = init.toolName ?? '';
  }
}

export class ToolCancelEvent extends Event {
  readonly toolName: string;
  constructor(type: string, init: ToolEventInit = {}) {
    super(type, init);
    this.toolName = init.toolName ?? '';
  }
}
