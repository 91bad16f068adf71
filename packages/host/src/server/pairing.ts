/**
 * Pairing codes and session credentials (issue 13, "Pairing").
 *
 * 1. A link carries a pairing code, never a long-lived secret: 128 random bits, single use,
 *    short-lived (5 minutes by default), optionally bound to the origin of the page it was made
 *    for.
 * 2. A page trades the code for a session credential when it connects. The credential is bound
 *    to the page's origin and to this host run (it lives in this process only), and is what the
 *    tab reconnects with after a reload. Revoking it ends that tab's pairing.
 * 3. Secrets are kept by their SHA-256, so a lookup never compares a secret byte by byte.
 * 4. A refused code or credential says why in words a person can act on (the page shows them).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createToken } from '../shared/token.js';
import type { SecretVerdict } from './upgrade.js';

const DEFAULT_PAIRING_CODE_TTL_MS = 5 * 60_000;
/** Spent codes are remembered this long, to say "already used" rather than "unknown". */
const SPENT_MEMORY_MS = 60 * 60_000;
const MAX_REMEMBERED = 4096;

interface CodeRecord {
  expiresAt: number;
  /** The one origin that may redeem it; null = any origin the host allows. */
  origin: string | null;
}

interface CredentialRecord {
  origin: string | null;
}

export interface PairingCode {
  code: string;
  expiresAt: number;
  origin: string | null;
}

const digest = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export class Pairing {
  /** Random per host run: credentials from another run are unknown here. */
  readonly hostRun = randomUUID();
  readonly codeTtlMs: number;
  #now: () => number;
  #codes = new Map<string, CodeRecord>();
  #spent = new Map<string, number>();
  #credentials = new Map<string, CredentialRecord>();

  constructor(options: { codeTtlMs?: number; now?: () => number } = {}) {
    this.codeTtlMs = options.codeTtlMs ?? DEFAULT_PAIRING_CODE_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** A new single-use code, valid for `ttlMs` (default `codeTtlMs`). */
  createCode(options: { origin?: string | null; ttlMs?: number } = {}): PairingCode {
    this.#sweep();
    const code = createToken();
    const record: CodeRecord = {
      expiresAt: this.#now() + (options.ttlMs ?? this.codeTtlMs),
      origin: options.origin ?? null,
    };
    this.#codes.set(digest(code), record);
    return { code, ...record };
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
    this.#credentials.set(digest(credential), { origin });
    return { ok: true, credential } as const;
  }

  /** Checks a credential a page reconnects with. */
  resume(credential: string, origin: string | null): SecretVerdict {
    const record = this.#credentials.get(digest(credential));
    if (!record || record.origin !== origin) {
      return refuse(
        "this tab's pairing is not known to the host (it restarted or revoked it); open a new pairing link",
      );
    }
    return { ok: true, credential };
  }

  /** Forgets a credential: the tab holding it can no longer reconnect. */
  revoke(credential: string): boolean {
    return this.#credentials.delete(digest(credential));
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
