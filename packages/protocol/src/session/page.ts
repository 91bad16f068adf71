/**
 * The page's end of one connection (docs/wire.md "Transport and session", "Session messages"):
 * the session layer an SDK endpoint runs on each socket, over a tool bridge.
 *
 * 1. Once the connection is open (`start`), one `session.open`; requests are served meanwhile.
 * 2. The host's `session.welcome` is read (its grant, heartbeat, credential, compression word);
 *    a welcome that cannot be read is ignored.
 * 3. Pings are answered with pongs. Every frame is a sign of life; a host silent for three of
 *    its heartbeat intervals is dropped with 4008, and `onClose` is told at once (a browser
 *    reports the close only after a handshake a dead peer never finishes).
 * 4. A frame above `maxFrameBytes` closes the connection with 4009.
 * 5. `session.cancel` reaches the bridge for a request of this connection; `session.progress`
 *    goes out for requests that asked (50 ms apart at most, growing, flushed before the answer).
 * 6. Tool requests go to the bridge, and its answers back, unless the connection has closed
 *    meanwhile (the answer is dropped with a console warning). Unknown `session.*` messages are
 *    ignored; nothing the host sends throws out of here.
 */
import type { ToolBridge } from '../bridge.js';
import type { HandleScope } from '../deadlines.js';
import type { BridgeResponse } from '../frame.js';
import { isPlainObject } from '../messages.js';
import type { Transport, TransportCloseInfo } from '../transport.js';
import { SESSION_CLOSE } from './close.js';
import { Heartbeat } from './heartbeat.js';
import type { SessionOpenPayload, SessionWelcomePayload } from './messages.js';
import {
  readSessionCancel,
  readWelcome,
  sessionOpen,
  sessionPong,
  sessionProgress,
} from './messages.js';
import { ProgressOutbox } from './progress.js';

/** A transport that may say whether it can send now (a WebSocket's readyState). */
export type PageTransport = Transport & { readonly isOpen?: boolean };

export interface PageSessionOptions {
  /** The connection; this session takes its `onmessage` and `onclose`. */
  transport: PageTransport;
  bridge: ToolBridge;
  /** What `session.open` says, read once `start` is called (it may wait: a guard report). */
  open: () => SessionOpenPayload | Promise<SessionOpenPayload>;
  /** A larger incoming frame closes the connection with 4009. Default: no limit. */
  maxFrameBytes?: number;
  onWelcome?: (welcome: SessionWelcomePayload) => void;
  /** The connection ended: its close, or (at once) the 4008 of a silent host. Once. */
  onClose?: (info: TransportCloseInfo) => void;
  /** Before a request goes to the bridge; a promise holds it until it settles. */
  beforeServe?: (frame: string) => Promise<unknown> | undefined;
  /** An answer went out. */
  onResponse?: (response: BridgeResponse) => void;
  /** Something failed to send. */
  onError?: (error: unknown) => void;
}

/** Tool requests as toolwire's host writes them: known not to be session messages unread. */
const TOOL_FRAME_PREFIX = '{"type":"tool.';

export class PageSessionCore {
  #options: PageSessionOptions;
  #transport: PageTransport;
  #heartbeat = new Heartbeat();
  #welcome: SessionWelcomePayload | undefined;
  #closed = false;
  #progress: ProgressOutbox;
  /** This connection's requests, to the bridge: where progress goes, which cancels count. */
  #scope: HandleScope;

