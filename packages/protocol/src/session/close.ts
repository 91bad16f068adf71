/**
 * Close codes toolwire uses on the page socket (docs/wire.md "Session messages"), all in the
 * application range: a page may only send 1000 and 3000-4999. The page stops reconnecting on
 * the two refusals (4401, 4403).
 */
export const SESSION_CLOSE = {
  /** The pairing code or credential was refused (unknown, spent, expired, another origin). */
  pairingRefused: 4401,
  /** The host revoked this tab's credential. */
  revoked: 4403,
  /** The other side stopped answering heartbeats. */
  silent: 4008,
  /** Another socket of the same page replaced this one. */
  replaced: 4000,
  /** An incoming frame exceeded the receiver's limit (1009's meaning). */
  tooBig: 4009,
  /**
   * The host did not prove it holds this tab's pairing (a welcome without the proof, or a wrong
   * one): whoever answers on the port is not the host the tab paired with. The page keeps its
   * pairing and tries again later.
   */
  hostUnproven: 4010,
} as const;
