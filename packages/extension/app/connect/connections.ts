/**
 * The background's connected tabs: at most one `TabLink` a tab, the extension's one pairing
 * with a host, and what the toolbar badge shows. No `chrome.*` here (background.ts wires it), so
 * it is tested in Node.
 *
 * - Connect: with a pasted pairing address, its single-use code; without one, the credential
 *   the last pairing derived (one pairing for the extension and a host, one session a tab).
 *   Connecting a connected tab again replaces its link (a new guard); a Disconnect, or another
 *   Connect, while a tab is still being read cancels that connect.
 * - A pasted address for a tab whose link is live is tried beside that link: the old link
 *   serves until the host welcomes the new one (`paired`), then closes. A new code the host
 *   refuses ends only the new attempt (`onNotice` says why): the old link stays, and so does
 *   the stored pairing. A refused code never deletes a pairing; a refused credential does.
 * - The credential is kept through `PairingStore` (the background uses `chrome.storage.session`:
 *   gone when the browser closes, never written to disk). A refused or revoked one is dropped.
 * - A tab that closes or navigates ends its link (the client says so; background.ts also ends
 *   it on `tabs.onRemoved` and on a new URL); an ended link clears the badge.
 */
import type { TabToolsClient } from '../../src/types.js';
import { readPairingAddress } from './pairing-address.js';
import type { DirectSessions, TabGuard, TabLinkOptions, TabLinkState } from './tab-link.js';
import { TabLink } from './tab-link.js';

/** The extension's pairing with a host: its address (no secret) and the credential. */
export interface StoredPairing {
  address: string;
  /**
   * The credential's secret, derived with the host when the code was spent. It never crosses
   * the wire: the extension names it by its id and proves it holds it (docs/wire.md "The
   * handshake").
   */
  credential: string;
  /** The public id of the host's identity, as its welcome said. */
  hostId?: string;
}

export interface PairingStore {
  load(): Promise<StoredPairing | undefined>;
  save(pairing: StoredPairing | undefined): Promise<void>;
}

export interface ConnectionsOptions {
  tabTools(tabId: number): TabToolsClient;
  store: PairingStore;
  /** Shows a tab's state on the toolbar button (undefined: not connected). */
  badge(tabId: number, state: TabLinkState | undefined): void;
  /** Called after any change of a tab's state. */
  onChange?(tabId: number): void;
  /** A new address tried beside a live link ended without pairing: why, for the panel. */
  onNotice?(tabId: number, notice: { code: string; message: string }): void;
  WebSocket?: typeof WebSocket;
  /** Forwarded to the endpoint (tests turn it off). */
  reconnect?: boolean;
  /** A tab's top document served from inside the tab (tab-link.ts); absent: by the worker. */
  direct?(tabId: number): DirectSessions;
}

export type ConnectAnswer =
  | { ok: true; state: TabLinkState }
  | { ok: false; code: string; message: string };

const CANCELLED: ConnectAnswer = {
  ok: false,
  code: 'connect_cancelled',
  message: 'Cancelled before it connected.',
};

export class TabConnections {
  #options: ConnectionsOptions;
  #links = new Map<number, TabLink>();
  /** A pasted address's link, tried beside the tab's live link until the host welcomes it. */
  #pending = new Map<number, TabLink>();
  #states = new Map<number, TabLinkState>();
  /** Each connect and cancel of a tab counts: only the latest attempt's link may stay. */
  #attempts = new Map<number, number>();

  constructor(options: ConnectionsOptions) {
    this.#options = options;
  }

  state(tabId: number): TabLinkState | undefined {
    return this.#states.get(tabId);
  }

