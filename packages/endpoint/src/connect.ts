/**
 * `connect(options)`: the page as a remote-tool SDK endpoint (issue 6, WIRE.md "Transport and
 * session").
 *
 * 1. The page is the WebSocket client: `url` (token in `?token=`, or `options.token`).
 * 2. After the socket opens, one `session.open` message: SDK name and version, page origin,
 *    URL and title. Then every tool request is answered by `createToolBridge` over the page's
 *    agent tools and the built-in ui.* tools; other traffic is ignored.
 * 3. When the catalog changes, `tool.catalog.changed {revision, availabilityRevision}` is pushed
 *    (debounced); hosts that do not know it ignore it.
 * 4. Reconnect with capped exponential backoff and jitter, early on `online` and on the page
 *    becoming visible; a new `session.open` each time. Calls running at a disconnect finish
 *    locally; their results are dropped with a console warning.
 * 5. Limits: a frame above `maxMessageBytes` closes the socket with 4009 (the protocol's 1009,
 *    "message too big", is reserved: browsers let pages send only 1000 and 3000-4999); nothing
 *    the host sends can throw out of the session, and nothing inflates beyond the frame limit.
 * 6. Pairing (issue 13): a `?pair=` code in the URL (or `pairingCode`) is traded, on the first
 *    socket, for the credential the host's `session.welcome` carries; every reconnect then uses
 *    the credential, never the spent code. A refused code or credential (4401) or a revocation
 *    (4403) ends the session with one console line saying why: no retry.
 * 7. The welcome's grant (`maxToolPolicy`) lowers what this page executes, checked at every call.
 *    `session.open` and each catalog push report the page's guard and the tools it hides.
 * 8. Heartbeats: pings are answered; a host silent for three of its heartbeat intervals is
 *    dropped and reconnected.
 */
import type { Tools } from '@toolwire/polyfill';
import { install, loadLowering } from '@toolwire/polyfill';
import type {
  BridgeSnapshot,
  BridgeTool,
  Guard,
  GuardPreset,
  GuardReport,
  ResponseEnvelope,
  SessionWelcomePayload,
  ToolPolicy,
} from '@toolwire/protocol';
import {
  catalogChanged,
  createToolBridge,
  isPlainObject,
  readWelcome,
  SESSION_CLOSE,
  sessionOpen,
  sessionPong,
} from '@toolwire/protocol';
import type { CaptureProvider } from './builtins/index.js';
import { createBuiltinTools } from './builtins/index.js';
import { oneReadAtATime, readPageTools } from './page-tools.js';
import { pageValidator } from './validator.js';

export const SDK_NAME = 'toolwire-web';
export const SDK_VERSION = '0.1.0';

export interface ConnectOptions {
  /**
   * ws:// or wss:// URL of the host. It may carry its secret already: `?token=` (the host's
   * page token), `?pair=` (a single-use pairing code) or `?credential=` (a tab's credential).
   */
  url: string;
  token?: string;
  /** A single-use pairing code (from a link), traded for a credential on the first socket. */
  pairingCode?: string;
  /** A credential this tab was given before (see the `paired` event). */
  credential?: string;
  /** The page's local guard. Default 'read-only'. */
  guard?: GuardPreset | Guard;
  /** Serve ui.get_visual_tree, ui.query_nodes, ui.perform_action, ui.get_screenshot. Default true. */
  builtins?: boolean;
  captureProvider?: CaptureProvider;
  /** Reconnect after a drop. Default on; `{initialDelayMs, maxDelayMs}` tunes the backoff. */
  reconnect?: boolean | { initialDelayMs?: number; maxDelayMs?: number };
  limits?: {
    /** Incoming frames above this close the socket with 4009 ("message too big"). Default 16 MiB. */
    maxMessageBytes?: number;
    /** Largest inflated payload; never above maxMessageBytes. Default: maxMessageBytes. */
    maxInflatedBytes?: number;
    maxDepth?: number;
    callTimeoutMs?: number;
  };
  /** The generic layer to serve; default: install the polyfill on this window. */
  tools?: Tools;
  /** Defaults to the global WebSocket. */
  WebSocket?: typeof WebSocket;
  /** Debounce for tool.catalog.changed. Default 100 ms. */
  catalogChangedDelayMs?: number;
}

export type SessionStatus = 'connecting' | 'open' | 'closed';

/** What the `paired` event carries: keep `credential` to reconnect this tab later. */
export interface PairedDetail {
  /** The host's address, without any secret. */
  address: string;
  credential: string;
  hostRun: string;
}

