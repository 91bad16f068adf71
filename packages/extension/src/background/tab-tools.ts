/**
 * `tabTools(tabId)`: "tools of tab T" for an extension's background. It binds to the relay of
 * the tab's current document (waiting briefly for a loading tab's): list, call, change events.
 * When that document goes (the tab closes or navigates) pending calls fail with `tab_gone` and
 * `onGone` fires once; for the next document, ask `tabTools(tabId)` again.
 *
 * With `{ frames: true }` the client also lists the tools of the tab's other frames, each
 * through that frame's own relay, and runs a call in the frame that listed it (see
 * `mergeFrames`). Without it, it reads the top document only, as it always did.
 */
import { failure } from '../channel/sanitize.js';
import type {
  TabCallOptions,
  TabCallOutcome,
  TabGoneReason,
  TabIdentity,
  TabTool,
  TabToolsClient,
} from '../types.js';
import type { RelayLink } from './relay-link.js';
import { frameRelaysOf, goneReason, onFrameRelays, relayOf } from './relays.js';

/** A failed `list()`: `code` is `no_relay` (nothing answers in that tab) or `tab_gone`, or the page's. */
export class TabToolsError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'TabToolsError';
    this.code = code;
  }
}

export interface TabToolsOptions {
  /** How long to wait for the tab's relay to connect (a tab that is still loading). */
  waitMs?: number;
  /**
   * Also list the tools of the tab's other frames (each `TabTool` then carries its `frameId`),
   * and run each call in the frame that listed the tool. Default false: the top document only.
   */
  frames?: boolean;
}

/** How long a frame (not the top) has to answer a listing before it is left out of it. */
const FRAME_LIST_MS = 3000;

/** Where a listed name is called: the frame's relay, and the name the frame knows it by. */
interface Route {
  link: RelayLink;
  name: string;
}

/** `name` without the `@origin` the top's reader adds to a name several of its frames use. */
function baseName(tool: TabTool): string {
  const suffix = `@${tool.origin}`;
  return tool.name.endsWith(suffix) ? tool.name.slice(0, -suffix.length) : tool.name;
}

/**
 * The tab's listing: the top document's tools (its `window.tools` may already coalesce some of
 * its frames, attested by toolwire's frames bridge), then each other frame's, by frame id.
 *
 * - A frame's tools carry the frame's origin as the browser gave it for the frame's relay; a
 *   tool the frame lists under any other origin is dropped (a deeper frame's, which its own
 *   relay lists, or a claim the frame cannot make).
 * - A tool already listed (the same name and origin, from the top's `window.tools` or from an
 *   earlier frame of that origin whose listing coalesced it) is not listed again.
 * - A name already taken in the tab becomes `name@origin` (then `name@origin#frameId`).
 */
function mergeFrames(
  top: TabTool[],
  topLink: RelayLink,
  frames: { link: RelayLink; tools: TabTool[] }[],
): { tools: TabTool[]; routes: Map<string, Route> } {
  const routes = new Map<string, Route>();
  const listed = new Set<string>();
  const tools: TabTool[] = [];
  for (const tool of top) {
    routes.set(tool.name, { link: topLink, name: tool.name });
    listed.add(`${tool.origin}\n${baseName(tool)}`);
    tools.push({ ...tool, frameId: 0 });
  }
  for (const { link, tools: own } of frames) {
    const origin = link.tab.origin;
    for (const tool of own) {
      const key = `${origin}\n${baseName(tool)}`;
      if (tool.origin !== origin || listed.has(key)) continue;
      listed.add(key);
      let name = baseName(tool);
      if (routes.has(name)) name = `${name}@${origin}`;
      if (routes.has(name)) name = `${name}#${link.frameId}`;
      if (routes.has(name)) continue;
      routes.set(name, { link, name: tool.name });
      tools.push({ ...tool, name, frameId: link.frameId });
    }
  }
  return { tools, routes };
}

/** A frame's tools, or none when it fails or does not answer in time. */
async function frameTools(link: RelayLink): Promise<TabTool[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<TabCallOutcome>((resolve) => {
    timer = setTimeout(
      () => resolve(failure('tab_gone', 'The frame did not answer.')),
      FRAME_LIST_MS,
    );
  });
  const outcome = await Promise.race([link.list(), late]);
  clearTimeout(timer);
  return outcome.ok ? (outcome.result as TabTool[]) : [];
}

const NO_RELAY =
  'No toolwire relay answers in this tab: it was opened before the extension, or is not a web page. Reload it.';

