/**
 * The background's end of one document's relay: requests by id over the `chrome.runtime` port,
 * answers checked again (the relay runs in a page's renderer), change notices, and the end.
 */
import { isRelayReply } from '../channel/messages.js';
import type { RuntimePortLike } from '../channel/runtime-port.js';
import { failure, sanitizeOutcome, sanitizeTools } from '../channel/sanitize.js';
import type { TabCallOutcome, TabIdentity, TabTool } from '../types.js';

export class RelayLink {
  #tab: TabIdentity;
  #port: RuntimePortLike;
  #nextId = 1;
  #pending = new Map<number, { op: 'list' | 'call'; settle: (o: TabCallOutcome) => void }>();
  #changeListeners = new Set<() => void>();
  #endListeners = new Set<() => void>();
  #ended = false;

  constructor(port: RuntimePortLike, tab: TabIdentity) {
    this.#port = port;
    this.#tab = tab;
    port.onMessage.addListener((message) => this.#receive(message));
    port.onDisconnect.addListener(() => this.end());
  }

  /** The tab as it is now: the title and URL follow the document (the origin cannot change). */
  get tab(): TabIdentity {
    return { ...this.#tab };
  }

  /** The tab's title or URL changed (`chrome.tabs.onUpdated`), within this document. */
  update(title: string | undefined, url: string | undefined): void {
    if (title !== undefined) this.#tab.title = title;
    if (url !== undefined && URL.canParse(url) && new URL(url).origin === this.#tab.origin)
      this.#tab.url = url;
  }

  get ended(): boolean {
    return this.#ended;
  }

  list(): Promise<TabCallOutcome> {
    return this.#request('list');
  }

  call(name: string, args: unknown, signal?: AbortSignal): Promise<TabCallOutcome> {
    return this.#request('call', { name, args }, signal);
  }

  onChange(listener: () => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  onEnd(listener: () => void): () => void {
    this.#endListeners.add(listener);
    return () => this.#endListeners.delete(listener);
  }

  /** The document went away (or the port broke): every pending request fails `tab_gone`. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const { settle } of this.#pending.values())
      settle(failure('tab_gone', 'The tab closed or navigated before answering.'));
    this.#pending.clear();
    for (const listener of this.#endListeners) listener();
    try {
      this.#port.disconnect();
    } catch {
      // Already gone.
    }
  }

  #request(op: 'list' | 'call', fields: object = {}, signal?: AbortSignal) {
    if (this.#ended) return Promise.resolve(failure('tab_gone', 'The tab closed or navigated.'));
    if (signal?.aborted)
      return Promise.resolve(
        failure('tool_call_cancelled', 'Cancelled by the caller.', 'AbortError'),
      );
    const id = this.#nextId++;
    return new Promise<TabCallOutcome>((resolve) => {
      const onAbort = () => {
        this.#port.postMessage({ id, op: 'abort' });
        settle(failure('tool_call_cancelled', 'Cancelled by the caller.', 'AbortError'));
      };
      const settle = (outcome: TabCallOutcome) => {
        if (!this.#pending.delete(id) && !this.#ended) return;
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      this.#pending.set(id, { op, settle });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#port.postMessage({ id, op, ...fields });
    });
  }

  #receive(message: unknown): void {
    if (!isRelayReply(message)) return;
    if ('event' in message) {
      for (const listener of this.#changeListeners) listener();
      return;
    }
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    const outcome = sanitizeOutcome(message.outcome);
    pending.settle(
      pending.op === 'list' && outcome.ok
        ? { ok: true, result: sanitizeTools(outcome.result) satisfies TabTool[] }
        : outcome,
    );
  }
}
