/**
 * Who may open a session (docs/wire.md "Transport and session"): the upgrade request is checked before
 * any socket exists, in this order:
 *
 * 1. a path other than the host's -> 404;
 * 2. a pairing code (`?pair-id=`, single use) or a credential (`?credential-id=`), each named by
 *    its public id with the page's nonce (docs/wire.md "The handshake") and bound to one origin
 *    by the host: refused ones get a socket that is closed at once with 4401 and the reason,
 *    because a page cannot read an HTTP status. The old forms that carried the secret itself
 *    (`?pair=`, `?credential=`) are refused the same way, saying the page's toolwire is too old;
 *    A delegate (`?delegate-of=`, the id of an extension's credential, with the nonce) is a
 *    page's socket opened by that extension's content script: its key is derived by the host
 *    from the extension's credential and this request's `Origin` (an http(s) page's), and it is
 *    refused the same way (4401);
 * 3. otherwise the host's page token (`?token=`, with an optional `&nonce=`): missing or wrong ->
 *    401;
 * 4. an `Origin` outside the allow-list -> 403. Default deny: an empty list refuses
 *    every origin. A request without `Origin` is refused too: browsers always send it, so only
 *    non-browser clients lack it, and a list says which pages may connect. The explicit entry
 *    `'*'` accepts any origin, or none (the token still applies).
 * More than one secret in one request is refused (401).
 */
import type { IncomingMessage } from 'node:http';
import { isNonce, SESSION_CLOSE } from '@toolwire/protocol';
import { tokensEqual } from '../shared/token.js';
import type { SecretVerdict } from './pairing.js';
import type { PairingKind } from './pairing-store.js';

export interface UpgradePolicy {
  path: string;
  /** The host's page token (`?token=`), for pages whose own code connects. */
  token: string;
  /**
   * Exact origins (`scheme://host[:port]`), or `'*'` for any. Undefined or empty = no origin
   * is accepted (default deny).
   */
  origins?: readonly string[] | undefined;
  /**
   * Spends the pairing code whose id is `codeId` (`?pair-id=`) for a page of `origin`: the secret
   * the socket's proofs are keyed by, or why not. The host keeps codes and credentials; this
   * module only routes to them.
   */
  redeem?: (codeId: string, origin: string | null) => SecretVerdict;
  /** Checks a credential by its id (`?credential-id=`) for a page of `origin`. */
  resume?: (pairingId: string, origin: string | null) => SecretVerdict;
  /** Checks a delegate of the extension credential `parentId` (`?delegate-of=`) for `origin`. */
  delegate?: (parentId: string, origin: string | null) => SecretVerdict;
}

/** What an accepted upgrade opens, and what the socket's proofs are keyed by. */
export type UpgradeGrant =
  | { via: 'token'; origin: string | null; pageNonce?: string }
  | {
      via: 'pair' | 'credential' | 'delegate';
      origin: string | null;
      pageNonce: string;
      /** The code, or the credential's secret. */
      key: string;
      kind: PairingKind;
      /** The credential's id (`via: 'credential'`; the parent's for `via: 'delegate'`). */
      pairingId?: string;
    };

export type UpgradeVerdict =
  | ({ ok: true } & UpgradeGrant)
  /** Refused before a socket exists: the HTTP status says why (browsers cannot read it). */
  | { ok: false; status: 401 | 403 | 404; reason: string }
  /**
   * A pairing code or credential that is not (or no longer) good: the socket is accepted only
   * to close it at once with `closeCode` and the reason, which a page can read and show.
   */
  | { ok: false; status: 'close'; closeCode: number; reason: string };

export function authorizeUpgrade(
  request: Pick<IncomingMessage, 'url' | 'headers'>,
  policy: UpgradePolicy,
): UpgradeVerdict {
  // The base only gives the request target (a path) something to resolve against.
  let url: URL;
  try {
    url = new URL(request.url ?? '/', 'http://host.invalid');
  } catch {
    return { ok: false, status: 404, reason: 'unreadable request target' };
  }
  if (url.pathname !== policy.path) return { ok: false, status: 404, reason: 'wrong path' };
  const header = request.headers.origin;
  const origin = typeof header === 'string' ? header : null;
  const query = url.searchParams;
  const token = query.get('token');
  const codeId = query.get('pair-id');
  const pairingId = query.get('credential-id');
  const parentId = query.get('delegate-of');
  const nonce = query.get('nonce');
  const named = [token, codeId, pairingId, parentId, query.get('pair'), query.get('credential')];
  if (named.filter((value) => value !== null).length > 1) {
    return { ok: false, status: 401, reason: 'more than one secret' };
  }
  const close = (reason: string): UpgradeVerdict => ({
    ok: false,
    status: 'close',
    closeCode: SESSION_CLOSE.pairingRefused,
    reason,
  });
  // A page that still sends its code or credential itself: whoever answered got it already.
  if (query.has('pair') || query.has('credential')) {
    return close(
      "this page's toolwire is too old for this host (it sends its secret); update it, then open a new link",
    );
  }
  // A pairing code, a credential or an extension's delegate is bound to an origin by the host:
  // it is the check (at most one of them, above).
  if (codeId !== null || pairingId !== null || parentId !== null) {
    if (!isNonce(nonce)) return close('the page sent no nonce for the handshake');
    const refused = { ok: false as const, reason: 'this host does not pair' };
    const via = parentId !== null ? 'delegate' : codeId !== null ? 'pair' : 'credential';
    const verdict =
      (via === 'delegate'
        ? policy.delegate?.(parentId as string, origin)
        : via === 'pair'
          ? policy.redeem?.(codeId as string, origin)
          : policy.resume?.(pairingId as string, origin)) ?? refused;
    if (!verdict.ok) return close(verdict.reason);
    // A delegate's pairing is its parent, the extension's credential.
    const kept = via === 'delegate' ? (parentId as string) : verdict.pairingId;
    return {
      ok: true,
      origin,
      via,
      pageNonce: nonce,
      key: verdict.key,
      kind: verdict.kind,
      ...(kept === undefined ? {} : { pairingId: kept }),
    };
  }
  if (token === null || !tokensEqual(token, policy.token)) {
    return { ok: false, status: 401, reason: token === null ? 'no token' : 'wrong token' };
  }
  if (nonce !== null && !isNonce(nonce)) {
    return { ok: false, status: 401, reason: 'unreadable nonce' };
  }
  const origins = policy.origins ?? [];
  if (!origins.includes('*') && (origin === null || !origins.includes(origin))) {
    return { ok: false, status: 403, reason: `origin ${origin ?? '(none)'} not allowed` };
  }
  return { ok: true, origin, via: 'token', ...(nonce === null ? {} : { pageNonce: nonce }) };
}

/** Normalizes an allow-list entry to the form browsers send (`new URL(x).origin`); `*` stays. */
export function normalizeOrigin(value: string): string {
  if (value === '*') return value;
  const origin = new URL(value).origin;
  if (origin === 'null') throw new TypeError(`"${value}" has no origin to allow.`);
  return origin;
}
