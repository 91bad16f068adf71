/**
 * One side of a parent-child MessageChannel (docs/style.md 3: correlation, deadlines and close
 * handling live here, once). Requests are answered exactly once; on close every pending
 * request fails with a coded error and every timer is cleared.
 */
import { domException } from '../lib/dom.js';
import { serializeError } from './errors.js';
import type { ChangeNotice, FrameRequest, PortMessage, ProgressNotice } from './messages.js';
import { FRAMES_TAG, isPortMessage } from './messages.js';

/** A hostile peer cannot queue unbounded work on us. */
const MAX_INBOUND = 256;

export interface LinkHandlers {
  request(request: FrameRequest, link: FrameLink): Promise<unknown>;
  abort(callId: string, link: FrameLink): void;
  /** A progress report came up this link (for which call, and from whom, is the handler's check). */
  progress(notice: ProgressNotice, link: FrameLink): void;
  changed(change: ChangeNotice, link: FrameLink): void;
  closed(link: FrameLink): void;
  /** Rebuilds an error record from the peer into an Error of the right kind. */
  error(value: unknown): Error;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class FrameLink {
  /** The peer's origin, from the handshake's MessageEvent (never from the peer's say-so). */
  readonly origin: string;
  /** Parent side: the child frame's window. Child side: undefined. */
  readonly window: Window | undefined;
  /** Parent side: does the embedding (`<iframe allow>`) grant the child `tools`? Tools coalesce up this edge. */
  readonly grant: boolean;
  /** Parent side: is the child allowed to use `tools` (the grant, and this frame's own permission)? */
  readonly allowed: boolean;
  #port: MessagePort;
  #handlers: LinkHandlers;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #inbound = 0;
  #closed = false;

  constructor(
    port: MessagePort,
    origin: string,
    handlers: LinkHandlers,
    options: { window?: Window; grant: boolean; allowed: boolean },
  ) {
    this.#port = port;
    this.origin = origin;
    this.window = options.window;
    this.grant = options.grant;
    this.allowed = options.allowed;
    this.#handlers = handlers;
    port.onmessage = this.#onMessage;
    port.onmessageerror = () => {};
  }

  get closed(): boolean {
    return this.#closed;
  }

  request(request: FrameRequest, timeoutMs = 0): Promise<unknown> {
    if (this.#closed) return Promise.reject(domException('NotFoundError', 'The frame is gone.'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const pending: Pending = { resolve, reject, timer: undefined };
      if (timeoutMs > 0) {
        pending.timer = setTimeout(() => {
          this.#pending.delete(id);
          reject(domException('TimeoutError', `A frame did not answer within ${timeoutMs} ms.`));
        }, timeoutMs);
      }
      this.#pending.set(id, pending);
      this.#post({ tag: FRAMES_TAG, kind: 'req', id, request }, () => {
        this.#pending.delete(id);
        clearTimeout(pending.timer);
        reject(
          domException(
            'DataCloneError',
            'The request cannot be sent to the frame (a value cannot be cloned).',
          ),
        );
      });
    });
  }

  abort(callId: string): void {
    this.#post({ tag: FRAMES_TAG, kind: 'abort', callId });
  }

  progress(notice: ProgressNotice): void {
    this.#post({ tag: FRAMES_TAG, kind: 'progress', ...notice });
  }

  changed(change: ChangeNotice): void {
    this.#post({ tag: FRAMES_TAG, kind: 'changed', ...change });
  }

  /** Tells the peer we are going, then closes. */
  bye(): void {
    this.#post({ tag: FRAMES_TAG, kind: 'bye' });
    this.close();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      clearTimeout(pending.timer);
      pending.reject(domException('NotFoundError', 'The frame went away before it answered.'));
    }
    this.#port.onmessage = null;
    this.#port.close();
    this.#handlers.closed(this);
  }

  #post(message: PortMessage, onCloneError?: () => void): void {
    if (this.#closed) return;
    try {
      this.#port.postMessage(message);
    } catch {
      onCloneError?.();
    }
  }

  #onMessage = (event: MessageEvent): void => {
    const data = event.data as unknown;
    if (this.#closed || !isPortMessage(data)) return;
    switch (data.kind) {
      case 'res': {
        const pending = this.#pending.get(data.id);
        if (!pending) return;
        this.#pending.delete(data.id);
        clearTimeout(pending.timer);
        if (data.ok) pending.resolve(data.value);
        else pending.reject(this.#handlers.error(data.error));
        return;
      }
      case 'req':
        this.#serve(data.id, data.request);
        return;
      case 'abort':
        this.#handlers.abort(data.callId, this);
        return;
      case 'progress': {
        // Only the notice's own fields go on (not whatever else the peer put in the message).
        const { callId, progress, total, message } = data;
        this.#handlers.progress({ callId, progress, total, message }, this);
        return;
      }
      case 'changed':
        this.#handlers.changed(
          { origin: data.origin, exposedTo: data.exposedTo, agent: data.agent },
          this,
        );
        return;
      case 'bye':
        this.close();
        return;
    }
  };

  #serve(id: number, request: FrameRequest): void {
    if (this.#inbound >= MAX_INBOUND) {
      this.#respondError(
        id,
        domException('QuotaExceededError', 'Too many requests in flight from this frame.'),
      );
      return;
    }
    this.#inbound++;
    let settled: Promise<unknown>;
    try {
      settled = Promise.resolve(this.#handlers.request(request, this));
    } catch (error) {
      settled = Promise.reject(error);
    }
    settled.then(
      (value) => {
        this.#inbound--;
        this.#post({ tag: FRAMES_TAG, kind: 'res', id, ok: true, value }, () =>
          this.#respondError(
            id,
            domException('DataCloneError', 'The result cannot be cloned to the calling frame.'),
          ),
        );
      },
      (error) => {
        this.#inbound--;
        this.#respondError(id, error);
      },
    );
  }

  #respondError(id: number, error: unknown): void {
    this.#post({ tag: FRAMES_TAG, kind: 'res', id, ok: false, error: serializeError(error) });
  }
}
