/**
 * One page's connection to a host (see connect.ts for the whole contract). The session layer of
 * each connection (session.open, the welcome, heartbeats and silence, the frame limit, cancel and
 * progress, serving requests through the tool bridge) is @toolwire/protocol's PageSessionCore;
 * this class adds what outlives one connection: the page's tools and built-ins, the handshake's
 * secret (a code spent for a derived credential, docs/wire.md "The handshake"), reconnecting
 * with backoff, and the catalog push.
 */
import { install } from '@toolwire/polyfill';
import { loadSchemaFailure } from '@toolwire/polyfill/wire';
import type {
  BridgeTool,
  GuardReport,
  ResponseEnvelope,
  SessionOpenPayload,
  SessionWelcomePayload,
  ToolPolicy,
  TransportCloseInfo,
} from '@toolwire/protocol';
import {
  createNonce,
  createToolBridge,
  credentialSecret,
  dialedPort,
  hostProof,
  PageSessionCore,
  pageProof,
  SESSION_CLOSE,
  secretId,
} from '@toolwire/protocol';
import { createBuiltinTools } from './builtins/index.js';
import { CatalogPush, guardReport } from './catalog-push.js';
import { loadDeflate } from './chunks.js';
import { pageGzip } from './compression.js';
import type { Connection } from './connection.js';
import { pageHmac } from './hmac.js';
import type { ConnectOptions, PairedDetail, RefusedDetail, SessionStatus } from './options.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './options.js';
import { PageCatalog } from './page-catalog.js';
import { Backoff } from './reconnect.js';
import { lazyPeek } from './request-peek.js';
import type { Secret } from './secret.js';
import { dialUrl, splitSecret } from './secret.js';
import { pageValidator } from './validator.js';
import { webSocketConnector } from './websocket-transport.js';

export const SDK_NAME = 'toolwire-web';
/** Replaced by the build (and the unit tests' config) with this package's package.json version. */
declare const __TOOLWIRE_ENDPOINT_VERSION__: string | undefined;
/** This package's version, as the page reports it in `session.open`; `dev` from unbuilt source. */
export const SDK_VERSION: string =
  typeof __TOOLWIRE_ENDPOINT_VERSION__ === 'string' ? __TOOLWIRE_ENDPOINT_VERSION__ : 'dev';

/** What `session.open` says of the tab: `ConnectOptions.page`'s fields, else this document's. */
function tabIdentity(page: ConnectOptions['page']): { origin: string; url: string; title: string } {
  const here = typeof location !== 'undefined' ? location : undefined;
  return {
    origin: typeof page?.origin === 'string' ? page.origin : (here?.origin ?? 'null'),
    url: typeof page?.url === 'string' ? page.url : (here?.href ?? ''),
    title:
      typeof page?.title === 'string'
        ? page.title
        : typeof document !== 'undefined'
          ? document.title
          : '',
  };
}

/** Addresses already warned about an unproven host: one console line each, not one a retry. */
const warnedUnproven = new Set<string>();

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
 * session.welcome payload, once its proof checked out), `paired` (detail: PairedDetail) and
 * `refused` (detail: RefusedDetail; the session is closed for good). With the handshake (every
 * pairing code and credential, and the page token unless `hostProof: false`), `open` and the
 * status `open` come with the host's proven welcome, not with the socket.
 */
export class Session extends EventTarget {
  #options: ConnectOptions;
  #maxMessageBytes: number;
  #status: SessionStatus = 'connecting';
  #connection: Connection | undefined;
  /** The session layer of `#connection`. */
  #core: PageSessionCore | undefined;
  #closedByUser = false;
  #backoff: Backoff;
  #catalogPush: CatalogPush;
  #builtins: BridgeTool[];
  #disposeBuiltins: () => void;
  #bridge: ReturnType<typeof createToolBridge>;
  /** Stops listening for changes of the served tools. */
  #unwatchTools: () => void;
  #catalog: PageCatalog;
  #address: string;
  #secret: Secret;
  /** A socket is being dialed (its id computed): no second one meanwhile. */
  #dialing = false;
  /** A credential derived, kept by the host once its first request comes: `paired` then. */
  #paired: PairedDetail | undefined;
  /** The public id of each secret this session dialed with, computed once. */
  #ids = new Map<string, Promise<string>>();
  /** `request` / `response` have (or once had) a listener: only then are their events built. */
  #observed = { request: false, response: false };
  readonly sessionKey = randomId();

