/**
 * One tab connected to a host: the endpoint's `connect()` run in the extension's background on
 * the tab's behalf, serving `tabCatalog(client)`, with the guard the person picked.
 *
 * 1. It first asks the tab for its tools: a tab without a relay (opened before the extension,
 *    or not a web page) is refused with the client's code (`no_relay`), nothing opens.
 * 2. The socket carries the extension's origin; the first tab pairs with the single-use code,
 *    the host answers a credential (`onPaired`), and later tabs connect with it: one session a
 *    tab, one pairing for the extension and this host run.
 * 3. It ends, once, when the tab closes or navigates (the client's `onGone`), when the host
 *    refuses or revokes the pairing (no retry: `onRefused`), or on `close()`. Ending closes the
 *    session, so the host fails the tab's pending calls at once (`tool_transport_closed`); a
 *    call the tab had in hand fails with the client's `tab_gone`.
 * 4. A dropped socket is retried with the endpoint's backoff, with the credential.
 * 5. Each frame origin of the tab is its own host session: the top document's origin is the
 *    main one (above), and every other origin among the tab's tools (a frame's) gets a session
 *    with the same credential and guard, labelled with that origin, serving only that origin's
 *    tools. They open once the credential is known (after the code is spent), and close when
 *    that origin has no tools left (the frame navigated or was removed) or the link ends.
 */
import type { PairedDetail, RefusedDetail, Session } from '@toolwire/endpoint';
import { connect } from '@toolwire/endpoint';
import type { GuardPreset } from '@toolwire/protocol';
import { delegateSecret, SESSION_CLOSE, secretId } from '@toolwire/protocol';
import type { TabGoneReason, TabIdentity, TabTool, TabToolsClient } from '../../src/types.js';
import { tabCatalog } from './tab-catalog.js';
import type { TabSessionAnswer, TabSessionStart } from './tab-session.js';

/** The guards a person can pick for a tab (docs/permissions.md "The page's guard"). */
export type TabGuard = Extract<GuardPreset, 'read-only' | 'read-write' | 'full-access'>;
export const TAB_GUARDS: readonly TabGuard[] = ['read-only', 'read-write', 'full-access'];

type TabLinkStatus = 'connecting' | 'connected' | 'ended';

/**
 * Who serves the tab's top document to the host: `direct`, the tab's own session inside it (a
 * delegate of the extension's pairing); `worker`, this service worker on the tab's behalf.
 */
type TabLinkPath = 'direct' | 'worker';

/** Runs a tab's top-origin session inside the tab itself (tab-session.ts). */
export interface DirectSessions {
  /** Settles once the host welcomed the tab's socket, or it ended before that. */
  start(request: TabSessionStart): Promise<TabSessionAnswer>;
  stop(): void;
  /** Hears that the tab's welcomed session ended (revoked, refused). Returns an unsubscribe. */
  onEnded(listener: (error: { code: string; message: string }) => void): () => void;
}

export interface TabLinkState {
  status: TabLinkStatus;
  tab: TabIdentity;
  guard: TabGuard;
  /** The host's address, without any secret. */
  address: string;
  /** Why it ended (or is retrying): a code and the words to show. */
  error?: { code: string; message: string };
  /** Who serves the top document, once known. */
  path?: TabLinkPath;
}

export interface TabLinkOptions {
  client: TabToolsClient;
  /** The host's WebSocket address, without any secret. */
  address: string;
  /** A single-use pairing code, or the credential an earlier pairing gave. */
  secret: { pairingCode: string } | { credential: string };
  guard: TabGuard;
  /** Default: the global WebSocket. */
  WebSocket?: typeof WebSocket;
  /** The endpoint's reconnect setting. Default on. */
  reconnect?: boolean;
  /** The host gave a credential for the code: keep it for the next tabs. */
  onPaired?: (detail: PairedDetail) => void;
  /** The host refused or revoked the pairing: forget the credential. */
  onRefused?: (detail: RefusedDetail) => void;
  /**
   * Serve the top document from inside the tab once the extension's credential is known (with a
   * pairing code: after it is spent). Absent, or when the tab's socket does not get in, this
   * worker serves it.
   */
  direct?: DirectSessions;
  onState?: (state: TabLinkState) => void;
}

