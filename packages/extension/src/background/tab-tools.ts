/**
 * `tabTools(tabId)`: "tools of tab T" for an extension's background. It binds to the relay of
 * the tab's current document (waiting briefly for a loading tab's): list, call, change events.
 * When that document goes (the tab closes or navigates) pending calls fail with `tab_gone` and
 * `onGone` fires once; for the next document, ask `tabTools(tabId)` again.
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
import { goneReason, relayOf } from './relays.js';

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

  constructor(tabId: number, waitMs: number) {
    this.#tabId = tabId;
    this.#ready = relayOf(tabId, waitMs).then((link) => {
      if (!link || this.#gone) return undefined;
      this.#link = link;
      this.#unsubscribe.push(
        link.onChange(() => void this.#refresh()),
        link.onEnd(() => void goneReason(link).then((reason) => this.#end(reason))),
      );
      if (link.ended) void goneReason(link).then((reason) => this.#end(reason));
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
    return outcome.result as TabTool[];
  }

  async call(name: string, args: unknown, options: TabCallOptions = {}): Promise<TabCallOutcome> {
    const link = await this.#ready;
    if (this.#gone) return failure('tab_gone', 'The tab closed or navigated.');
    if (!link) return failure('no_relay', NO_RELAY);
    const { signal, onProgress } = options;
    const ending = this.#ending.signal;
    return new Promise((resolve) => {
      this.#closing.add(resolve);
      void link
        .call(name, args, {
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
    for (const stop of this.#unsubscribe) stop();
    for (const settle of this.#closing)
      settle(failure('tab_gone', `The tab's client stopped (${reason}).`));
    this.#closing.clear();
    // A document that is still there stops what it runs for nobody.
    this.#ending.abort();
    for (const listener of this.#goneListeners) listener(reason);
  }
}

/** "Tools of tab T", from the background. See the package README for the security model. */
export function tabTools(tabId: number, options: TabToolsOptions = {}): TabToolsClient {
  return new TabToolsClientImpl(tabId, options.waitMs ?? 5000);
}
