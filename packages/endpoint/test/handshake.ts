/**
 * The host's side of the handshake (docs/wire.md "The handshake") for endpoint unit tests whose
 * host is a stand-in: the welcome's proof for the nonce the page dialed with, the page proof it
 * must answer, and the credential both sides derive, all with node:crypto.
 */
import { createHmac } from 'node:crypto';
import type { SessionWelcomePayload } from '@toolwire/protocol';
import {
  createNonce,
  credentialSecret,
  dialedPort,
  hostProof,
  pageProof,
  secretId,
  sessionWelcome,
} from '@toolwire/protocol';

export const nodeHmac = (key: string, message: string): Uint8Array =>
  new Uint8Array(createHmac('sha256', key).update(message).digest());

export const idOf = (secret: string): string => secretId(nodeHmac, secret);

/** A welcome proving the host holds `key`, for the socket the page opened at `url`. */
export function provenWelcome(
  url: string | URL,
  key: string,
  payload: Partial<SessionWelcomePayload> = {},
) {
  const dialed = new URL(url);
  const pageNonce = dialed.searchParams.get('nonce') as string;
  const hostNonce = createNonce();
  const bound = { pageNonce, hostNonce, port: dialedPort(dialed.toString()) };
  const message = sessionWelcome({
    sessionId: 's1',
    hostRun: 'run-1',
    maxToolPolicy: 'read',
    heartbeatIntervalMs: 0,
    proof: { nonce: hostNonce, mac: hostProof(nodeHmac, key, bound) },
    ...payload,
  });
  return {
    message,
    /** The page proof the host expects in session.open. */
    pageProof: pageProof(nodeHmac, key, bound),
    /** On a pairing code's socket: the credential both sides derive. */
    credential: credentialSecret(nodeHmac, key, bound),
  };
}
