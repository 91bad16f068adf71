/**
 * The background's end of one document's relay: requests by id over the `chrome.runtime` port,
 * answers and progress reports checked again (the relay runs in a page's renderer), cancels,
 * change notices, and the end.
 *
 * With a direct port (`offerDirect`, then `attachDirect` once the tab's relay handed it over
 * through the extension's link page), requests and answers travel on that `MessagePort`
 * instead; the `chrome.runtime` port still carries change notices and says when the document
 * (or this worker) went.
 */
import { DIRECT_ACCEPTED, isRelayReply } from '../channel/messages.js';
import type { RuntimePortLike } from '../channel/runtime-port.js';
import {
  failure,
  outcomeOfJson,
  sanitizeOutcome,
  sanitizeProgress,
  sanitizeTools,
} from '../channel/sanitize.js';
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

/** `value` as JSON text, or undefined when it is not JSON (it then goes as it is). */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

export class RelayLink {
  #tab: TabIdentity;
  #port: RuntimePortLike;
  #nextId = 1;
  #pending = new Map<number, Pending>();
  #changeListeners = new Set<() => void>();
  #endListeners = new Set<() => void>();
  #ended = false;
  #direct: MessagePort | undefined;
  #offered = false;
  #used = false;
  #whenUsed: (() => void) | undefined;

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
    // On the direct port the input goes as JSON text: the relay passes the string on as it is.
    const argsJson = this.#direct ? jsonOf(args) : undefined;
    return this.#request(
      'call',
      {
        name,
        ...(argsJson !== undefined ? { argsJson } : { args }),
        ...(onProgress ? { progress: true } : {}),
      },
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

  /** Calls `listener` before this link's first request. */
  whenUsed(listener: () => void): void {
    this.#whenUsed = listener;
  }

  /** Requests travel on the direct port. */
  get direct(): boolean {
    return this.#direct !== undefined;
  }

  /**
   * Asks the relay, once, to hand a direct port to the link page `page` with `nonce` (see
   * relays.ts). Returns false when already offered or ended.
   */
  offerDirect(nonce: string, page: string): boolean {
    if (this.#offered || this.#ended) return false;
    this.#offered = true;
    try {
      this.#port.postMessage({ direct: nonce, page });
    } catch {
      return false;
    }
    return true;
  }

  /** The relay's direct port, proven by the offer's nonce: later requests go on it. */
  attachDirect(port: MessagePort): void {
    if (this.#ended || this.#direct) {
      port.close();
      return;
    }
    this.#direct = port;
    port.onmessage = (event) => this.#receive(event.data);
    port.postMessage(DIRECT_ACCEPTED);
  }

  #post(message: unknown): void {
    if (this.#direct) this.#direct.postMessage(message);
    else this.#port.postMessage(message);
  }

  /** The document went away (or the port broke): every pending request fails `tab_gone`. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const { settle } of this.#pending.values())
      settle(failure('tab_gone', 'The tab closed or navigated before answering.'));
    this.#pending.clear();
    for (const listener of this.#endListeners) listener();
    this.#direct?.close();
    this.#direct = undefined;
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
    if (!this.#used) {
      this.#used = true;
      this.#whenUsed?.();
    }
    const id = this.#nextId++;
    return new Promise<TabCallOutcome>((resolve) => {
      const onAbort = () => {
        if (!this.#pending.has(id)) return;
        try {
          this.#post({ id, op: 'abort' });
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
      this.#post({ id, op, ...fields });
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
    if ('resultJson' in message) {
      // Only a call's result comes as JSON text (a listing is rebuilt below, field by field).
      pending.settle(
        pending.op === 'call'
          ? outcomeOfJson(message.resultJson)
          : failure('response_invalid', 'A listing must come as tools.'),
      );
      return;
    }
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