const GONE: Record<TabGoneReason, string> = {
  closed: 'The tab closed.',
  navigated: 'The tab navigated to another page.',
  disconnected: 'Disconnected.',
};

export class TabLink {
  #options: TabLinkOptions;
  /** The worker's session for the top document (absent while, or once, the tab serves it). */
  #session: Session | undefined;
  #sessionStop: (() => void)[] = [];
  #state: TabLinkState;
  #stop: (() => void)[] = [];
  /** The sessions of the tab's frame origins (not the top's), by origin. */
  #frameSessions = new Map<string, Session>();
  /** The credential the frame sessions connect with, once known. */
  #credential: string | undefined;
  #tools: TabTool[] = [];

  private constructor(options: TabLinkOptions, tab: TabIdentity) {
    this.#options = options;
    if ('credential' in options.secret) this.#credential = options.secret.credential;
    this.#state = { status: 'connecting', tab, guard: options.guard, address: options.address };
    const { client } = options;
    this.#stop.push(
      client.onGone((reason) => this.#end({ code: 'tab_gone', message: GONE[reason] })),
      client.onChange((tools) => this.#syncFrames(tools)),
    );
  }

  /** The top document: from inside the tab when it can, else by this worker. */
  #begin(): void {
    const { secret, direct } = this.#options;
    if (direct && 'credential' in secret) void this.#tryDirect(secret.credential);
    else this.#openWorker();
  }

