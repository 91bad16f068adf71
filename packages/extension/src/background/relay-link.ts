/**
 * The background's end of one document's relay: requests by id over the `chrome.runtime` port,
 * answers and progress reports checked again (the relay runs in a page's renderer), cancels,
 * change notices, and the end.
 */
import { isRelayReply } from '../channel/messages.js';
import type { RuntimePortLike } from '../channel/runtime-port.js';
import { failure, sanitizeOutcome, sanitizeProgress, sanitizeTools } from '../channel/sanitize.js';
import type { TabCallOptions, TabCallOutcome, TabIdentity, TabTool } from '../types.js';

interface Pending {
  op: 'list' | 'call';
  settle: (outcome: TabCallOutcome) => void;
  onProgress?: TabCallOptions['onProgress'];
  /** The last report passed on. */
  progress?: number;
}

/** A call the caller cancelled (its signal aborted), before or while it ran. */
const cancelled = () =>
  failure('tool_call_cancelled', 'The caller cancelled the call.', 'AbortError');

export class RelayLink {
  #tab: TabIdentity;
  #port: RuntimePortLike;
  #nextId = 1;
  #pending = new Map<number, Pending>();
  #changeListeners = new Set<() => void>();
  #endListeners = new Set<() => void>();
  #ended = false;

  /** The frame this document is in: 0 for the tab's top document. */
  readonly frameId: number;

  constructor(port: RuntimePortLike, tab: TabIdentity, frameId = 0) {
    this.#port = port;
    this.#tab = tab;
    this.frameId = frameId;
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

  /**
   * Runs a call in the tab. Aborting `signal` tells the tab to abort the tool's signal and
   * resolves at once with `tool_call_cancelled`; `onProgress` asks the tab for progress reports.
   */
  call(name: string, args: unknown, options: TabCallOptions = {}): Promise<TabCallOutcome> {
    const { signal, onProgress } = options;
    return this.#request(
      'call',
      { name, args, ...(onProgress ? { progress: true } : {}) },
      {
        ...(signal ? { signal } : {}),
        ...(onProgress ? { onProgress } : {}),
      },
    );
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

  #request(op: 'list' | 'call', fields: object = {}, options: TabCallOptions = {}) {
    const { signal, onProgress } = options;
    if (this.#ended) return Promise.resolve(failure('tab_gone', 'The tab closed or navigated.'));
    if (signal?.aborted) return Promise.resolve(cancelled());
    const id = this.#nextId++;
    return new Promise<TabCallOutcome>((resolve) => {
      const onAbort = () => {
        if (!this.#pending.has(id)) return;
        try {
          this.#port.postMessage({ id, op: 'abort' });
        } catch {
          // The port closed meanwhile: the document (and its call) went with it.
        }
        settle(cancelled());
      };
      const settle = (outcome: TabCallOutcome) => {
        if (!this.#pending.delete(id) && !this.#ended) return;
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      this.#pending.set(id, { op, settle, ...(onProgress ? { onProgress } : {}) });
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
    if (!('outcome' in message)) {
      // A report: only for a call that asked, and only one that moves forward.
      const report = pending.onProgress
        ? sanitizeProgress(message.progress, pending.progress)
        : undefined;
      if (!report) return;
      pending.progress = report.progress;
      try {
        pending.onProgress?.(report);
      } catch {
        // The caller's listener failed: the call goes on.
      }
      return;
    }
    const outcome = sanitizeOutcome(message.outcome);
    pending.settle(
      pending.op === 'list' && outcome.ok
        ? { ok: true, result: sanitizeTools(outcome.result) satisfies TabTool[] }
        : outcome,
    );
  }
}