  /** The host the extension is paired with, if any. */
  async pairedWith(): Promise<string | undefined> {
    return (await this.#options.store.load())?.address;
  }

  async connect(
    tabId: number,
    request: { guard: TabGuard; pairing?: string },
  ): Promise<ConnectAnswer> {
    const pasted = request.pairing?.trim() ? readPairingAddress(request.pairing) : undefined;
    if (pasted && !pasted.ok) return pasted;
    // From here a later Connect or a Disconnect of this tab cancels this one.
    const attempt = this.#bump(tabId);
    this.#cancelPending(tabId);
    const current = () => this.#attempts.get(tabId) === attempt;
    const stored = pasted ? undefined : await this.#options.store.load();
    if (!pasted && !stored) {
      return {
        ok: false,
        code: 'pairing_needed',
        message: 'Paste the address that toolwire pair --extension printed, then Connect.',
      };
    }
    if (!current()) return CANCELLED;
    const previous = this.#links.get(tabId);
    // A new code beside a live link: the old one serves until the new one is welcomed.
    const beside =
      pasted !== undefined && previous !== undefined && previous.state.status !== 'ended';
    if (!beside) {
      // The tab's current link, if any, ends; its last state is not shown (this attempt's is).
      this.#links.delete(tabId);
      previous?.close();
    }
    const address = pasted ? pasted.address : (stored as StoredPairing).address;
    /** The credential this link connects with: the kept one, or the one its code is traded for. */
    let mine = pasted ? undefined : (stored as StoredPairing).credential;
    const options: TabLinkOptions = {
      client: this.#options.tabTools(tabId),
      address,
      secret: pasted
        ? { pairingCode: pasted.code }
        : { credential: (stored as StoredPairing).credential },
      guard: request.guard,
      ...(this.#options.direct ? { direct: this.#options.direct(tabId) } : {}),
      ...(this.#options.WebSocket ? { WebSocket: this.#options.WebSocket } : {}),
      ...(this.#options.reconnect === undefined ? {} : { reconnect: this.#options.reconnect }),
      onPaired: (detail) => {
        mine = detail.credential;
        void this.#options.store.save({
          address,
          credential: detail.credential,
          ...(detail.hostId === undefined ? {} : { hostId: detail.hostId }),
        });
        if (link !== undefined) this.#promote(tabId, link);
      },
      // A refused credential is forgotten, if still the kept one; a refused code leaves the
      // kept pairing alone.
      onRefused: () => {
        if (mine !== undefined) void this.#forget(address, mine);
      },
      // While it opens, the attempt decides; once connected, being the tab's link does. A link
      // tried beside a live one shows nothing until it takes over; if it ends first, it says why.
      onState: (state) => {
        if (link !== undefined && this.#pending.get(tabId) === link) {
          if (state.status === 'ended') this.#dropPending(tabId, state);
          return;
        }
        if ((!beside && current()) || (link !== undefined && this.#links.get(tabId) === link))
          this.#update(tabId, state);
      },
    };
    let link: TabLink | undefined;
    try {
      link = await TabLink.open(options);
    } catch (error) {
      options.client.close();
      if (current()) this.#clear(tabId);
      const { code, message } = error as { code?: unknown; message?: unknown };
      return {
        ok: false,
        code: typeof code === 'string' ? code : 'tab_unreadable',
        message: String(message ?? error),
      };
    }
    if (!current()) {
      // Disconnected, closed or connected again while this tab was being read.
      link.close();
      return CANCELLED;
    }
    if (beside && this.#links.get(tabId) === previous && previous.state.status !== 'ended') {
      this.#pending.set(tabId, link);
      return { ok: true, state: previous.state };
    }
    this.#links.set(tabId, link);
    this.#update(tabId, link.state);
    return { ok: true, state: link.state };
  }

  /** Ends the tab's link, or cancels its connect in progress (Disconnect, or the tab went). */
  disconnect(tabId: number): void {
    this.#cancelPending(tabId);
    // A connect still reading the tab is cancelled too.
    this.#bump(tabId);
    const link = this.#links.get(tabId);
    if (link) {
      link.close();
      return;
    }
    if (this.#states.has(tabId)) this.#clear(tabId);
  }

  /** The tab closed: end its link and forget its state. */
  removed(tabId: number): void {
    this.disconnect(tabId);
    this.#states.delete(tabId);
    this.#attempts.delete(tabId);
  }

  /** The host welcomed `link`: it becomes the tab's link, and the one it was tried beside ends. */
  #promote(tabId: number, link: TabLink): void {
    if (this.#pending.get(tabId) !== link) return;
    this.#pending.delete(tabId);
    const old = this.#links.get(tabId);
    this.#links.set(tabId, link);
    old?.close();
    this.#update(tabId, link.state);
  }

  /** A link tried beside the tab's live one ended first: the live one stays; the panel hears why. */
  #dropPending(tabId: number, state: TabLinkState): void {
    this.#pending.delete(tabId);
    const error = state.error ?? { code: 'pairing_refused', message: 'The host refused it.' };
    if (error.code === 'disconnected') return; // cancelled here, not refused there
    this.#options.onNotice?.(tabId, {
      code: error.code,
      message: `The new address did not connect: ${error.message.replace(/\.?$/, '.')} This tab keeps its connection to ${this.#links.get(tabId)?.state.address ?? 'the host'}.`,
    });
  }

  #cancelPending(tabId: number): void {
    const pending = this.#pending.get(tabId);
    this.#pending.delete(tabId);
    pending?.close();
  }

  #bump(tabId: number): number {
    const attempt = (this.#attempts.get(tabId) ?? 0) + 1;
    this.#attempts.set(tabId, attempt);
    return attempt;
  }

  #update(tabId: number, state: TabLinkState): void {
    this.#states.set(tabId, state);
    if (state.status === 'ended') this.#links.delete(tabId);
    this.#options.badge(tabId, state.status === 'ended' ? undefined : state);
    this.#options.onChange?.(tabId);
  }

  #clear(tabId: number): void {
    this.#states.delete(tabId);
    this.#options.badge(tabId, undefined);
    this.#options.onChange?.(tabId);
  }

  async #forget(address: string, credential: string): Promise<void> {
    const stored = await this.#options.store.load();
    if (stored?.address === address && stored.credential === credential)
      await this.#options.store.save(undefined);
  }
}