class TabToolsClientImpl implements TabToolsClient {
  #tabId: number;
  #link: RelayLink | undefined;
  #ready: Promise<RelayLink | undefined>;
  #changeListeners = new Set<(tools: TabTool[]) => void>();
  #goneListeners = new Set<(reason: TabGoneReason) => void>();
  #gone: TabGoneReason | undefined;
  #closing = new Set<(outcome: TabCallOutcome) => void>();
  /** Aborted when this client ends: its calls still running in the tab are cancelled there. */
  #ending = new AbortController();
  #unsubscribe: Array<() => void> = [];
  #frames: boolean;
  /** Frames mode: where each listed name runs (the last listing's). */
  #routes = new Map<string, Route>();
  /** Frames mode: the frame links whose change notices this client follows. */
  #watchedFrames = new WeakSet<RelayLink>();
  #refreshTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(tabId: number, waitMs: number, frames: boolean) {
    this.#tabId = tabId;
    this.#frames = frames;
    this.#ready = relayOf(tabId, waitMs).then((link) => {
      if (!link || this.#gone) return undefined;
      this.#link = link;
      this.#unsubscribe.push(
        link.onChange(() => void this.#refresh()),
        link.onEnd(() => void goneReason(link).then((reason) => this.#end(reason))),
      );
      if (link.ended) void goneReason(link).then((reason) => this.#end(reason));
      if (this.#frames) {
        this.#watchFrames();
        this.#unsubscribe.push(
          onFrameRelays(tabId, () => {
            this.#watchFrames();
            this.#refreshSoon();
          }),
        );
      }
      return link;
    });
  }

  get tab(): TabIdentity {
    return this.#link?.tab ?? { tabId: this.#tabId, title: '', url: '', origin: '' };
  }

  async list(): Promise<TabTool[]> {
    const link = await this.#ready;
    if (this.#gone) throw new TabToolsError('tab_gone', 'The tab closed or navigated.');
    if (!link) throw new TabToolsError('no_relay', NO_RELAY);
    const outcome = await link.list();
    if (!outcome.ok) throw new TabToolsError(outcome.error.code, outcome.error.message);
    if (!this.#frames) return outcome.result as TabTool[];
    const frames = frameRelaysOf(this.#tabId);
    const listings = await Promise.all(frames.map(frameTools));
    const merged = mergeFrames(
      outcome.result as TabTool[],
      link,
      frames.map((frame, index) => ({ link: frame, tools: listings[index] ?? [] })),
    );
    this.#routes = merged.routes;
    return merged.tools;
  }

  /** Follows the change notices of the tab's frames' relays (each one once). */
  #watchFrames(): void {
    for (const frame of frameRelaysOf(this.#tabId)) {
      if (this.#watchedFrames.has(frame)) continue;
      this.#watchedFrames.add(frame);
      this.#unsubscribe.push(frame.onChange(() => this.#refreshSoon()));
    }
  }

  /** Frames come and go in bursts as a page loads: one listing for a burst. */
  #refreshSoon(): void {
    if (this.#refreshTimer !== undefined || this.#gone) return;
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = undefined;
      void this.#refresh();
    }, 30);
  }

  async call(name: string, args: unknown, options: TabCallOptions = {}): Promise<TabCallOutcome> {
    const link = await this.#ready;
    if (this.#gone) return failure('tab_gone', 'The tab closed or navigated.');
    if (!link) return failure('no_relay', NO_RELAY);
    const { signal, onProgress } = options;
    const ending = this.#ending.signal;
    // Frames mode: the frame that listed the name runs it (a frame that went fails tab_gone).
    const route = this.#frames ? this.#routes.get(name) : undefined;
    const target = route?.link ?? link;
    const targetName = route?.name ?? name;
    return new Promise((resolve) => {
      this.#closing.add(resolve);
      void target
        .call(targetName, args, {
          signal: signal ? AbortSignal.any([signal, ending]) : ending,
          ...(onProgress ? { onProgress } : {}),
        })
        .then((outcome) => {
          this.#closing.delete(resolve);
          resolve(outcome);
        });
    });
  }

  onChange(listener: (tools: TabTool[]) => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  onGone(listener: (reason: TabGoneReason) => void): () => void {
    this.#goneListeners.add(listener);
    return () => this.#goneListeners.delete(listener);
  }

  close(): void {
    this.#end('disconnected');
  }

  async #refresh(): Promise<void> {
    if (this.#changeListeners.size === 0) return;
    try {
      const tools = await this.list();
      for (const listener of this.#changeListeners) listener(tools);
    } catch {
      // The tab went away meanwhile: onGone says so.
    }
  }

  #end(reason: TabGoneReason): void {
    if (this.#gone) return;
    this.#gone = reason;
    clearTimeout(this.#refreshTimer);
    for (const stop of this.#unsubscribe) stop();
    for (const settle of this.#closing)
      settle(failure('tab_gone', `The tab's client stopped (${reason}).`));
    this.#closing.clear();
    // A document that is still there stops what it runs for nobody.
    this.#ending.abort();
    for (const listener of this.#goneListeners) listener(reason);
  }
}

/**
 * "Tools of tab T", from the background. See the package README for the security model;
 * `{ frames: true }` adds the tab's other frames (each tool with its `frameId`).
 */
export function tabTools(tabId: number, options: TabToolsOptions = {}): TabToolsClient {
  return new TabToolsClientImpl(tabId, options.waitMs ?? 5000, options.frames === true);
}