  /** Asks the tab to serve itself with a delegate; this worker serves it if that fails. */
  async #tryDirect(credential: string): Promise<void> {
    const direct = this.#options.direct as DirectSessions;
    const { tab } = this.#state;
    let answer: TabSessionAnswer;
    try {
      answer = await direct.start({
        address: this.#options.address,
        delegate: {
          of: await secretId(subtleHmac, credential),
          secret: await delegateSecret(subtleHmac, credential, tab.origin),
        },
        guard: this.#options.guard,
        tab,
      });
    } catch (error) {
      answer = { ok: false, code: 'direct_unavailable', message: String(error) };
    }
    if (this.#state.status === 'ended') {
      if (answer.ok) direct.stop();
      return;
    }
    if (!answer.ok) {
      // Not served from inside the tab (its socket refused or failed): this worker serves it.
      if (!this.#session) this.#openWorker();
      return;
    }
    // The tab serves itself: the worker's session for it (a code's) ends without ending the link.
    this.#closeWorker();
    this.#stop.push(
      direct.onEnded((error) => {
        if (error.code === 'pairing_refused' || error.code === 'pairing_revoked')
          this.#options.onRefused?.({
            code:
              error.code === 'pairing_revoked'
                ? SESSION_CLOSE.revoked
                : SESSION_CLOSE.pairingRefused,
            reason: error.message,
            revoked: error.code === 'pairing_revoked',
          });
        this.#end(error);
      }),
      () => direct.stop(),
    );
    this.#set({ status: 'connected', error: undefined, path: 'direct' });
  }

  /** This worker's session for the top document, with the code or the credential. */
  #openWorker(): void {
    const options = this.#options;
    const tab = this.#state.tab;
    const secret =
      this.#credential !== undefined ? { credential: this.#credential } : options.secret;
    const session = connect({
      url: options.address,
      ...('pairingCode' in secret
        ? { pairingCode: secret.pairingCode }
        : { credential: secret.credential }),
      guard: options.guard,
      // The host shows the tab, not the extension's service worker (labels, never checks).
      page: { url: tab.url, title: tab.title, origin: tab.origin },
      builtins: false,
      source: tabCatalog(options.client, tab.origin),
      reconnect: options.reconnect ?? true,
      ...(options.WebSocket ? { WebSocket: options.WebSocket } : {}),
    });
    this.#session = session;
    this.#set({ path: 'worker' });
    const on = (type: string, listener: (event: Event) => void) => {
      session.addEventListener(type, listener);
      this.#sessionStop.push(() => session.removeEventListener(type, listener));
    };
    on('statuschange', () => {
      if (this.#state.status === 'ended') return;
      if (session.status === 'open') this.#set({ status: 'connected', error: undefined });
      else if (session.status === 'connecting') this.#set({ status: 'connecting' });
    });
    on('close', (event) => {
      const { code, reason, willRetry } = (event as CustomEvent).detail;
      // A refused or revoked pairing: the `refused` event that follows ends the link.
      if (code === SESSION_CLOSE.pairingRefused || code === SESSION_CLOSE.revoked) return;
      const error = { code: 'host_connection_closed', message: closeText(code, reason) };
      if (willRetry) this.#set({ error });
      else this.#end(error);
    });
    on('paired', (event) => {
      const detail = (event as CustomEvent<PairedDetail>).detail;
      this.#credential = detail.credential;
      options.onPaired?.(detail);
      this.#syncFrames(this.#tools);
      // The code is spent: from now on the tab can serve itself.
      if (options.direct) void this.#tryDirect(detail.credential);
    });
    on('refused', (event) => {
      const detail = (event as CustomEvent<RefusedDetail>).detail;
      options.onRefused?.(detail);
      this.#end({
        code: detail.revoked ? 'pairing_revoked' : 'pairing_refused',
        message: detail.reason || 'The host refused the pairing.',
      });
    });
  }

  #closeWorker(): void {
    for (const stop of this.#sessionStop.splice(0)) stop();
    this.#session?.close();
    this.#session = undefined;
  }

  /** One session per frame origin among `tools`: opened for a new origin, closed for a gone one. */
  #syncFrames(tools: TabTool[]): void {
    if (this.#state.status === 'ended') return;
    this.#tools = tools;
    const top = this.#state.tab.origin;
    const origins = new Set(
      tools
        .filter((tool) => tool.agentExposed !== false && tool.origin !== top)
        .map((tool) => tool.origin),
    );
    for (const [origin, session] of this.#frameSessions) {
      if (origins.has(origin)) continue;
      this.#frameSessions.delete(origin);
      session.close();
    }
    // A pairing code is spent by the top's session; the frames follow with its credential.
    const credential = this.#credential;
    if (credential === undefined) return;
    const options = this.#options;
    for (const origin of origins) {
      if (this.#frameSessions.has(origin)) continue;
      this.#frameSessions.set(
        origin,
        connect({
          url: options.address,
          credential,
          guard: options.guard,
          // The frame's origin labels the session (the host, `toolwire tools` and MCP show it).
          page: { url: origin, title: this.#state.tab.title, origin },
          builtins: false,
          source: tabCatalog(options.client, origin),
          reconnect: options.reconnect ?? true,
          ...(options.WebSocket ? { WebSocket: options.WebSocket } : {}),
        }),
      );
    }
  }

  /**
   * Connects `options.client`'s tab. Rejects with the client's coded error when the tab has no
   * tools to read (no relay, or the tab already went).
   */
  static async open(options: TabLinkOptions): Promise<TabLink> {
    const tools = await options.client.list();
    const link = new TabLink(options, options.client.tab);
    options.onState?.(link.state);
    link.#begin();
    link.#syncFrames(tools);
    return link;
  }

  get state(): TabLinkState {
    return { ...this.#state };
  }

  /** Disconnects the tab (the person's Disconnect). */
  close(): void {
    this.#end({ code: 'disconnected', message: GONE.disconnected });
  }

  #set(change: Partial<TabLinkState>): void {
    const next = { ...this.#state, ...change };
    if (next.error === undefined) delete next.error;
    this.#state = next;
    this.#options.onState?.(this.state);
  }

  #end(error: { code: string; message: string }): void {
    if (this.#state.status === 'ended') return;
    this.#set({ status: 'ended', error });
    for (const stop of this.#stop.splice(0)) stop();
    this.#closeWorker();
    for (const session of this.#frameSessions.values()) session.close();
    this.#frameSessions.clear();
    this.#options.client.close();
  }
}

/** HMAC-SHA-256 with the platform's `crypto.subtle` (the worker's, or Node's in tests). */
async function subtleHmac(key: string, message: string): Promise<Uint8Array> {
  const encoder = new TextEncoder();
  const imported = await crypto.subtle.importKey(
    'raw',
    encoder.encode(key),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(await crypto.subtle.sign('HMAC', imported, encoder.encode(message)));
}

function closeText(code: number, reason: string): string {
  return `The host connection closed (${code}${reason ? `: ${reason}` : ''}).`;
}
