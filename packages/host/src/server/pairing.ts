/**
 * Pairing codes and session credentials (issue 13, "Pairing").
 *
 * 1. A link carries a pairing code, never a long-lived secret: 128 random bits, single use,
 *    short-lived (5 minutes by default), optionally bound to the origin of the page it was made
 *    for.
 * 2. A page trades the code for a session credential when it connects. The credential is bound
 *    to the page's origin, kept in the host's PairingStore (for one run by default; across runs
 *    in the pairings file, pairing-file.ts), and is what the tab reconnects with after a reload
 *    or a host restart. Revoking it ends that tab's pairing.
 * 3. Codes are kept by their SHA-256; a credential's record by its public id (an HMAC of the
 *    secret), and the secret is compared by digest, so a lookup never compares a secret byte
 *    by byte.
 * 5. A pairing unused for PAIRING_IDLE_EXPIRY_MS (30 days) is refused and forgotten.
 * 4. A refused code or credential says why in words a person can act on (the page shows them).
 */
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createToken } from '../shared/token.js';
import type { PairingKind, PairingRecord, PairingStore } from './pairing-store.js';
import { MemoryPairingStore, PAIRING_IDLE_EXPIRY_MS } from './pairing-store.js';
import type { SecretVerdict } from './upgrade.js';

const DEFAULT_PAIRING_CODE_TTL_MS = 5 * 60_000;
/** Spent codes are remembered this long, to say "already used" rather than "unknown". */
const SPENT_MEMORY_MS = 60 * 60_000;
const MAX_REMEMBERED = 4096;

interface CodeRecord {
  expiresAt: number;
  /** The one origin that may redeem it; null = any origin the host allows. */
  origin: string | null;
  kind: PairingKind;
}

export interface PairingCode {
  code: string;
  expiresAt: number;
  origin: string | null;
}

const digest = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** A credential's public id: what a store keys it by, and `toolwire pairings` shows. */
export function pairingId(secret: string): string {
  return createHmac('sha256', secret).update('toolwire id').digest('base64url').slice(0, 22);
}

const sameSecret = (a: string, b: string): boolean =>
  timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());

export class Pairing {
  /** Random per host run: credentials from another run are unknown here. */
  readonly hostRun = randomUUID();
  readonly codeTtlMs: number;
  #now: () => number;
  #codes = new Map<string, CodeRecord>();
  #spent = new Map<string, number>();
  readonly store: PairingStore;

  constructor(options: { codeTtlMs?: number; now?: () => number; store?: PairingStore } = {}) {
    this.codeTtlMs = options.codeTtlMs ?? DEFAULT_PAIRING_CODE_TTL_MS;
    this.#now = options.now ?? Date.now;
    this.store = options.store ?? new MemoryPairingStore();
  }

  /** A new single-use code, valid for `ttlMs` (default `codeTtlMs`). */
  createCode(
    options: { origin?: string | null; ttlMs?: number; kind?: PairingKind } = {},
  ): PairingCode {
    this.#sweep();
    const code = createToken();
    const record: CodeRecord = {
      expiresAt: this.#now() + (options.ttlMs ?? this.codeTtlMs),
      origin: options.origin ?? null,
      kind: options.kind ?? 'link',
    };
    this.#codes.set(digest(code), record);
    return { code, expiresAt: record.expiresAt, origin: record.origin };
  }

  /**
   * Spends `code` for a page of `origin` and returns the credential it now holds. `allowed`
   * decides for codes not bound to an origin (the host's allow-list).
   */
  redeem(code: string, origin: string | null, allowed: (origin: string | null) => boolean) {
    const key = digest(code);
    const record = this.#codes.get(key);
    if (!record) {
      return refuse(
        this.#spent.has(key)
          ? 'this pairing code was already used; ask for a new link (toolwire pair)'
          : 'unknown pairing code (from another host run?); ask for a new link (toolwire pair)',
      );
    }
    if (record.expiresAt <= this.#now()) {
      this.#codes.delete(key);
      this.#remember(key);
      return refuse('this pairing code expired; ask for a new link (toolwire pair)');
    }
    // A page of another origin does not spend it: it cannot take the link from its owner.
    if (record.origin !== null ? origin !== record.origin : !allowed(origin)) {
      return refuse(`this pairing code is not for pages of ${origin ?? 'no origin'}`);
    }
    this.#codes.delete(key);
    this.#remember(key);
    const credential = createToken();
    const now = this.#now();
    const pairing: PairingRecord = {
      id: pairingId(credential),
      secret: credential,
      origin,
      kind: record.kind,
      createdAt: now,
      lastSeen: now,
    };
    this.store.put(pairing);
    return { ok: true, credential } as const;
  }

  /** Checks a credential a page reconnects with. */
  resume(credential: string, origin: string | null): SecretVerdict {
    const id = pairingId(credential);
    const record = this.store.get(id);
    if (!record || !sameSecret(record.secret, credential) || record.origin !== origin) {
      return refuse(
        "this tab's pairing is not known to the host (revoked, or made by another host); open a new pairing link",
      );
    }
    if (record.lastSeen + PAIRING_IDLE_EXPIRY_MS <= this.#now()) {
      this.store.delete(id);
      return refuse('this pairing expired: unused for 30 days; open a new link');
    }
    return { ok: true, credential };
  }

  /** Notes that a session with this credential opened or closed (and the page's guard). */
  seen(credential: string, guard?: string): void {
    this.store.touch(pairingId(credential), {
      lastSeen: this.#now(),
      ...(guard === undefined ? {} : { guard }),
    });
  }

  /** Forgets a credential: the tab holding it can no longer reconnect. */
  revoke(credential: string): boolean {
    return this.store.delete(pairingId(credential));
  }

  #remember(key: string): void {
    this.#spent.set(key, this.#now());
    if (this.#spent.size > MAX_REMEMBERED) this.#sweep();
  }

  #sweep(): void {
    const now = this.#now();
    for (const [key, record] of this.#codes) if (record.expiresAt <= now) this.#codes.delete(key);
    for (const [key, at] of this.#spent) if (at + SPENT_MEMORY_MS <= now) this.#spent.delete(key);
    // A flood of codes or spent entries cannot grow without bound.
    for (const map of [this.#codes, this.#spent] as Map<string, unknown>[]) {
      while (map.size > MAX_REMEMBERED) map.delete(map.keys().next().value as string);
    }
  }
}

function refuse(reason: string): SecretVerdict {
  return { ok: false, reason };
}
