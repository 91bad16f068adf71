/**
 * Who may open a session (docs/wire.md "Transport and session"): the upgrade request is checked before
 * any socket exists, in this order:
 *
 * 1. a path other than the host's -> 404;
 * 2. a pairing code (`?pair=`, single use) or a session credential (`?credential=`), each bound
 *    to one origin by the host (issue 13): refused ones get a socket that is closed at once
 *    with 4401 and the reason, because a page cannot read an HTTP status;
 * 3. otherwise the host's page token (`?token=`): missing or wrong -> 401;
 * 4. an `Origin` outside the allow-list -> 403. Default deny (issue 7): an empty list refuses
 *    every origin. A request without `Origin` is refused too: browsers always send it, so only
 *    non-browser clients lack it, and a list says which pages may connect. The explicit entry
 *    `'*'` accepts any origin, or none (the token still applies).
 * More than one secret in one request is refused (401).
 */
import type { IncomingMessage } from 'node:http';
import { SESSION_CLOSE } from '@toolwire/protocol';
import { tokensEqual } from '../shared/token.js';

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
   * Redeems a pairing code (`?pair=`) for a page of `origin`: the credential it now holds, or
   * why not. The host keeps codes and credentials; this module only routes to them.
   */
  redeem?: (code: string, origin: string | null) => SecretVerdict;
  /** Checks a session credential (`?credential=`) for a page of `origin`. */
  resume?: (credential: string, origin: string | null) => SecretVerdict;
}

export type SecretVerdict = { ok: true; credential: string } | { ok: false; reason: string };

export type UpgradeVerdict =
  | { ok: true; origin: string | null; via: 'token' | 'pair' | 'credential'; credential?: string }
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
  const token = url.searchParams.get('token');
  const code = url.searchParams.get('pair');
  const credential = url.searchParams.get('credential');
  if ([token, code, credential].filter((value) => value !== null).length > 1) {
    return { ok: false, status: 401, reason: 'more than one secret' };
  }
  // A pairing code or credential is bound to an origin by the host: it is the check.
  if (code !== null || credential !== null) {
    const verdict =
      code !== null
        ? (policy.redeem?.(code, origin) ?? { ok: false, reason: 'this host does not pair' })
        : (policy.resume?.(credential as string, origin) ?? {
            ok: false,
            reason: 'this host does not pair',
          });
    if (!verdict.ok) {
      return {
        ok: false,
        status: 'close',
        closeCode: SESSION_CLOSE.pairingRefused,
        reason: verdict.reason,
      };
    }
    return {
      ok: true,
      origin,
      via: code !== null ? 'pair' : 'credential',
      credential: verdict.credential,
    };
  }
  if (token === null || !tokensEqual(token, policy.token)) {
    return { ok: false, status: 401, reason: token === null ? 'no token' : 'wrong token' };
  }
  const origins = policy.origins ?? [];
  if (!origins.includes('*') && (origin === null || !origins.includes(origin))) {
    return { ok: false, status: 403, reason: `origin ${origin ?? '(none)'} not allowed` };
  }
  return { ok: true, origin, via: 'token' };
}

/** Normalizes an allow-list entry to the form browsers send (`new URL(x).origin`); `*` stays. */
export function normalizeOrigin(value: string): string {
  if (value === '*') return value;
  const origin = new URL(value).origin;
  if (origin === 'null') throw new TypeError(`"${value}" has no origin to allow.`);
  return origin;
}
