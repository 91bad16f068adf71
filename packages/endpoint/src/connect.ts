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
 *    the host sends can throw out of the session.
 */
import type { Tools } from '@toolwire/polyfill';
import { install, loadLowering } from '@toolwire/polyfill';
import type { BridgeTool, Guard, GuardPreset } from '@toolwire/protocol';
import { createToolBridge, decodePayload, serializeMessage } from '@toolwire/protocol';
import type { CaptureProvider } from './builtins/index.js';
import { createBuiltinTools } from './builtins/index.js';
import { oneReadAtATime, readPageTools } from './page-tools.js';
import { pageValidator } from './validator.js';

export const SDK_NAME = 'toolwire-web';
export const SDK_VERSION = '0.1.0';

export interface ConnectOptions {
  /** ws:// or wss:// URL of the host; `?token=` may be in it already. */
  url: string;
  token?: string;
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

const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** 1009 in the application range: a page's close() accepts only 1000 and 3000-4999. */
export const MESSAGE_TOO_BIG = 4009;

function withToken(url: string, token: string | undefined): string {
  if (!token) return url;
  const parsed = new URL(url);
  if (!parsed.searchParams.has('token')) parsed.searchParams.set('token', token);
  return parsed.toString();
}

function randomId(): string {
  return typeof crypto !== 'undefined' && 'randomUUID' in crypto
    ? crypto.randomUUID()
    : String(Math.random()).slice(2);
}

/**
 * One page's connection to a host. Events: `open`, `close` (detail: {code, reason, willRetry}),
 * `error`, `request` (detail: {type, id, toolId?, message}, before it is served; `message` is the
 * decoded request, undefined when the frame is not JSON or over 64 KiB) and `response`
 * (detail: the response envelope, after it is sent).
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
  /** `request` / `response` have (or once had) a listener: only then are their events built. */
  #observed = { request: false, response: false };
  readonly sessionKey = randomId();

  constructor(options: ConnectOptions) {
    super();
    this.#options = options;
    this.#pageTools = options.tools ?? install().tools;
    if (options.builtins !== false && typeof document !== 'undefined') {
      const builtins = createBuiltinTools({ document, captureProvider: options.captureProvider });
      this.#builtins = builtins.tools;
      this.#disposeBuiltins = () => builtins.dispose();
    } else {
      this.#builtins = [];
      this.#disposeBuiltins = () => {};
    }
    this.#bridge = createToolBridge({
      tools: () => [...this.#builtins, ...this.#tools],
      guard: options.guard ?? 'read-only',
      validator: pageValidator(),
      limits: {
        maxInflatedBytes: options.limits?.maxInflatedBytes,
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
  handle(message: unknown) {
    return this.#bridge.handle(message);
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
    this.#socket?.close(1000, 'closed by the page');
    this.#setStatus('closed');
  }

  // ---- the socket ---------------------------------------------------------------------------

  #open(): void {
    if (this.#closedByUser) return;
    const Socket = this.#options.WebSocket ?? globalThis.WebSocket;
    let socket: WebSocket;
    try {
      socket = new Socket(withToken(this.#options.url, this.#options.token));
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
      this.#send(socket, {
        type: 'session.open',
        id: `session.open.${randomId()}`,
        sentAt: new Date().toISOString(),
        payload: {
          sdk: { name: SDK_NAME, version: SDK_VERSION },
          page: {
            origin: typeof location !== 'undefined' ? location.origin : 'null',
            url: typeof location !== 'undefined' ? location.href : '',
            title: typeof document !== 'undefined' ? document.title : '',
          },
          session: this.sessionKey,
        },
      });
      this.#setStatus('open');
      this.dispatchEvent(new Event('open'));
    };
    socket.onmessage = (event) => this.#onMessage(socket, event);
    socket.onerror = () => this.dispatchEvent(new Event('error'));
    socket.onclose = (event) => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      const willRetry = !this.#closedByUser && this.#options.reconnect !== false;
      this.dispatchEvent(
        new CustomEvent('close', { detail: { code: event.code, reason: event.reason, willRetry } }),
      );
      if (willRetry) {
        this.#setStatus('connecting');
        this.#scheduleRetry();
      } else {
        this.#setStatus('closed');
      }
    };
  }

  #onMessage(socket: WebSocket, event: MessageEvent): void {
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
      socket.send(serializeMessage(response));
      if (this.#observed.response) {
        this.dispatchEvent(new CustomEvent('response', { detail: response }));
      }
    } catch (error) {
      // handle() never throws; a send on a closing socket might.
      this.dispatchEvent(new CustomEvent('error', { detail: error }));
    }
  }

  #send(socket: WebSocket, message: object): void {
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
    const response = await this.#bridge.handle({
      type: 'tool.query',
      id: 'toolwire.internal',
      payload: { detail: 'index', limit: 1 },
    });
    const payload = response
      ? (decodePayload(response.payload) as { revision?: string; availabilityRevision?: string })
      : undefined;
    // Pushed even when it equals the last push: the host's own queries may have cached another
    // state since (it compares, and skips a revision it holds).
    if (!payload?.revision) return;
    this.#send(socket, {
      type: 'tool.catalog.changed',
      id: `tool.catalog.changed.${randomId()}`,
      sentAt: new Date().toISOString(),
      capability: 'tool.exec',
      payload: { revision: payload.revision, availabilityRevision: payload.availabilityRevision },
    });
  }
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
