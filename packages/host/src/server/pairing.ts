/**
 * Pairing codes and credentials (docs/permissions.md "Pairing and credentials", docs/wire.md
 * "The handshake").
 *
 * 1. A link carries a pairing code, never a long-lived secret: 128 random bits, single use,
 *    short-lived (5 minutes by default), optionally bound to the origin of the page it was made
 *    for. The page names it by its public id (`secretId`); the host keeps the code itself in
 *    memory, for its few minutes, because both proofs of the handshake are keyed by it.
 * 2. The socket that spends a code derives, on both sides, a credential's secret from the code
 *    and the socket's two nonces. The host keeps it (`keep`) in its `PairingStore` only once the
 *    page proved it holds the code; it is bound to the page's origin, and the tab reconnects with
 *    its id. A pairing unused for 30 days expires.
 * 3. A delegate (`?delegate-of=`): the tab side of an extension's pairing. The extension derives,
 *    for a page origin O, `delegateSecret(C, O)` from its credential's secret C, and its content
 *    script dials from that page with the parent credential's id. The host derives the same key
 *    from the kept parent and the socket's `Origin` header: nothing is stored for it, it is good
 *    only for sockets from O, and revoking (or expiry of) the extension's pairing ends it.
 * 4. A refused code or credential says why in words a person can act on (the page shows them).
 */
import { createHmac, randomUUID } from 'node:crypto';
import { credentialSecret, delegateSecret, secretId } from '@toolwire/protocol';
import { createToken } from '../shared/token.js';
import type { PairingKind, PairingStore } from './pairing-store.js';
import { MemoryPairingStore, PAIRING_IDLE_EXPIRY_MS } from './pairing-store.js';

const DEFAULT_PAIRING_CODE_TTL_MS = 5 * 60_000;
/** Spent codes are remembered this long, to say "already used" rather than "unknown". */
const SPENT_MEMORY_MS = 60 * 60_000;
const MAX_REMEMBERED = 4096;

/** HMAC-SHA-256 for the handshake's proofs (proof.ts in @toolwire/protocol), in this process. */
export const nodeHmac = (key: string, message: string): Uint8Array =>
  createHmac('sha256', key).update(message).digest();

interface CodeRecord {
  /** The code itself: the key of the proofs on the socket that spends it. */
  code: string;
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

/** What a good code or credential id opens: the secret both proofs are keyed by. */
export type SecretVerdict =
  | {
      ok: true;
      /** The proofs' key: the code, or the credential's secret. */
      key: string;
      kind: PairingKind;
      /** The credential's id (a resumed pairing); absent for a code. */
      pairingId?: string;
    }
  | { ok: false; reason: string };

export class Pairing {
  /** Random per host run (told to pages in the welcome; it decides nothing). */
  readonly hostRun = randomUUID();
  readonly codeTtlMs: number;
  readonly store: PairingStore;
  #now: () => number;
  #codes = new Map<string, CodeRecord>();
  #spent = new Map<string, number>();

  constructor(
    options: { codeTtlMs?: number; now?: () => number; store?: PairingStore | undefined } = {},
  ) {
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
      code,
      expiresAt: this.#now() + (options.ttlMs ?? this.codeTtlMs),
      origin: options.origin ?? null,
      kind: options.kind ?? 'link',
    };
    this.#codes.set(secretId(nodeHmac, code), record);
    return { code, expiresAt: record.expiresAt, origin: record.origin };
  }