  constructor(options: ConnectOptions) {
    super();
    this.#options = options;
    ({ address: this.#address, secret: this.#secret } = splitSecret(options));
    const source = options.source;
    const pageTools = source ? undefined : (options.tools ?? install().tools);
    if (options.builtins !== false && typeof document !== 'undefined') {
      const builtins = createBuiltinTools({ document, captureProvider: options.captureProvider });
      this.#builtins = builtins.tools;
      this.#disposeBuiltins = () => builtins.dispose();
    } else {
      this.#builtins = [];
      this.#disposeBuiltins = () => {};
    }
    const maxMessageBytes = options.limits?.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#maxMessageBytes = maxMessageBytes;
    const gzipAsync = pageGzip();
    this.#bridge = createToolBridge({
      tools: () => [...this.#builtins, ...this.#catalog.tools],
      guard: options.guard ?? 'read-only',
      // The host's grant, as its welcome on this connection said.
      grant: () => this.#core?.welcome?.maxToolPolicy,
      validator: pageValidator(),
      // The host's word in its welcome (docs/wire.md "Large payloads"): `false` sends payloads
      // as they are; absent (no welcome yet, or a host that does not say) keeps the default,
      // gzipping 32 KiB or more, which every host reads.
      compress: () => (this.#core?.welcome?.compressPayloads === false ? false : gzipAsync),
      // fflate, fetched only for a compressed request (or a gzip without CompressionStream).
      loadDeflate,
      // A schema failure's details and wording, fetched the first time a call fails its schema.
      loadSchemaFailure,
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
    this.#catalog = new PageCatalog({
      ...(source ? { source } : { tools: pageTools }),
      reserved: new Set(this.#builtins.map((tool) => tool.definition.id)),
      onRead: () => this.#bridge.invalidate(),
    });
    this.#backoff = new Backoff(options.reconnect);
    this.#catalogPush = new CatalogPush({
      delayMs: options.catalogChangedDelayMs ?? 100,
      guard: options.guard,
      snapshot: () => this.#bridge.snapshot(),
      // Nothing, not even the catalog's revisions, goes to a host that has not proved itself.
      current: () => (this.#core?.proven ? this.#connection : undefined),
      send: (connection, message) => this.#send(connection, message),
    });
    if (source) {
      this.#unwatchTools = source.subscribe(this.#onToolChange);
    } else {
      pageTools?.addEventListener('toolchange', this.#onToolChange);
      this.#unwatchTools = () => pageTools?.removeEventListener('toolchange', this.#onToolChange);
    }
    if (typeof window !== 'undefined') {
      window.addEventListener('online', this.#retryNow);
      document.addEventListener('visibilitychange', this.#onVisibility);
    }
    void this.#catalog.refresh().then(() => this.#open());
  }

  get status(): SessionStatus {
    return this.#status;
  }

  /** The host's address, without any secret. */
  get address(): string {
    return this.#address;
  }

  /** The host's grant on the current connection (undefined before its welcome, or if it sent none). */
  get grant(): ToolPolicy | undefined {
    return this.#core?.welcome?.maxToolPolicy;
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
    return [...this.#builtins, ...this.#catalog.tools];
  }

  /** Answer one request directly (for in-page agent views and tests); never throws. */
  async handle(message: unknown): Promise<ResponseEnvelope | undefined> {
    return (await this.#bridge.handle(message))?.envelope;
  }

  close(): void {
    this.#closedByUser = true;
    this.#backoff.cancel();
    this.#catalogPush.cancel();
    this.#unwatchTools();
    if (typeof window !== 'undefined') {
      window.removeEventListener('online', this.#retryNow);
      document.removeEventListener('visibilitychange', this.#onVisibility);
    }
    this.#disposeBuiltins();
    this.#core?.close({ code: 1000, reason: 'closed by the page' });
    this.#setStatus('closed');
  }

  // ---- the connection -----------------------------------------------------------------------

  /**
   * Does this connection ask the host for its proof? Always with a pairing code or credential;
   * with the page token unless `hostProof: false` (a host of the protocol that sends none).
   */
  get #proving(): boolean {
    if (!this.#secret) return false;
    return this.#secret.name !== 'token' || this.#options.hostProof !== false;
  }

  async #open(): Promise<void> {
    if (this.#closedByUser || this.#dialing) return;
    this.#dialing = true;
    const connect =
      this.#options.connector ??
      webSocketConnector(this.#options.WebSocket ?? globalThis.WebSocket);
    const secret = this.#secret;
    const nonce = this.#proving ? createNonce() : undefined;
    let connection: Connection;
    try {
      const url = await dialUrl(this.#address, secret, nonce, this.#idOf);
      if (this.#closedByUser) return;
      connection = connect(url);
    } catch (error) {
      this.dispatchEvent(new CustomEvent('error', { detail: error }));
      this.#scheduleRetry();
      return;
    } finally {
      this.#dialing = false;
    }
    this.#connection = connection;
    /** A pairing code's socket: the credential derived once the host's proof checked out. */
    let derived: string | undefined;
    const verifyWelcome =
      nonce === undefined || !secret
        ? undefined
        : async (welcome: SessionWelcomePayload): Promise<string | undefined> => {
            const proof = welcome.proof;
            if (!proof) return undefined;
            const hmac = await pageHmac();
            const bound = {
              pageNonce: nonce,
              hostNonce: proof.nonce,
              port: dialedPort(this.#address),
            };
            if ((await hostProof(hmac, secret.value, bound)) !== proof.mac) return undefined;
            if (secret.name === 'pair') {
              derived = await credentialSecret(hmac, secret.value, bound);
              // Its id now: the reconnect that needs it then dials at once.
              this.#ids.set(derived, secretId(hmac, derived));
            }
            return pageProof(hmac, secret.value, bound);
          };
    const core = new PageSessionCore({
      transport: connection,
      bridge: this.#bridge,
      open: () => this.#openPayload(),
      maxFrameBytes: this.#maxMessageBytes,
      verifyWelcome,
      onWelcome: (welcome) => this.#onWelcome(welcome, secret, derived),
      onClose: (info) => this.#onClose(connection, info),
      beforeServe: this.#beforeServe,
      onResponse: (response) => {
        // The frame parsed: an envelope is built only for a page that listens.
        if (this.#observed.response) {
          this.dispatchEvent(new CustomEvent('response', { detail: response.envelope }));
        }
      },
      onError: (error) => this.dispatchEvent(new CustomEvent('error', { detail: error })),
    });
    this.#core = core;
    this.#setStatus('connecting');
    connection.onopen = () => {
      // With the handshake, the connection counts as open once the host proved itself.
      if (!verifyWelcome) this.#opened();
      core.start();
    };
    connection.onbinary = () => core.heard();
    connection.onerror = () => this.dispatchEvent(new Event('error'));
  }

  #onClose(connection: Connection, { code = 1005, reason = '' }: TransportCloseInfo): void {
    if (this.#connection !== connection) return;
    this.#connection = undefined;
    this.#core = undefined;
    // Whoever answered did not prove it is the host this tab paired with: the real one may come
    // back, so the pairing stays and the retries go on, with one line per address.
    if (code === SESSION_CLOSE.hostUnproven && !warnedUnproven.has(this.#address)) {
      warnedUnproven.add(this.#address);
      console.warn(`toolwire: ${this.#address} is not this tab's host (no proof); not serving it.`);
    }
    // The host said no to this tab's code or credential, or revoked it: retrying cannot help.
    const refused = code === SESSION_CLOSE.pairingRefused || code === SESSION_CLOSE.revoked;
    if (refused) this.#closedByUser = true;
    const willRetry = !this.#closedByUser && this.#options.reconnect !== false;
    this.dispatchEvent(new CustomEvent('close', { detail: { code, reason, willRetry } }));
    if (refused) {
      const revoked = code === SESSION_CLOSE.revoked;
      console.warn(
        `toolwire: the host at ${this.#address} ${revoked ? 'revoked' : 'refused'} this tab's pairing: ${reason || 'no reason given'}.`,
      );
      this.dispatchEvent(
        new CustomEvent<RefusedDetail>('refused', { detail: { code, reason, revoked } }),
      );
    }
    if (willRetry) {
      this.#setStatus('connecting');
      this.#scheduleRetry();
    } else {
      this.#setStatus('closed');
    }
  }

  /** What `session.open` says, once the guard report is ready (requests meanwhile are served). */
  async #openPayload(): Promise<SessionOpenPayload> {
    let guard: GuardReport | undefined;
    try {
      guard = guardReport(await this.#bridge.snapshot(), this.#options.guard);
    } catch {
      // The open still says who we are; the next catalog push carries the guard.
    }
    return {
      sdk: { name: SDK_NAME, version: SDK_VERSION },
      page: tabIdentity(this.#options.page),
      session: this.sessionKey,
      ...(guard ? { guard } : {}),
    };
  }

  #idOf = (secret: string): Promise<string> => {
    let id = this.#ids.get(secret);
    if (!id) {
      id = pageHmac().then((hmac) => secretId(hmac, secret));
      this.#ids.set(secret, id);
    }
    return id;
  };

  /** The connection may serve: its welcome proved the host (or no proof was asked for). */
  #opened(): void {
    this.#backoff.reset();
    this.#setStatus('open');
    this.dispatchEvent(new Event('open'));
  }

  /**
   * The host's welcome on this connection, proven when a proof was asked for: a pairing code is
   * spent for the credential both sides derived.
   */
  #onWelcome(welcome: SessionWelcomePayload, secret: Secret, derived: string | undefined): void {
    if (secret && this.#proving) this.#opened();
    this.dispatchEvent(new CustomEvent('welcome', { detail: welcome }));
    if (derived !== undefined && secret?.name === 'pair' && this.#secret === secret) {
      // The code is spent: this tab reconnects with its credential from now on. The host keeps
      // it once our session.open checked out, before its first request: `paired` waits for that.
      this.#secret = { name: 'credential', value: derived };
      this.#paired = {
        address: this.#address,
        credential: derived,
        hostRun: welcome.hostRun,
        hostId: welcome.hostId,
      };
    }
  }

  /** Before a request is served: the page's tools settle first; a `request` listener hears it. */
  #beforeServe = (frame: string): Promise<unknown> | undefined => {
    const detail = this.#paired;
    this.#paired = undefined;
    if (detail) this.dispatchEvent(new CustomEvent<PairedDetail>('paired', { detail }));
    const refreshing = this.#catalog.refreshing;
    if (refreshing) return refreshing.then(() => this.#announce(frame));
    this.#announce(frame);
    return undefined;
  };

  #announce(frame: string): void {
    // The request event's detail parses the frame only if a listener reads it.
    if (this.#observed.request) {
      this.dispatchEvent(new CustomEvent('request', { detail: lazyPeek(frame) }));
    }
  }

  #send(connection: Connection, message: object): void {
    if (!connection.isOpen) return;
    try {
      connection.send(JSON.stringify(message));
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
    this.#backoff.schedule(() => this.#open());
  }

  #retryNow = (): void => {
    if (this.#closedByUser || this.#connection || this.#dialing) return;
    if (this.#options.reconnect === false) return;
    this.#backoff.cancel();
    this.#backoff.reset();
    this.#open();
  };

  #onVisibility = (): void => {
    if (document.visibilityState === 'visible') this.#retryNow();
  };

  // ---- the catalog ----------------------------------------------------------------------------

  #onToolChange = (): void => {
    void this.#catalog.refresh().then(() => this.#catalogPush.schedule());
  };
}
