/**
 * `pairFromLink(options)`: pairing this tab from a link the host printed, through
 * the endpoint's `connect`; the rules are in pairing-flow.ts.
 */
import type { Session } from './connect.js';
import { connect } from './connect.js';
import type { LinkPairingOptions } from './pairing-flow.js';
import { pairWith } from './pairing-flow.js';

export type { LinkPairingOptions } from './pairing-flow.js';
export { linkMayReach } from './pairing-flow.js';
export { PAIRING_STORAGE_KEY, parseHosts } from './pairing-link.js';

/**
 * Pairs this tab from its link, or reconnects it with the credential it kept. Resolves the
 * session, or undefined when there is nothing to pair with (no link, refused, dismissed).
 */
export function pairFromLink(options: LinkPairingOptions = {}): Promise<Session | undefined> {
  return pairWith(options, connect);
}
