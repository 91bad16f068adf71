/**
 * `createHost(options)`: the toolwire host, a WebSocket server pages connect to (docs/wire.md
 * "Transport and session", "Host behaviour", "Authorization").
 *
 * 1. Listens on 127.0.0.1 by default; the page connects to `ws://HOST:PORT/PATH?token=TOKEN`.
 *    Upgrades are checked before a socket exists: 404 wrong path, 401 wrong token, 403 origin
 *    outside the allow-list (see upgrade.ts). Plain HTTP gets 426 on the path, 404 elsewhere.
 * 2. The token is random (128 bits) per host run unless given, and never logged in full.
 * 3. Every accepted socket becomes a HostSession with a host-assigned id; the grant
 *    (`maxToolPolicy`, default `read`) caps what the host will call on any page.
 * 4. A page that opens a new session under the key of a session still open (a reconnect after
 *    a silent drop) replaces it: the old one is closed and its pending requests fail at once.
 * 5. Frames are limited to `maxMessageBytes` (default 64 MiB): a 1 MiB result is ordinary.
 * 6. Pairing: links carry single-use pairing codes (`pairingUrl`), spent for a credential bound
 *    to the page's origin and kept in the `pairingStore` (this process's memory by default);
 *    `revoke` ends a tab's pairing. The page token (`url`) is for pages whose own code connects,
 *    never for links. Every socket whose page sent a nonce proves, in its welcome, that this host
 *    holds the socket's secret, and sends no request before the page proved it too
 *    (docs/wire.md "The handshake").
 * 7. Every socket starts with `session.welcome` (the grant, the heartbeat); a page that stays
 *    silent for three heartbeat intervals is closed and its pending calls fail. Calls carry
 *    their deadline (`callTimeoutMs`, 60 s, unless the caller names one); queries wait
 *    `timeoutMs` (20 s).
 * 8. Refused upgrades are logged at most once per origin per interval, with a count
 *    (refusal-log.ts).
 * 9. With `mcp: { secret }`, the same port serves MCP over Streamable HTTP at `/mcp`
 *    (mcp/http.ts), bearer secret, Host and Origin checked; without it `/mcp` is 404 like any
 *    other path. `mcpUrl` says where.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { CodecLimits, ToolPolicy, TransportCloseInfo } from '@toolwire/protocol';
import {
  DEFAULT_TIMEOUT_MS,
  hostProof,
  pageProof,
  parsePolicy,
  SESSION_CLOSE,
} from '@toolwire/protocol';
import { WebSocketServer } from 'ws';
import type { CatalogChange } from '../catalog/cache.js';
import type { McpHttp } from '../mcp/http.js';
import { createMcpHttp, MCP_PATH } from '../mcp/http.js';
import { attachMcpWire, type McpWire } from '../mcp/http-wire.js';
import { Emitter } from '../shared/emitter.js';
import { hostError } from '../shared/errors.js';
import { createToken, redactToken, tokensEqual } from '../shared/token.js';
import { extensionOrigin } from './extension-origin.js';
import type { PairingCode } from './pairing.js';
import { nodeHmac, Pairing } from './pairing.js';
import type { PairingRecord, PairingStore } from './pairing-store.js';
import { RefusalLog } from './refusal-log.js';
import type { HostSessionOptions } from './session.js';
import { guardName, HostSession } from './session.js';
import { clipCloseReason, socketTransport } from './socket-transport.js';
import type { UpgradeGrant } from './upgrade.js';
import { authorizeUpgrade, normalizeOrigin } from './upgrade.js';

const DEFAULT_PATH = '/toolwire';
const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const DEFAULT_HEARTBEAT_INTERVAL_MS = 10_000;

export interface HostOptions {
  /** Interface to bind. Default 127.0.0.1: the host is for the developer's own machine. */
  hostname?: string;
  /** Default 0: any free port (read it back from `host.port`). */
  port?: number;
  /** Default `/toolwire`. */
  path?: string;
  /** Default: 128 random bits, new on every run. */
  token?: string;
  /**
   * Page origins allowed to connect (the token applies as well). Default: none, every upgrade
   * is refused with 403 until an origin is allowed. `['*']` allows any origin (and clients that
   * send none); the host logs a warning then.
   */
  origins?: readonly string[];
  /** The client grant: the highest policy the host will call. Default `read`. */
  maxToolPolicy?: ToolPolicy | 'delete';
  /** How long a catalog query (and a raw `session.request`) waits for its answer. Default 20 s. */
  timeoutMs?: number;
  /**
   * A tool call's or batch's deadline when its caller names none: it travels in the request
   * (the page gives up then), and the host fails the call with `tool_timeout` 2 s later.
   * Default 60 s.
   */
  callTimeoutMs?: number;
  /** Largest incoming frame. Default 64 MiB. */
  maxMessageBytes?: number;
  limits?: CodecLimits;
  /** Poll each page's catalog this often, for SDKs that do not push. Default 0 (off). */
  pollIntervalMs?: number;
  /** Log lines (tokens already redacted). Default: none. */
  log?: (line: string) => void;
  /** How long a pairing code stays good. Default 5 minutes. */
  pairingCodeTtlMs?: number;
  /**
   * Where pairings are kept. Default: a `MemoryPairingStore`, this process only (a tab paired
   * with this host cannot resume with the next one); `toolwire host` keeps them in a file.
   */
  pairingStore?: PairingStore;
  /**
   * The public id of this host's identity, told to pages in the welcome (`hostId`). Default: 128
   * random bits, new on every run.
   */
  hostId?: string;
  /**
   * Ports that forward to this host: an SSH tunnel (`ssh -L 9000:localhost:8765`), a
   * container's port map, a proxy. The handshake binds the port a page dialed; a page that
   * dialed one of these (its `Host` header names it) gets a proof bound to that port. Default
   * none: only the host's own port (a relay on another port then fails the page's check).
   */
  forwardedPorts?: readonly number[];
  /** Ping every page this often; three silent intervals close it. Default 10 s; 0 = off. */
  heartbeatIntervalMs?: number;
  /**
   * Whether pages gzip large responses, as each welcome asks (`compressPayloads`, docs/wire.md
   * "Large payloads"). `auto` (the default): not for a page whose socket comes from a loopback
   * address, where gzip costs more CPU than the bytes it saves; yes otherwise.
   */
  compress?: CompressMode;
  /**
   * Serve MCP over Streamable HTTP at `/mcp` on this port, for clients that carry
   * `Authorization: Bearer <secret>` (at least 16 characters; never the page token). Default:
   * off (`/mcp` is 404).
   */
  mcp?: { secret: string };
}