/** Why the host ended this tab's pairing (`refused` event): no retry follows. */
export interface RefusedDetail {
  code: number;
  reason: string;
  revoked: boolean;
}

const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** 1009 in the application range: a page's close() accepts only 1000 and 3000-4999. */
const MESSAGE_TOO_BIG = 4009;

type Secret = { name: 'token' | 'pair' | 'credential'; value: string } | undefined;

/** The URL without its secret, and the secret: options win over what the URL carries. */
function splitSecret(options: ConnectOptions): { address: string; secret: Secret } {
  const parsed = new URL(options.url);
  let secret: Secret;
  for (const name of ['token', 'pair', 'credential'] as const) {
    const value = parsed.searchParams.get(name);
    parsed.searchParams.delete(name);
    if (value && !secret) secret = { name, value };
  }
  if (options.credential) secret = { name: 'credential', value: options.credential };
  else if (options.pairingCode) secret = { name: 'pair', value: options.pairingCode };
  else if (options.token) secret = { name: 'token', value: options.token };
  return { address: parsed.toString(), secret };
}

function withSecret(address: string, secret: Secret): string {
  if (!secret) return address;
  const parsed = new URL(address);
  parsed.searchParams.set(secret.name, secret.value);
  return parsed.toString();
}

const presetName = (guard: ConnectOptions['guard']): string | undefined =>
  typeof guard === 'string' ? guard : guard === undefined ? 'read-only' : undefined;

function randomId(): string {
  return typeof crypto !== 'undefined' && 'randomUUID' in crypto
    ? crypto.randomUUID()
    : String(Math.random()).slice(2);
}

/**
 * One page's connection to a host. Events: `open`, `close` (detail: {code, reason, willRetry}),
 * `error`, `request` (detail: {type, id, toolId?, message}, before it is served; `message` is the
 * decoded request, undefined when the frame is not JSON or over 64 KiB), `response`
 * (detail: the response envelope, after it is sent), `welcome` (detail: the host's
 * session.welcome payload), `paired` (detail: PairedDetail) and `refused` (detail:
 * RefusedDetail; the session is closed for good).
 */
export class Session extends EventTarget {
  #options: ConnectOptions;
  #status: SessionStatus = 'connecting';
  #socket: WebSocket | undefined;
  #closedByUser = false;
  #attempt = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #changedTimer: ReturnType<typeof setTimeout> | undefined;
  #tools: BridgeTool[] = [];
  #builtins: BridgeTool[];
  #disposeBuiltins: () => void;
  #bridge: ReturnType<typeof createToolBridge>;
  #pageTools: Tools;
  #refreshing: Promise<void> | undefined;
  #expand: ((schema: object) => object) | undefined;
  #address: string;
  #secret: Secret;
  #welcome: SessionWelcomePayload | undefined;
  #watchdog: ReturnType<typeof setInterval> | undefined;
  #lastHeard = 0;
  /** `request` / `response` have (or once had) a listener: only then are their events built. */
  #observed = { request: false, response: false };
  readonly sessionKey = randomId();