  /**
   * Spends the code whose id is `codeId` for a page of `origin`: its secret keys the socket's
   * proofs. `allowed` decides for codes not bound to an origin (the host's allow-list).
   */
  redeem(
    codeId: string,
    origin: string | null,
    allowed: (origin: string | null) => boolean,
  ): SecretVerdict {
    const record = this.#codes.get(codeId);
    if (!record) {
      return refuse(
        this.#spent.has(codeId)
          ? 'this pairing code was already used; ask for a new link (toolwire pair)'
          : 'unknown pairing code (from another host run?); ask for a new link (toolwire pair)',
      );
    }
    if (record.expiresAt <= this.#now()) {
      this.#codes.delete(codeId);
      this.#remember(codeId);
      return refuse('this pairing code expired; ask for a new link (toolwire pair)');
    }
    // A page of another origin does not spend it: it cannot take the link from its owner.
    if (record.origin !== null ? origin !== record.origin : !allowed(origin)) {
      return refuse(`this pairing code is not for pages of ${origin ?? 'no origin'}`);
    }
    this.#codes.delete(codeId);
    this.#remember(codeId);
    return { ok: true, key: record.code, kind: record.kind };
  }

  /** Checks the credential id a page reconnects with, for a page of `origin`. */
  resume(pairingId: string, origin: string | null): SecretVerdict {
    const record = this.store.get(pairingId);
    if (!record || record.origin !== origin) {
      return refuse(
        "this tab's pairing is not known to the host (revoked, or made with another host or run); open a new pairing link",
      );
    }
    if (record.lastSeen + PAIRING_IDLE_EXPIRY_MS <= this.#now()) {
      this.store.delete(pairingId);
      return refuse('this pairing expired: unused for 30 days; open a new link');
    }
    return { ok: true, key: record.secret, kind: record.kind, pairingId };
  }

  /**
   * Checks a delegate (header 3): `parentId` names an extension's credential, and `origin` (the
   * socket's `Origin` header) must be a web page's (http or https), never the extension's own.
   * The key is derived here from the parent's secret and that origin.
   */
  delegate(parentId: string, origin: string | null): SecretVerdict {
    if (!isWebOrigin(origin)) {
      return refuse(`a delegated credential is for web pages only, not ${origin ?? 'no origin'}`);
    }
    const record = this.store.get(parentId);
    if (record?.kind !== 'extension' || record.origin === origin) {
      return refuse(
        "this tab's extension pairing is not known to the host (revoked, or made with another host or run); pair the extension again",
      );
    }
    if (record.lastSeen + PAIRING_IDLE_EXPIRY_MS <= this.#now()) {
      this.store.delete(parentId);
      return refuse("the extension's pairing expired: unused for 30 days; pair it again");
    }
    return {
      ok: true,
      key: delegateSecret(nodeHmac, record.secret, origin),
      kind: 'extension',
      pairingId: parentId,
    };
  }

  /**
   * Keeps the credential a code was spent for on one socket, once the page proved it holds the
   * code: derived from the code and the socket's nonces, as the page derives it. Returns its id.
   */
  keep(spent: {
    code: string;
    kind: PairingKind;
    origin: string | null;
    pageNonce: string;
    hostNonce: string;
    guard?: string;
  }): string {
    const secret = credentialSecret(nodeHmac, spent.code, spent);
    const id = secretId(nodeHmac, secret);
    const now = this.#now();
    this.store.put({
      id,
      secret,
      origin: spent.origin,
      kind: spent.kind,
      ...(spent.guard === undefined ? {} : { guard: spent.guard }),
      createdAt: now,
      lastSeen: now,
    });
    return id;
  }

  /** A session with pairing `id` opened or closed: it is in use. */
  touch(id: string, guard?: string): void {
    this.store.touch(id, { lastSeen: this.#now(), ...(guard === undefined ? {} : { guard }) });
  }

  /** Forgets a pairing: the tab holding it can no longer reconnect. */
  revoke(id: string): boolean {
    return this.store.delete(id);
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

/** An origin as browsers send it for an http(s) page: `scheme://host[:port]`, nothing more. */
function isWebOrigin(origin: string | null): origin is string {
  if (origin === null) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin;
  } catch {
    return false;
  }
}

function refuse(reason: string): SecretVerdict {
  return { ok: false, reason };
}
