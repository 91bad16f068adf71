/** What `connect()` takes, and what its session's events carry. */
import type { Tools } from '@toolwire/polyfill';
import type { BridgeTool, Guard, GuardPreset } from '@toolwire/protocol';
import type { CaptureProvider } from './builtins/index.js';
import type { Connector } from './connection.js';

export interface ConnectOptions {
  /**
   * ws:// or wss:// URL of the host. It may carry its secret already: `?token=` (the host's
   * page token), `?pair=` (a single-use pairing code) or `?credential=` (a tab's credential).
   * Only the token is sent as it is; a code or a credential is named by its public id, and the
   * host proves it holds it before the page serves anything (docs/wire.md "The handshake").
   */
  url: string;
  token?: string;
  /** A single-use pairing code (from a link), spent for a credential on the first socket. */
  pairingCode?: string;
  /** The credential's secret this tab derived before (see the `paired` event). */
  credential?: string;
  /**
   * A delegate of a browser extension's pairing, for code the extension runs inside a tab (its
   * content script): `of` is the public id of the extension's credential, `secret` the key the
   * extension derived from that credential for this page's origin (`delegateSecret`). The socket
   * names the parent (`?delegate-of=`); the host derives the same key from the parent and the
   * socket's `Origin`, and proves it as for a credential. Nothing is paired or kept.
   */
  delegate?: { of: string; secret: string };
  /**
   * Ask the host to prove it holds the page token before serving it. Default true. `false` is
   * for a host of the protocol that sends no proof (another SDK's): the page then sends no nonce
   * and serves at once, as before. Token connections only: a pairing code or a credential is
   * always proven.
   */
  hostProof?: boolean;
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
    /**
     * Give up on a tool that has not settled after this long (its signal aborts, the call is
     * answered `tool_execution_timeout`). Default 60 s; 0 = never. A host's own deadline for a
     * call (its `timeoutMs`) applies when it is smaller.
     */
    callTimeoutMs?: number;
  };
  /** The generic layer to serve; default: install the polyfill on this window. */
  tools?: Tools;
  /**
   * Tools to serve as they are, instead of a polyfill's (`tools` is then not read and nothing
   * is installed): for code that serves another context's tools, such as a browser extension
   * serving a tab's. The bridge checks the guard, the grant and (unless a tool `validates`
   * itself) its arguments, as for a page's own tools.
   */
  source?: ToolCatalogSource;
  /** Defaults to the global WebSocket. */
  WebSocket?: typeof WebSocket;
  /** How to reach the host; default: `WebSocket` (above) as a Connection. */
  connector?: Connector;
  /** Debounce for tool.catalog.changed. Default 100 ms. */
  catalogChangedDelayMs?: number;
  /**
   * The tab this connection speaks for, as `session.open` reports it: each field left out is
   * read from `location` and `document` as usual. For code that connects on a tab's behalf (a
   * browser extension's service worker), which must name the tab, not itself. It is a label for
   * people: the host shows it and never decides anything by it (the WebSocket's Origin header,
   * which the browser sets, decides whether the socket is accepted).
   */
  page?: { url?: string; title?: string; origin?: string };
}

/** What `ConnectOptions.source` gives: the tools now, and a signal when they change. */
export interface ToolCatalogSource {
  /** The tools to serve now; read again after each change (one read at a time). */
  read(): Promise<readonly BridgeTool[]>;
  /** Calls `listener` whenever the tools may have changed; returns an unsubscribe. */
  subscribe(listener: () => void): () => void;
}

export type SessionStatus = 'connecting' | 'open' | 'closed';

/** What the `paired` event carries: keep `credential` to reconnect this tab later. */
export interface PairedDetail {
  /** The host's address, without any secret. */
  address: string;
  /**
   * The credential's secret, derived by both sides from the code and the socket's nonces: pass
   * it as `connect({ credential })`. It never crosses the wire; keep it as you would a password.
   */
  credential: string;
  hostRun: string;
  /** The public id of the host's identity, as its welcome said (undefined: it said none). */
  hostId?: string | undefined;
}

/** Why the host ended this tab's pairing (`refused` event): no retry follows. */
export interface RefusedDetail {
  code: number;
  reason: string;
  revoked: boolean;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