  constructor(options: ConnectOptions) {
    super();
    this.#options = options;
    ({ address: this.#address, secret: this.#secret } = splitSecret(options));
    this.#pageTools = options.tools ?? install().tools;
    if (options.builtins !== false && typeof document !== 'undefined') {
      const builtins = createBuiltinTools({ document, captureProvider: options.captureProvider });
      this.#builtins = builtins.tools;
      this.#disposeBuiltins = () => builtins.dispose();
    } else {
      this.#builtins = [];
      this.#disposeBuiltins = () => {};
    }
    const maxMessageBytes = options.limits?.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#bridge = createToolBridge({
      tools: () => [...this.#builtins, ...this.#tools],
      guard: options.guard ?? 'read-only',
      // The host's grant, as its welcome on this socket said (requirement 7).
      grant: () => this.#welcome?.maxToolPolicy,
      validator: pageValidator(),
      limits: {
        maxInflatedBytes: Math.min(
          options.limits?.maxInflatedBytes ?? maxMessageBytes,
          maxMessageBytes,
        ),
        maxDepth: options.limits?.maxDepth,
        callTimeoutMs: options.limits?.callTimeoutMs,
      },
      onToolError: (error) => console.warn(`toolwire: ${error.message}`),
    });
    this.#pageTools.addEventListener('toolchange', this.#onToolChange);
    if (typeof window !== 'undefined') {
      window.addEventListener('online', this.#retryNow);
      document.addEventListener('visibilitychange', this.#onVisibility);
    }
    void this.#refresh().then(() => this.#open());
  }

  get status(): SessionStatus {
    return this.#status;
  }

  /** The host's address, without any secret. */
  get address(): string {
    return this.#address;
  }

  /** The host's grant on the current socket (undefined before its welcome, or if it sent none). */
  get grant(): ToolPolicy | undefined {
    return this.#welcome?.maxToolPolicy;
  }

  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: AddEventListenerOptions | boolean,
  ): void {
    // Two events per call cost a small call ~10% of its page-side time; most pages never
    // listen. Once anything listens, the events are sent for good (a `once` listener or an
    // aborted signal removes itself without telling us, so no count is kept).
    if (listener && (type === 'request' || type === 'response')) this.#observed[type] = true;
    super.addEventListener(type, listener, options);
  }

  /** The bridge's current tools (built-ins first), for inspection and the demo's agent view. */
  get catalogTools(): readonly BridgeTool[] {
    return [...this.#builtins, ...this.#tools];
  }

  /** Answer one request directly (for in-page agent views and tests); never throws. */
  async handle(message: unknown): Promise<ResponseEnvelope | undefined> {
    return (await this.#bridge.handle(message))?.envelope;
  }

  close(): void {
    this.#closedByUser = true;
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#changedTimer);
    this.#pageTools.removeEventListener('toolchange', this.#onToolChange);
    if (typeof window !== 'undefined') {
      window.removeEventListener('online', this.#retryNow);
      document.removeEventListener('visibilitychange', this.#onVisibility);
    }
    this.#disposeBuiltins();
    clearInterval(this.#watchdog);
    this.#socket?.close(1000, 'closed by the page');
    this.#setStatus('closed');
  }

  // ---- the socket ---------------------------------------------------------------------------

  #open(): void {
    if (this.#closedByUser) return;
    const Socket = this.#options.WebSocket ?? globalThis.WebSocket;
    let socket: WebSocket;
    try {
      socket = new Socket(withSecret(this.#address, this.#secret));
    } catch (error) {
      this.dispatchEvent(new CustomEvent('error', { detail: error }));
      this.#scheduleRetry();
      return;
    }
    this.#socket = socket;
    this.#setStatus('connecting');
    socket.binaryType = 'arraybuffer';
    socket.onopen = () => {
      this.#attempt = 0;
      this.#lastHeard = Date.now();
      this.#setStatus('open');
      this.dispatchEvent(new Event('open'));
      void this.#sendOpen(socket);
    };
    socket.onmessage = (event) => this.#onMessage(socket, event);
    socket.onerror = () => this.dispatchEvent(new Event('error'));
    socket.onclose = (event) => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      this.#welcome = undefined;
      clearInterval(this.#watchdog);
      // The host said no to this tab's code or credential, or revoked it: retrying cannot help.
      const refused =
        event.code === SESSION_CLOSE.pairingRefused || event.code === SESSION_CLOSE.revoked;
      if (refused) this.#closedByUser = true;
      const willRetry = !this.#closedByUser && this.#options.reconnect !== false;
      this.dispatchEvent(
        new CustomEvent('close', { detail: { code: event.code, reason: event.reason, willRetry } }),
      );
      if (refused) {
        const revoked = event.code === SESSION_CLOSE.revoked;
        console.warn(
          `toolwire: the host at ${this.#address} ${revoked ? 'revoked' : 'refused'} this tab's pairing: ${event.reason || 'no reason given'}.`,
        );
        this.dispatchEvent(
          new CustomEvent<RefusedDetail>('refused', {
            detail: { code: event.code, reason: event.reason, revoked },
          }),
        );
      }
      if (willRetry) {
        this.#setStatus('connecting');
        this.#scheduleRetry();
      } else {
        this.#setStatus('closed');
      }
    };
  }

  /** `session.open`, once the guard report is ready (requests meanwhile are served as usual). */
  async #sendOpen(socket: WebSocket): Promise<void> {
    let guard: GuardReport | undefined;
    try {
      guard = guardReport(await this.#bridge.snapshot(), this.#options.guard);
    } catch {
      // The open still says who we are; the next catalog push carries the guard.
    }
    if (this.#socket !== socket) return;
    this.#send(
      socket,
      sessionOpen({
        sdk: { name: SDK_NAME, version: SDK_VERSION },
        page: {
          origin: typeof location !== 'undefined' ? location.origin : 'null',
          url: typeof location !== 'undefined' ? location.href : '',
          title: typeof document !== 'undefined' ? document.title : '',
        },
        session: this.sessionKey,
        ...(guard ? { guard } : {}),
      }),
    );
  }

  /** The host's session messages: the welcome, pings. True when `frame` was one. */
  #onSessionMessage(socket: WebSocket, frame: string): boolean {
    // Cheap test first: tool traffic never starts its type with "session.".
    if (!frame.includes('"session.')) return false;
    let message: unknown;
    try {
      message = JSON.parse(frame);
    } catch {
      return false;
    }
    if (!isPlainObject(message)) return false;
    if (message.type === 'session.ping' && typeof message.id === 'string') {
      this.#send(socket, sessionPong({ id: message.id }));
      return true;
    }
    if (message.type !== 'session.welcome') return false;
    const welcome = readWelcome(message);
    if (!welcome) return true;
    this.#welcome = welcome;
    this.#startWatchdog(socket, welcome.heartbeatIntervalMs);
    this.dispatchEvent(new CustomEvent('welcome', { detail: welcome }));
    if (welcome.credential && this.#secret?.name === 'pair') {
      // The code is spent: this tab reconnects with its credential from now on.
      this.#secret = { name: 'credential', value: welcome.credential };
      this.dispatchEvent(
        new CustomEvent<PairedDetail>('paired', {
          detail: {
            address: this.#address,
            credential: welcome.credential,
            hostRun: welcome.hostRun,
          },
        }),
      );
    }
    return true;
  }

  #startWatchdog(socket: WebSocket, intervalMs: number): void {
    clearInterval(this.#watchdog);
    if (intervalMs <= 0) return;
    this.#watchdog = setInterval(() => {
      if (this.#socket !== socket) return;
      if (Date.now() - this.#lastHeard >= 3 * intervalMs) {
        clearInterval(this.#watchdog);
        // The host went quiet (a sleeping laptop, a dead process behind a live proxy).
        socket.close(SESSION_CLOSE.silent, 'the host stopped answering');
        // Browsers report the close only after the handshake; do not wait for a dead peer.
        socket.onclose?.call(socket, {
          code: SESSION_CLOSE.silent,
          reason: 'the host stopped answering',
        } as CloseEvent);
      }
    }, intervalMs);
  }

  #onMessage(socket: WebSocket, event: MessageEvent): void {
    this.#lastHeard = Date.now();
    const data = event.data as unknown;
    // Binary frames (ASFT transfers go host-bound only) are not ours to read.
    if (typeof data !== 'string') return;
    const max = this.#options.limits?.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    // UTF-16 length is a lower bound of the UTF-8 size; a frame that long is too big already.
    if (
      data.length > max ||
      (data.length * 3 > max && new TextEncoder().encode(data).byteLength > max)
    ) {
      socket.close(MESSAGE_TOO_BIG, 'message too big');
      return;
    }
    if (this.#onSessionMessage(socket, data)) return;
    void this.#serve(socket, data);
  }

  async #serve(socket: WebSocket, frame: string): Promise<void> {
    try {
      if (this.#refreshing) await this.#refreshing;
      // The request event's detail parses the frame only if a listener reads it.
      if (this.#observed.request) {
        this.dispatchEvent(new CustomEvent('request', { detail: lazyPeek(frame) }));
      }
      const response = await this.#bridge.handle(frame);
      if (!response) return;
      if (socket.readyState !== 1 || this.#socket !== socket) {
        console.warn(
          `toolwire: the connection closed before ${response.id} could be sent; its result is dropped.`,
        );
        return;
      }
      socket.send(response.frame);
      if (this.#observed.response) {
        // The frame parsed: an envelope is built only for a page that listens.
        this.dispatchEvent(new CustomEvent('response', { detail: response.envelope }));
      }
    } catch (error) {
      // handle() never throws; a send on a closing socket might.
      this.dispatchEvent(new CustomEvent('error', { detail: error }));
    }
  }

  #send(socket: WebSocket, message: object): void {
    if (socket.readyState !== 1) return;
    try {
      socket.send(JSON.stringify(message));
    } catch (error) {
      this.dispatchEvent(new CustomEvent('error', { detail: error }));
    }
  }

  #setStatus(status: SessionStatus): void {
    if (this.#status === status) return;
    this.#status = status;
    this.dispatchEvent(new Event('statuschange'));
  }

  // ---- reconnecting -------------------------------------------------------------------------

  #scheduleRetry(): void {
    if (this.#closedByUser || this.#options.reconnect === false) return;
    clearTimeout(this.#retryTimer);
    const tuning = typeof this.#options.reconnect === 'object' ? this.#options.reconnect : {};
    const initial = tuning.initialDelayMs ?? 250;
    const max = tuning.maxDelayMs ?? 15_000;
    const exponential = Math.min(max, initial * 2 ** Math.min(this.#attempt, 16));
    // Full jitter in the upper half: spread reconnect storms, never wait longer than the cap.
    const delay = exponential / 2 + Math.random() * (exponential / 2);
    this.#attempt++;
    this.#retryTimer = setTimeout(() => this.#open(), delay);
  }

  #retryNow = (): void => {
    if (this.#closedByUser || this.#socket || this.#options.reconnect === false) return;
    clearTimeout(this.#retryTimer);
    this.#attempt = 0;
    this.#open();
  };

  #onVisibility = (): void => {
    if (document.visibilityState === 'visible') this.#retryNow();
  };

  // ---- the catalog ----------------------------------------------------------------------------

  #onToolChange = (): void => {
    void this.#refresh().then(() => this.#scheduleCatalogChanged());
  };

  // One read at a time, the newest last (page-tools.ts): concurrent reads let a stale one win.
  #readTools = oneReadAtATime(async () => {
    this.#expand ??= (await loadLowering()).expandSchema as (schema: object) => object;
    try {
      this.#tools = await readPageTools({
        tools: this.#pageTools,
        origin: typeof location !== 'undefined' ? location.origin : 'null',
        expandSchema: this.#expand,
        reserved: new Set(this.#builtins.map((tool) => tool.definition.id)),
      });
    } catch (error) {
      console.warn(`toolwire: reading the page's tools failed: ${String(error)}`);
    }
    this.#bridge.invalidate();
  });

  async #refresh(): Promise<void> {
    const run = this.#readTools();
    this.#refreshing = run;
    try {
      await run;
    } finally {
      if (this.#refreshing === run) this.#refreshing = undefined;
    }
  }

  #scheduleCatalogChanged(): void {
    clearTimeout(this.#changedTimer);
    this.#changedTimer = setTimeout(
      () => void this.#pushCatalogChanged(),
      this.#options.catalogChangedDelayMs ?? 100,
    );
  }

  async #pushCatalogChanged(): Promise<void> {
    const socket = this.#socket;
    if (socket?.readyState !== 1) return; // 1: OPEN
    let snapshot: BridgeSnapshot;
    try {
      snapshot = await this.#bridge.snapshot();
    } catch {
      return;
    }
    // Pushed after every settled change, even one that looks like the last push: the host may
    // have cached another state through its own queries in between (it skips what it holds).
    this.#send(
      socket,
      catalogChanged({
        revision: snapshot.revision,
        availabilityRevision: snapshot.availabilityRevision,
        guard: guardReport(snapshot, this.#options.guard),
      }),
    );
  }
}

/** The guard as `session.open` and the catalog push report it. */
function guardReport(snapshot: BridgeSnapshot, option: ConnectOptions['guard']): GuardReport {
  const report: GuardReport = {
    discoveryEnabled: snapshot.guard.discoveryEnabled,
    executionEnabled: snapshot.guard.executionEnabled,
    maxPolicy: snapshot.guard.maxPolicy,
    hidden: snapshot.hidden.slice(0, 1000),
  };
  const preset = presetName(option);
  if (preset) report.preset = preset;
  return report;
}

interface RequestPeek {
  type?: unknown;
  id?: unknown;
  toolId?: unknown;
  /** The whole decoded request (arguments included), for logs and inspectors. */
  message?: unknown;
}

/** {type, id, toolId, message} of a request frame, parsed on first access (most pages never look). */
function lazyPeek(frame: string): RequestPeek {
  let parsed: RequestPeek | undefined;
  const read = (): RequestPeek => {
    if (parsed) return parsed;
    parsed = {};
    if (frame.length > 65_536) return parsed;
    try {
      const value = JSON.parse(frame) as {
        type?: unknown;
        id?: unknown;
        payload?: { toolId?: unknown };
      };
      if (typeof value === 'object' && value !== null) {
        parsed = {
          type: value.type,
          id: value.id,
          toolId: value.payload?.toolId,
          message: value,
        };
      }
    } catch {
      // Not JSON: nothing to show.
    }
    return parsed;
  };
  return {
    get type() {
      return read().type;
    },
    get id() {
      return read().id;
    },
    get toolId() {
      return read().toolId;
    },
    get message() {
      return read().message;
    },
  };
}

/** Connects this page to a host; see ConnectOptions. */
export function connect(options: ConnectOptions): Session {
  if (!options || typeof options.url !== 'string') throw new TypeError('connect() needs {url}.');
  return new Session(options);
}