  constructor(options: PageSessionOptions) {
    this.#options = options;
    this.#transport = options.transport;
    this.#progress = new ProgressOutbox((report) => this.#send(sessionProgress(report)));
    this.#scope = {
      onProgress: (requestId, progress, total, message) =>
        this.#progress.report(requestId, progress, total, message),
    };
    this.#transport.onmessage = this.#onFrame;
    this.#transport.onclose = (info) => this.#finish(info);
  }

  /** The host's welcome on this connection; undefined before it (or if it sent none). */
  get welcome(): SessionWelcomePayload | undefined {
    return this.#welcome;
  }

  get isOpen(): boolean {
    return !this.#closed && this.#transport.isOpen !== false;
  }

  /** The connection is open: the host is heard from now, and `session.open` goes out. */
  start(): void {
    this.#heartbeat.heardAt = Date.now();
    void this.#sendOpen();
  }

  /** A frame the transport does not hand over (a binary one) still says the host is alive. */
  heard(): void {
    this.#heartbeat.heardAt = Date.now();
  }

  /** Closes the connection; `onClose` follows when the transport reports it. */
  close(info: TransportCloseInfo): void {
    this.#heartbeat.stop();
    this.#transport.close(info);
  }

  async #sendOpen(): Promise<void> {
    let payload: SessionOpenPayload;
    try {
      payload = await this.#options.open();
    } catch (error) {
      this.#options.onError?.(error);
      return;
    }
    if (this.#closed) return;
    this.#send(sessionOpen(payload));
  }

  #onFrame = (frame: string): void => {
    this.#heartbeat.heardAt = Date.now();
    const max = this.#options.maxFrameBytes;
    // UTF-16 length is a lower bound of the UTF-8 size; a frame that long is too big already.
    if (
      max !== undefined &&
      (frame.length > max ||
        (frame.length * 3 > max && new TextEncoder().encode(frame).byteLength > max))
    ) {
      this.close({ code: SESSION_CLOSE.tooBig, reason: 'message too big' });
      return;
    }
    // Cheap tests first: a tool request never carries a session type.
    if (!frame.startsWith(TOOL_FRAME_PREFIX) && frame.includes('"session.')) {
      if (this.#onSessionMessage(frame)) return;
    }
    void this.#serve(frame);
  };

  /** The host's session messages. True when `frame` was one (known or not). */
  #onSessionMessage(frame: string): boolean {
    let message: unknown;
    try {
      message = JSON.parse(frame);
    } catch {
      return false;
    }
    if (!isPlainObject(message) || typeof message.type !== 'string') return false;
    switch (message.type) {
      case 'session.ping':
        if (typeof message.id === 'string') this.#send(sessionPong({ id: message.id }));
        return true;
      case 'session.welcome':
        this.#onWelcome(message);
        return true;
      case 'session.cancel': {
        const cancel = readSessionCancel(message);
        if (cancel) this.#options.bridge.cancel(cancel.requestId, this.#scope, cancel.reason);
        return true;
      }
      default:
        return message.type.startsWith('session.');
    }
  }

  #onWelcome(message: unknown): void {
    const welcome = readWelcome(message);
    if (!welcome) return;
    this.#welcome = welcome;
    this.#heartbeat.start({
      intervalMs: welcome.heartbeatIntervalMs,
      onSilent: () => {
        if (this.#closed) return;
        const info = { code: SESSION_CLOSE.silent, reason: 'the host stopped answering' };
        this.#transport.close(info);
        this.#finish(info);
      },
    });
    this.#options.onWelcome?.(welcome);
  }

  async #serve(frame: string): Promise<void> {
    try {
      const waiting = this.#options.beforeServe?.(frame);
      if (waiting) await waiting;
      const response = await this.#options.bridge.handle(frame, this.#scope);
      if (!response) return;
      // The last progress report waiting goes before the answer.
      if (response.requestId !== null) this.#progress.settle(response.requestId);
      if (!this.isOpen) {
        console.warn(
          `toolwire: the connection closed before ${response.id} could be sent; its result is dropped.`,
        );
        return;
      }
      this.#transport.send(response.frame);
      this.#options.onResponse?.(response);
    } catch (error) {
      // handle() never throws; a send on a closing connection might.
      this.#options.onError?.(error);
    }
  }

  #send(message: object): void {
    if (!this.isOpen) return;
    try {
      this.#transport.send(JSON.stringify(message));
    } catch (error) {
      this.#options.onError?.(error);
    }
  }

  #finish(info: TransportCloseInfo): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#heartbeat.stop();
    this.#progress.clear();
    this.#options.onClose?.(info);
  }
}