/** A pairing as the host shows it: its record without the secret, and its open sessions. */
export interface PairingView extends Omit<PairingRecord, 'secret'> {
  /** Ids of the sessions open with it now. */
  sessions: string[];
}

export type CompressMode = 'auto' | 'on' | 'off';

/** 127.0.0.0/8, ::1, and either as an IPv4-mapped IPv6 address. */
function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** What a page at `remoteAddress` is told: gzip large payloads or not. */
export function wantsCompression(mode: CompressMode, remoteAddress: string | undefined): boolean {
  return mode === 'on' || (mode === 'auto' && !isLoopbackAddress(remoteAddress));
}

export interface PairingLink extends PairingCode {
  /** The page's address with `#toolwire=<ws address ?pair=code>`. */
  url: string;
}

export interface HostEvents extends Record<string, unknown> {
  /** A page connected (its first catalog is on the way: await `session.ready`). */
  session: HostSession;
  sessionclose: { session: HostSession; info: TransportCloseInfo };
  catalog: { session: HostSession; change: CatalogChange };
}

export interface WaitForSessionOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Only a session that passes (e.g. by `info.page.url`). */
  filter?: (session: HostSession) => boolean;
}

export class Host extends Emitter<HostEvents> {
  readonly token: string;
  readonly path: string;
  readonly hostname: string;
  readonly grant: ToolPolicy;
  readonly origins: readonly string[];
  /** The public id of this host's identity (the welcome's `hostId`). */
  readonly hostId: string;
  #options: HostOptions;
  #server: Server;
  #wss: WebSocketServer;
  #sessions = new Map<string, HostSession>();
  #port = 0;
  #closing: Promise<void> | undefined;
  #pairing: Pairing;
  #refusals = new RefusalLog((line) => this.#log(line));
  #mcp: McpHttp | undefined;
  /** `/mcp` keep-alive connections read on their sockets (http-wire.ts), with `#mcp`. */
  #wire: McpWire | undefined;

