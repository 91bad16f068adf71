/**
 * The shapes `@toolwire/extension` speaks: a tab, its tools, and the "tools of tab T" client
 * that the background gives to the side panel and to the host link.
 */

/** What a tab is, as the host and MCP clients are told (page-controlled strings: escape them). */
export interface TabIdentity {
  tabId: number;
  title: string;
  url: string;
  origin: string;
}

/** Where a tool comes from: toolwire's polyfill, the browser's own WebMCP, or a declarative form. */
export type TabToolSource = 'toolwire' | 'native' | 'declarative';

export type TabToolPolicy = 'read' | 'write' | 'critical';

/** One tool of a tab, as the MAIN-world reader found it (JSON only). */
export interface TabTool {
  /** The name to call it by in this tab (unique within the tab). */
  name: string;
  title?: string;
  description: string;
  inputSchema?: object;
  outputSchema?: object;
  annotations?: Record<string, unknown>;
  /** The origin of the document that registered it (a frame's tools carry the frame's origin). */
  origin: string;
  source: TabToolSource;
  policy?: TabToolPolicy;
  /**
   * False for a toolwire tool registered without `naturalLanguageProperties`: one for the
   * page's own code, not for agents. The panel lists it; a host is never offered it (as with
   * the page's own endpoint, only agent-exposed tools go on the wire). Absent: agent-exposed.
   */
  agentExposed?: false;
  /**
   * The frame that answers for it, and where a call runs (`chrome.runtime` frame ids: 0 is the
   * tab's top document). Set only by a client made with `tabTools(tabId, { frames: true })`.
   */
  frameId?: number;
}

/**
 * A call's outcome: the result lowered to JSON (docs/lowering.md), or a coded error: the wire's
 * `{code, message, retryable, details}` (docs/wire.md "Error codes"; the page's word, checked
 * for shape and clipped) and the error's `name` for people.
 */
export type TabCallOutcome =
  | { ok: true; result: unknown }
  | {
      ok: false;
      error: {
        code: string;
        name?: string;
        message: string;
        /** Absent: the code's default in the table. */
        retryable?: boolean;
        /** JSON, bounded; null or absent when there is nothing to add. */
        details?: unknown;
      };
    };

/**
 * A running call's progress, as the page's tool reported it (`onProgress` of `callTool`):
 * `progress` grows with each report; `total` when the tool knows it. `message` is the page's
 * word (clipped; show it as text).
 */
export interface TabProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface TabCallOptions {
  /** Aborting it cancels the call: the tool's own signal aborts in the tab, and the call
   * resolves at once with `tool_call_cancelled`. */
  signal?: AbortSignal;
  /** Called with each progress report while the call runs (only then is progress asked for). */
  onProgress?: (progress: TabProgress) => void;
}

/** Why a tab's client stopped: the tab closed, navigated away, or the client was closed. */
export type TabGoneReason = 'closed' | 'navigated' | 'disconnected';

/** "Tools of tab T": list, call, change events. Lives in the background (service worker). */
export interface TabToolsClient {
  readonly tab: TabIdentity;
  list(): Promise<TabTool[]>;
  call(name: string, args: unknown, options?: TabCallOptions): Promise<TabCallOutcome>;
  /** Called with the new list whenever the tab's tools change. Returns an unsubscribe. */
  onChange(listener: (tools: TabTool[]) => void): () => void;
  /** Called once when the tab closes or navigates; pending calls fail with `tab_gone`. */
  onGone(listener: (reason: TabGoneReason) => void): () => void;
  /** Ends this client: its pending calls fail with `tab_gone`, and are cancelled in the tab. */
  close(): void;
}
