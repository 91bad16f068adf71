/**
 * WebMCP's events (spec "Events"): `toolactivated` and `toolcancel` carry the tool's name;
 * `toolchange` is a plain Event. All fire without bubbling and cannot be cancelled.
 */
export interface ToolEventInit extends EventInit {
  toolName?: string;
}

/**
 * The polyfill's event targets that nobody has listened to yet: the registry builds no
 * `toolactivated` event for them (most pages never listen, and the event object was a fifth
 * of an in-page call). A target leaves the set at its first `addEventListener` (an `on...`
 * handler included) and never comes back, so a removed listener only costs the event again.
 */
export const unheard = new WeakSet<EventTarget>();

/** `document.modelContext` and `window.toolManager`: an EventTarget that knows it is listened to. */
export class HeardTarget extends EventTarget {
  constructor() {
    super();
    unheard.add(this);
  }

  override addEventListener(...args: Parameters<EventTarget['addEventListener']>): void {
    unheard.delete(this);
    super.addEventListener(...args);
  }
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
