/**
 * `connect(options)`: the page as a remote-tool SDK endpoint (docs/wire.md "Transport and
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
 * 6. Pairing: a `?pair=` code in the URL (or `pairingCode`) is spent, on the first socket, for
 *    a credential both sides derive; every reconnect then uses the credential, never the spent
 *    code. Neither is ever sent: each socket names its secret by an id and a nonce, and serves
 *    nothing until the host's welcome proves it holds the secret (docs/wire.md "The
 *    handshake"; the page token too, unless `hostProof: false`). A welcome without that proof
 *    closes with 4010 and the page retries, keeping its pairing. A refused code or credential
 *    (4401) or a revocation (4403) ends the session with one console line saying why: no retry.
 * 7. The welcome's grant (`maxToolPolicy`) lowers what this page executes, checked at every call.
 *    `session.open` and each catalog push report the page's guard and the tools it hides.
 * 8. Heartbeats: pings are answered; a host silent for three of its heartbeat intervals is
 *    dropped and reconnected. A host's `session.cancel` aborts that request's tool; a request
 *    that asked for progress gets `session.progress` as its tool reports it.
 * 9. The connection is a Transport (connection.ts): the browser WebSocket by default
 *    (websocket-transport.ts), any `connector` otherwise.
 *
 * The rooms: session.ts (the Session, on @toolwire/protocol's PageSessionCore, which runs each
 * connection's session layer), options.ts, secret.ts, reconnect.ts (backoff), page-catalog.ts
 * (the page's tools), catalog-push.ts, request-peek.ts.
 */
import type { ConnectOptions } from './options.js';
import { Session } from './session.js';

export type { Connection, Connector } from './connection.js';
export type {
  ConnectOptions,
  PairedDetail,
  RefusedDetail,
  SessionStatus,
  ToolCatalogSource,
} from './options.js';
export { SDK_NAME, SDK_VERSION, Session } from './session.js';
export { webSocketConnector } from './websocket-transport.js';

/** Connects this page to a host; see ConnectOptions. */
export function connect(options: ConnectOptions): Session {
  if (!options || typeof options.url !== 'string') throw new TypeError('connect() needs {url}.');
  return new Session(options);
}