  /** Use createHost(), which also starts listening. */
  constructor(options: HostOptions = {}) {
    super();
    this.#options = options;
    this.token = options.token ?? createToken();
    if (this.token === '') throw new TypeError('The host token must not be empty.');
    this.path = options.path ?? DEFAULT_PATH;
    if (!this.path.startsWith('/')) throw new TypeError('The host path must start with "/".');
    this.hostname = options.hostname ?? '127.0.0.1';
    if (options.compress !== undefined && !['auto', 'on', 'off'].includes(options.compress)) {
      throw new TypeError(`Unknown compress mode "${String(options.compress)}" (auto, on, off).`);
    }
    const grant = options.maxToolPolicy === undefined ? 'read' : parsePolicy(options.maxToolPolicy);
    if (!grant) throw new TypeError(`Unknown maxToolPolicy "${String(options.maxToolPolicy)}".`);
    this.grant = grant;
    this.origins = (options.origins ?? []).map(normalizeOrigin);
    this.hostId = options.hostId ?? createToken();
    if (options.mcp) {
      const { secret } = options.mcp;
      if (typeof secret !== 'string' || secret.length < 16) {
        throw new TypeError('The MCP secret needs at least 16 characters.');
      }
      if (tokensEqual(secret, this.token)) {
        throw new TypeError('The MCP endpoint needs a secret of its own, not the page token.');
      }
      if (this.path === MCP_PATH) {
        throw new TypeError(`The host path cannot be ${MCP_PATH} when it serves MCP there.`);
      }
    }
    this.#pairing = new Pairing({
      ...(options.pairingCodeTtlMs === undefined ? {} : { codeTtlMs: options.pairingCodeTtlMs }),
      store: options.pairingStore,
    });
    this.#wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      // Pages gzip large payloads themselves ($ansightEncoding); deflating again costs CPU twice.
      perMessageDeflate: false,
    });
    this.#server = createServer(this.#onHttp);
    this.#server.on('upgrade', this.#onUpgrade);
  }

  /** Starts listening; resolves once the port is bound. */
  async listen(): Promise<this> {
    if (this.#options.mcp && !this.#mcp) {
      this.#mcp = await createMcpHttp(this, {
        secret: this.#options.mcp.secret,
        port: () => this.#port,
        ...(this.#options.forwardedPorts ? { forwardedPorts: this.#options.forwardedPorts } : {}),
        maxBodyBytes: this.#options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
        log: (line) => this.#log(line),
      });
      const mcp = this.#mcp;
      this.#wire = attachMcpWire(this.#server, {
        take: (headers, body, sink) => mcp.take(headers, body, sink),
        maxBodyBytes: this.#options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
        log: (line) => this.#log(line),
      });
    }
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#options.port ?? 0, this.hostname, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    this.#port = (this.#server.address() as AddressInfo).port;
    this.#log(`listening on ${this.#displayUrl(`?token=${redactToken(this.token)}`)}`);
    if (this.origins.includes('*')) {
      this.#log('warning: any origin may connect (allow-list "*"); the token is the only check');
    } else if (this.origins.length === 0) {
      this.#log('no origin is allowed yet: every page will be refused (403)');
    }
    return this;
  }

  get port(): number {
    return this.#port;
  }

  /**
   * Where MCP clients reach this host over Streamable HTTP (`http://127.0.0.1:PORT/mcp`), or
   * undefined when it does not serve MCP (`createHost({ mcp })`).
   */
  get mcpUrl(): string | undefined {
    if (!this.#options.mcp) return undefined;
    const name =
      this.hostname === '::1' ? '[::1]' : this.hostname === 'localhost' ? 'localhost' : '127.0.0.1';
    return `http://${name}:${this.#port}${MCP_PATH}`;
  }

  /** Random per host run (a new process gets a new one). */
  get hostRun(): string {
    return this.#pairing.hostRun;
  }

  /** Where this host keeps its pairings (`createHost({ pairingStore })`). */
  get pairingStore(): PairingStore {
    return this.#pairing.store;
  }

  /**
   * The URL a page's own code connects to (`connect({url})`), the page token included: hand it
   * to the page author's code, never to a link or a log.
   */
  get url(): string {
    return this.#displayUrl(`?token=${encodeURIComponent(this.token)}`);
  }

  /** The WebSocket address without any secret (what a pairing prompt shows). */
  get address(): string {
    return this.#displayUrl('');
  }

  /**
   * A pairing link for `page`: its address with `#toolwire=<ws address ?pair=CODE>`. The code
   * is single use, expires after `ttlMs` (default `pairingCodeTtlMs`), and only a page of
   * `page`'s origin can redeem it. endpoint.iife.js on that page asks the person there first.
   */
  pairingLink(page: string, options: { ttlMs?: number } = {}): PairingLink {
    const url = new URL(page);
    if (url.origin === 'null') throw new TypeError(`"${page}" has no origin to pair with.`);
    const code = this.#pairing.createCode({ origin: url.origin, ...options, kind: 'link' });
    const fragment = new URLSearchParams(url.hash.slice(1));
    fragment.delete('toolwire');
    fragment.set('toolwire', this.#displayUrl(`?pair=${encodeURIComponent(code.code)}`));
    url.hash = fragment.toString();
    return { ...code, url: url.toString() };
  }

  /** `pairingLink(page).url`. */
  pairingUrl(page: string, options: { ttlMs?: number } = {}): string {
    return this.pairingLink(page, options).url;
  }

  /**
   * A pairing address for a browser extension that connects tabs on the user's click (the
   * toolwire extension's "Connect this tab"): the host's WebSocket address with `?pair=CODE`,
   * single use, bound to the extension's origin (`chrome-extension://<id>`, or the bare id).
   * The extension trades it for one credential and opens one session per tab it connects.
   */
  extensionPairing(extension: string, options: { ttlMs?: number } = {}): PairingLink {
    const origin = extensionOrigin(extension);
    const code = this.#pairing.createCode({ origin, ...options, kind: 'extension' });
    return { ...code, url: this.#displayUrl(`?pair=${encodeURIComponent(code.code)}`) };
  }

  /**
   * A code not bound to a page (for a page opened by other means): any origin the allow-list
   * accepts may redeem it, once.
   */
  createPairingCode(options: { ttlMs?: number } = {}): PairingCode {
    return this.#pairing.createCode({ ...options, kind: 'link' });
  }

  /**
   * Revokes the pairing of session `id` (exact id): its credential is forgotten and the session
   * closed with 4403, so the tab neither stays connected nor reconnects. Every other session
   * holding the same pairing (a duplicated tab, a window the page opened, the extension's other
   * tabs) is closed too: the pairing is what is revoked. False if no such session.
   */
  revoke(id: string): boolean {
    const session = this.#sessions.get(id);
    if (!session) return false;
    const pairingId = session.pairingId;
    if (pairingId) this.#pairing.revoke(pairingId);
    const holders = pairingId
      ? this.sessions.filter((other) => other.pairingId === pairingId)
      : [session];
    for (const holder of holders) {
      this.#log(`session ${holder.id.slice(0, 8)}: pairing revoked`);
      holder.close('revoked by the host', SESSION_CLOSE.revoked);
    }
    return true;
  }

  /** The kept pairings, oldest first, with the sessions open with each (no secrets). */
  pairings(): PairingView[] {
    return this.#pairing.store
      .list()
      .sort((a, b) => a.createdAt - b.createdAt)
      .map(({ secret: _secret, ...record }) => ({
        ...record,
        sessions: this.sessions
          .filter((session) => session.pairingId === record.id)
          .map((session) => session.id),
      }));
  }

  /**
   * Revokes the pairing with this exact id: forgotten (the store too), and every session open
   * with it closed with 4403. False if no such pairing.
   */
  revokePairing(id: string): boolean {
    const known = this.#pairing.revoke(id);
    const holders = this.sessions.filter((session) => session.pairingId === id);
    for (const holder of holders) {
      this.#log(`session ${holder.id.slice(0, 8)}: pairing revoked`);
      holder.close('revoked by the host', SESSION_CLOSE.revoked);
    }
    return known || holders.length > 0;
  }

  /** Revokes every pairing (and closes every session opened with one); how many were kept. */
  revokeAllPairings(): number {
    const records = this.#pairing.store.list();
    for (const record of records) this.#pairing.revoke(record.id);
    for (const session of this.sessions.filter((one) => one.pairingId !== undefined)) {
      this.#log(`session ${session.id.slice(0, 8)}: pairing revoked`);
      session.close('revoked by the host', SESSION_CLOSE.revoked);
    }
    return records.length;
  }

  /** Open sessions, oldest first. */
  get sessions(): readonly HostSession[] {
    return [...this.#sessions.values()];
  }

  session(id: string): HostSession | undefined {
    return this.#sessions.get(id);
  }

  /**
   * The newest open session (passing `filter`) whose first catalog has loaded, or the next one
   * to connect. Rejects with `session_not_connected` after `timeoutMs` (default 20 s).
   */
  waitForSession(options: WaitForSessionOptions = {}): Promise<HostSession> {
    const accept = (session: HostSession) => session.isOpen && (options.filter?.(session) ?? true);
    const existing = this.sessions.filter(accept).at(-1);
    if (existing) return existing.ready.then(() => existing);
    return new Promise((resolve, reject) => {
      const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const unsubscribe: (() => void)[] = [];
      const done = () => {
        clearTimeout(timer);
        for (const off of unsubscribe.splice(0)) off();
        options.signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        done();
        reject(options.signal?.reason);
      };
      const timer = setTimeout(() => {
        done();
        reject(hostError('session_not_connected', `No page connected within ${timeoutMs} ms.`));
      }, timeoutMs);
      // A filter may read session.open, which can come after the first catalog: check on both.
      const consider = (session: HostSession) => {
        void session.ready.then(() => {
          if (!accept(session)) return;
          done();
          resolve(session);
        });
      };
      const watch = (session: HostSession) => {
        consider(session);
        unsubscribe.push(session.on('open', () => consider(session)));
      };
      for (const session of this.sessions) watch(session);
      unsubscribe.push(this.on('session', watch));
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Closes every session (pending requests fail at once) and stops listening. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#mcp?.close();
      this.#wire?.close();
      for (const session of this.sessions) session.close('host shutting down', 1001);
      for (const socket of this.#wss.clients) socket.terminate();
      this.#wss.close();
      await new Promise<void>((resolve) => {
        this.#server.close(() => resolve());
        this.#server.closeAllConnections();
      });
      this.#log('closed');
    })();
    return this.#closing;
  }

  #displayUrl(query: string): string {
    const host = this.hostname.includes(':') ? `[${this.hostname}]` : this.hostname;
    return `ws://${host}:${this.#port}${this.path}${query}`;
  }

  #allows = (origin: string | null): boolean =>
    this.origins.includes('*') || (origin !== null && this.origins.includes(origin));

  #log(line: string): void {
    this.#options.log?.(line);
  }

  #onHttp = (request: IncomingMessage, response: ServerResponse): void => {
    const url = request.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (path === MCP_PATH && this.#mcp) {
      this.#mcp.handle(request, response);
      return;
    }
    response.writeHead(path === this.path ? 426 : 404, { 'Content-Type': 'text/plain' });
    response.end(path === this.path ? 'toolwire host: WebSocket only\n' : 'not found\n');
  };

  #onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const verdict = authorizeUpgrade(request, {
      path: this.path,
      token: this.token,
      origins: this.origins,
      redeem: (codeId, origin) => this.#pairing.redeem(codeId, origin, this.#allows),
      resume: (pairingId, origin) => this.#pairing.resume(pairingId, origin),
      delegate: (parentId, origin) => this.#pairing.delegate(parentId, origin),
    });
    if (!verdict.ok) {
      const from = request.socket.remoteAddress ?? '?';
      const origin = typeof request.headers.origin === 'string' ? request.headers.origin : null;
      this.#refusals.note(
        origin ?? from,
        `refused a connection from ${origin ?? `${from} (no origin)`}: ${verdict.status === 'close' ? verdict.closeCode : verdict.status} (${verdict.reason})`,
      );
      if (verdict.status === 'close') {
        // A page cannot read an HTTP status: it gets a socket closed with the reason instead.
        this.#wss.handleUpgrade(request, socket, head, (ws) => {
          ws.on('error', () => {});
          // The reason may quote the request's Origin header: clipped to fit, never a throw.
          ws.close(verdict.closeCode, clipCloseReason(verdict.reason));
        });
        return;
      }
      const text = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[verdict.status];
      socket.end(
        `HTTP/1.1 ${verdict.status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
      return;
    }
    this.#wss.handleUpgrade(request, socket, head, (ws) => {
      if (this.#closing) {
        ws.close(1001, 'host shutting down');
        return;
      }
      const id = randomUUID();
      const handshake = this.#handshake(verdict, request.headers.host);
      const session = new HostSession({
        id,
        transport: socketTransport(ws, {
          onError: (error) => this.#log(`session ${id.slice(0, 8)}: ${error.message}`),
        }),
        origin: verdict.origin,
        grant: this.grant,
        hostRun: this.#pairing.hostRun,
        heartbeatIntervalMs: this.#options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS,
        compressPayloads: wantsCompression(
          this.#options.compress ?? 'auto',
          request.socket.remoteAddress,
        ),
        ...handshake.options,
        hostId: this.hostId,
        ...((verdict.via === 'credential' || verdict.via === 'delegate') && verdict.pairingId
          ? { pairingId: verdict.pairingId }
          : {}),
        paired: verdict.via === 'pair',
        ...(verdict.via === 'delegate' ? { delegated: true } : {}),
        ...(this.#options.timeoutMs === undefined ? {} : { timeoutMs: this.#options.timeoutMs }),
        ...(this.#options.callTimeoutMs === undefined
          ? {}
          : { callTimeoutMs: this.#options.callTimeoutMs }),
        ...(this.#options.limits ? { limits: this.#options.limits } : {}),
        ...(this.#options.pollIntervalMs ? { pollIntervalMs: this.#options.pollIntervalMs } : {}),
      });
      this.#adopt(session, verdict, handshake.hostNonce);
    });
  };

  /**
   * The socket's side of the handshake (docs/wire.md "The handshake"): when the page sent a
   * nonce, the welcome's proof and the check of the page's, keyed by the socket's secret. A page
   * on the token path that sent none is served as before.
   */
  #handshake(
    grant: UpgradeGrant,
    hostHeader: string | undefined,
  ): {
    hostNonce?: string;
    options: Pick<HostSessionOptions, 'proof' | 'verifyPageProof'>;
  } {
    if (grant.pageNonce === undefined) return { options: {} };
    const key = grant.via === 'token' ? this.token : grant.key;
    const hostNonce = createToken();
    const bound = { pageNonce: grant.pageNonce, hostNonce, port: this.#boundPort(hostHeader) };
    const expected = pageProof(nodeHmac, key, bound);
    return {
      hostNonce,
      options: {
        proof: { nonce: hostNonce, mac: hostProof(nodeHmac, key, bound) },
        verifyPageProof: (proof) => proof !== undefined && tokensEqual(proof, expected),
      },
    };
  }

  /** The port the proofs bind: the one the page dialed if it forwards here, else our own. */
  #boundPort(hostHeader: string | undefined): number {
    if (!hostHeader || !this.#options.forwardedPorts?.length) return this.#port;
    let dialed: number;
    try {
      dialed = Number(new URL(`ws://${hostHeader}`).port || 80);
    } catch {
      return this.#port;
    }
    return this.#options.forwardedPorts.includes(dialed) ? dialed : this.#port;
  }

  #adopt(session: HostSession, grant: UpgradeGrant & { ok: true }, hostNonce?: string): void {
    const tag = session.id.slice(0, 8);
    this.#sessions.set(session.id, session);
    const how = session.paired ? ', pairing' : session.pairingId ? ', paired before' : '';
    this.#log(`session ${tag} connected from ${session.origin ?? '(no origin)'}${how}`);
    session.on('open', (info) => {
      // The page proved itself (the core reads no session.open before): a code's new pairing
      // is kept now, a resumed one is in use.
      const guard = info.guard ? guardName(info.guard) : undefined;
      if (grant.via === 'pair' && hostNonce !== undefined && session.pairingId === undefined) {
        session.pairingId = this.#pairing.keep({
          code: grant.key,
          kind: grant.kind,
          origin: grant.origin,
          pageNonce: grant.pageNonce,
          hostNonce,
          ...(guard === undefined ? {} : { guard }),
        });
        this.#log(`session ${tag}: paired (pairing ${session.pairingId.slice(0, 8)})`);
      } else if (session.pairingId) {
        this.#pairing.touch(session.pairingId, guard);
      }
      this.#log(
        `session ${tag}: ${info.sdk.name} ${info.sdk.version} on ${info.page.url || '(no url)'}` +
          (info.page.title ? ` "${info.page.title}"` : ''),
      );
      if (!info.key) return;
      // The same page again while its old socket still looks open.
      for (const other of this.#sessions.values()) {
        if (other !== session && other.info?.key === info.key) {
          this.#log(`session ${other.id.slice(0, 8)} replaced by ${tag}`);
          other.close('replaced by a new connection of the same page', SESSION_CLOSE.replaced);
        }
      }
    });
    session.on('catalog', (change) => {
      const count = session.tools().length;
      const total = session.catalog.totalCount;
      const cut = total > count ? ` (of ${total}: the page did not list the others)` : '';
      this.#log(`session ${tag}: catalog ${change}, ${count} tools${cut}`);
      this.emit('catalog', { session, change });
    });
    session.on('error', (error) =>
      this.#log(`session ${tag}: catalog refresh failed: ${error.message}`),
    );
    session.on('close', (info) => {
      this.#sessions.delete(session.id);
      // Not after a revocation: the pairing is gone, and stays gone.
      if (session.pairingId && info.code !== SESSION_CLOSE.revoked) {
        this.#pairing.touch(session.pairingId);
      }
      this.#log(
        `session ${tag} closed (${info.code ?? '-'}${info.reason ? ` ${info.reason}` : ''})`,
      );
      this.emit('sessionclose', { session, info });
    });
    this.emit('session', session);
  }
}

/** Creates a host and starts listening. */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  return new Host(options).listen();
}
