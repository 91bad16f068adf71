/**
 * Who may open a session (WIRE "Transport and session"): the upgrade request is checked before
 * any socket exists, in this order:
 *
 * 1. a path other than the host's -> 404;
 * 2. a `token` query parameter that does not match (or is missing) -> 401;
 * 3. an `Origin` outside the allow-list -> 403. Default deny (issue 7): an empty list refuses
 *    every origin. A request without `Origin` is refused too: browsers always send it, so only
 *    non-browser clients lack it, and a list says which pages may connect. The explicit entry
 *    `'*'` accepts any origin, or none (the token still applies).
 */
import type { IncomingMessage } from 'node:http';
import { tokensEqual } from './token.js';

export interface UpgradePolicy {
  path: string;
  token: string;
  /**
   * Exact origins (`scheme://host[:port]`), or `'*'` for any. Undefined or empty = no origin
   * is accepted (default deny).
   */
  origins?: readonly string[] | undefined;
}

export type UpgradeVerdict =
  | { ok: true; origin: string | null }
  | { ok: false; status: 401 | 403 | 404; reason: string };

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
  const token = url.searchParams.get('token');
  if (token === null || !tokensEqual(token, policy.token)) {
    return { ok: false, status: 401, reason: token === null ? 'no token' : 'wrong token' };
  }
  const header = request.headers.origin;
  const origin = typeof header === 'string' ? header : null;
  const origins = policy.origins ?? [];
  if (!origins.includes('*') && (origin === null || !origins.includes(origin))) {
    return { ok: false, status: 403, reason: `origin ${origin ?? '(none)'} not allowed` };
  }
  return { ok: true, origin };
}

/** Normalizes an allow-list entry to the form browsers send (`new URL(x).origin`); `*` stays. */
export function normalizeOrigin(value: string): string {
  if (value === '*') return value;
  const origin = new URL(value).origin;
  if (origin === 'null') throw new TypeError(`"${value}" has no origin to allow.`);
  return origin;
}
