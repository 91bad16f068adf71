/**
 * The host's address and the one secret a connection is opened with (docs/wire.md "The
 * handshake"): the page token travels as it is (`?token=`, as the protocol's hosts read it); a
 * pairing code or a credential never does, only its public id (`?pair-id=`, `?credential-id=`).
 */
import type { ConnectOptions } from './options.js';

export type Secret =
  | { name: 'token' | 'pair' | 'credential'; value: string }
  /** A delegate of an extension's credential: `of` is that credential's id. */
  | { name: 'delegate'; value: string; of: string }
  | undefined;

/** The URL without its secret, and the secret: options win over what the URL carries. */
export function splitSecret(options: ConnectOptions): { address: string; secret: Secret } {
  const parsed = new URL(options.url);
  let secret: Secret;
  for (const name of ['token', 'pair', 'credential'] as const) {
    const value = parsed.searchParams.get(name);
    parsed.searchParams.delete(name);
    if (value && !secret) secret = { name, value };
  }
  if (options.delegate) {
    secret = { name: 'delegate', value: options.delegate.secret, of: options.delegate.of };
  } else if (options.credential) secret = { name: 'credential', value: options.credential };
  else if (options.pairingCode) secret = { name: 'pair', value: options.pairingCode };
  else if (options.token) secret = { name: 'token', value: options.token };
  return { address: parsed.toString(), secret };
}

/** The address to dial: the secret named by its id (the token as it is), and the nonce. */
export async function dialUrl(
  address: string,
  secret: Secret,
  nonce: string | undefined,
  idOf: (secret: string) => string | Promise<string>,
): Promise<string> {
  const parsed = new URL(address);
  if (secret?.name === 'token') parsed.searchParams.set('token', secret.value);
  // The parent credential's id: the host derives the key from it and the socket's Origin.
  else if (secret?.name === 'delegate') parsed.searchParams.set('delegate-of', secret.of);
  else if (secret) {
    const id = await idOf(secret.value);
    // `pair-id` or `credential-id`.
    parsed.searchParams.set(`${secret.name}-id`, id);
  }
  if (nonce !== undefined) parsed.searchParams.set('nonce', nonce);
  return parsed.toString();
}
