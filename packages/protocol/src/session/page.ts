/**
 * The page's end of one connection (docs/wire.md "Transport and session", "Session messages"):
 * the session layer an SDK endpoint runs on each socket, over a tool bridge.
 *
 * 1. Once the connection is open (`start`), one `session.open`; requests are served meanwhile.
 *    With `verifyWelcome` (the handshake, docs/wire.md "The handshake"), nothing is served and no
 *    `session.open` goes out until a welcome passed it: a tool request that comes first is
 *    dropped (not answered, never at the bridge), and a welcome that fails closes the
 *    connection with 4010. The `session.open` that follows carries the page's proof.
 * 2. The host's `session.welcome` is read (its grant, heartbeat, proof, compression word);
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
  /**
   * The host must prove itself first: checks its welcome and resolves the page's proof for
   * `session.open`, or undefined when the host did not prove it holds the secret (closed 4010).
   * Without it, requests are served from the start (a host of the protocol that sends no welcome).
   */
  verifyWelcome?: ((welcome: SessionWelcomePayload) => Promise<string | undefined>) | undefined;
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
  /** Serving: no proof asked for, or the host's welcome passed it. */
  #proven: boolean;
  /** A welcome is being checked (later ones are ignored meanwhile, and once proven). */
  #checking = false;
  #closed = false;
  #progress: ProgressOutbox;
  /** This connection's requests, to the bridge: where progress goes, which cancels count. */
  #scope: HandleScope;

  constructor(options: PageSessionOptions) {
    this.#options = options;
    this.#transport = options.transport;
    this.#proven = options.verifyWelcome === undefined;
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

  /** Whether requests are served: the host proved itself, or no proof was asked for. */
  get proven(): boolean {
    return this.#proven;
  }

  get isOpen(): boolean {
    return !this.#closed && this.#transport.isOpen !== false;
  }

  /** The connection is open: the host is heard from now, and `session.open` goes out. */
  start(): void {
    this.#heartbeat.heardAt = Date.now();
    // With a proof to check, `session.open` waits for the welcome that passes it.
    if (this.#proven) void this.#sendOpen();
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

  async #sendOpen(proof?: string): Promise<void> {
    let payload: SessionOpenPayload;
    try {
      payload = await this.#options.open();
    } catch (error) {
      this.#options.onError?.(error);
      return;
    }
    if (this.#closed) return;
    this.#send(sessionOpen(proof === undefined ? payload : { ...payload, proof }));
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
    // Before the host proved itself, whoever sent this gets nothing: no answer, no tool run.
    if (!this.#proven) return;
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
    const verify = this.#options.verifyWelcome;
    if (verify) {
      if (this.#proven || this.#checking) return;
      this.#checking = true;
      void verify(welcome)
        .catch(() => undefined)
        .then((proof) => this.#onChecked(welcome, proof));
      return;
    }
    this.#accept(welcome);
  }

  #onChecked(welcome: SessionWelcomePayload, proof: string | undefined): void {
    this.#checking = false;
    if (this.#closed) return;
    if (proof === undefined) {
      // Told at once, with our code: a peer that is not our host may never finish the close.
      const info = { code: SESSION_CLOSE.hostUnproven, reason: 'host not proven' };
      this.close(info);
      this.#finish(info);
      return;
    }
    this.#proven = true;
    this.#accept(welcome);
    void this.#sendOpen(proof);
  }

  #accept(welcome: SessionWelcomePayload): void {
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
