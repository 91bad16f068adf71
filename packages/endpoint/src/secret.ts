/** The host's address and the one secret a connection carries in its query (docs/wire.md "Authorization"). */
import type { ConnectOptions } from './options.js';

export type Secret = { name: 'token' | 'pair' | 'credential'; value: string } | undefined;

/** The URL without its secret, and the secret: options win over what the URL carries. */
export function splitSecret(options: ConnectOptions): { address: string; secret: Secret } {
  const parsed = new URL(options.url);
  let secret: Secret;
  for (const name of ['token', 'pair', 'credential'] as const) {
    const value = parsed.searchParams.get(name);
    parsed.searchParams.delete(name);
    if (value && !secret) secret = { name, value };
  }
  if (options.credential) secret = { name: 'credential', value: options.credential };
  else if (options.pairingCode) secret = { name: 'pair', value: options.pairingCode };
  else if (options.token) secret = { name: 'token', value: options.token };
  return { address: parsed.toString(), secret };
}

export function withSecret(address: string, secret: Secret): string {
  if (!secret) return address;
  const parsed = new URL(address);
  parsed.searchParams.set(secret.name, secret.value);
  return parsed.toString();
}
