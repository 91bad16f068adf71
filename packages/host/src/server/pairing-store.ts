/**
 * Where a host keeps its pairings: the records a tab (or the extension) reconnects with. The
 * `Pairing` class (pairing.ts) decides who may pair and resume; a store only keeps records.
 * `MemoryPairingStore` keeps them for one host run; a file store keeps them across runs.
 */

/** A pairing not used for this long is forgotten: the tab needs a new link. */
export const PAIRING_IDLE_EXPIRY_MS = 30 * 24 * 60 * 60_000;

/** How a pairing was made: from a link a page opened, or an address pasted in the extension. */
export type PairingKind = 'link' | 'extension';

export interface PairingRecord {
  /** The public id a page names when it reconnects; `toolwire pairings` shows a prefix. */
  id: string;
  /** The credential's secret: the key of both sides' proofs. It never crosses the wire. */
  secret: string;
  /** The origin it is bound to: the page's, or `chrome-extension://ID`. */
  origin: string | null;
  kind: PairingKind;
  /** The guard the page last reported, as people read it (`read-only`, `up to write tools`). */
  guard?: string;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms: the last time a session was opened or closed with it. */
  lastSeen: number;
}

export interface PairingStore {
  get(id: string): PairingRecord | undefined;
  /** Adds or replaces the record with this id. */
  put(record: PairingRecord): void;
  /** Updates `lastSeen` (and `guard` when given) of a known record; unknown ids are ignored. */
  touch(id: string, update: { lastSeen: number; guard?: string }): void;
  /** Forgets one; false when it was not there. */
  delete(id: string): boolean;
  list(): PairingRecord[];
}

/** Pairings for one host run, in this process only. */
export class MemoryPairingStore implements PairingStore {
  #records = new Map<string, PairingRecord>();

  get(id: string): PairingRecord | undefined {
    return this.#records.get(id);
  }

  put(record: PairingRecord): void {
    this.#records.set(record.id, { ...record });
  }

  touch(id: string, update: { lastSeen: number; guard?: string }): void {
    const record = this.#records.get(id);
    if (!record) return;
    record.lastSeen = update.lastSeen;
    if (update.guard !== undefined) record.guard = update.guard;
  }

  delete(id: string): boolean {
    return this.#records.delete(id);
  }

  list(): PairingRecord[] {
    return [...this.#records.values()].map((record) => ({ ...record }));
  }
}
