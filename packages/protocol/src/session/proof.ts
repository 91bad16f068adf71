/**
 * The handshake's proofs (docs/wire.md "The handshake"): each side shows the other that it holds
 * the connection's secret `K` (a pairing code, a credential's secret, or the host's page token)
 * without sending it. Both ends build the same strings here and run them through an HMAC-SHA-256
 * they inject: `node:crypto` in a host, `crypto.subtle` in a page or an extension, a small pure
 * implementation where a page has no `crypto.subtle` (plain http away from loopback).
 *
 * - `secretId(K)`: the public name of a secret, what the upgrade URL carries instead of it.
 * - The host proves itself in `session.welcome` (`hostProof`), the page in `session.open`
 *   (`pageProof`); each covers both nonces and the port the page dialed, so a proof made for one
 *   socket (or one port) is worth nothing on another.
 * - A pairing code is spent for a credential both sides derive (`credentialSecret`): the welcome
 *   carries none.
 * Pure: no I/O; every value is a base64url string without padding.
 */
import { encodeBase64 } from '@toolwire/lowering';

/** HMAC-SHA-256 of the UTF-8 of `message` under the UTF-8 of `key`: synchronous or not. */
export type HmacSha256<
  R extends Uint8Array | Promise<Uint8Array> = Uint8Array | Promise<Uint8Array>,
> = (key: string, message: string) => R;

/** A proof's text, or its promise, as the HMAC given is synchronous or not. */
type MacOf<R> = R extends Promise<Uint8Array> ? Promise<string> : string;

/** Characters of `secretId`: 132 bits of the MAC, plenty for a lookup key that is not a secret. */
export const SECRET_ID_LENGTH = 22;

/** base64url without padding (RFC 4648 section 5). */
export function base64url(bytes: Uint8Array): string {
  return encodeBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A nonce: 128 random bits as base64url (22 characters), fresh for every socket. */
export function createNonce(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(16)));
}

/** What a nonce must look like to be read: base64url, 22 to 128 characters. */
export function isNonce(value: unknown): value is string {
  return typeof value === 'string' && /^[\w-]{22,128}$/.test(value);
}

function mac<R extends Uint8Array | Promise<Uint8Array>>(
  hmac: HmacSha256<R>,
  key: string,
  message: string,
  length?: number,
): MacOf<R> {
  const out = hmac(key, message);
  // slice(0, undefined) is the whole text.
  const text = (bytes: Uint8Array) => base64url(bytes).slice(0, length);
  return (out instanceof Promise ? out.then(text) : text(out as Uint8Array)) as MacOf<R>;
}

/** The public id of secret `key`, which the upgrade URL names instead of the secret. */
export function secretId<R extends Uint8Array | Promise<Uint8Array>>(
  hmac: HmacSha256<R>,
  key: string,
): MacOf<R> {
  return mac(hmac, key, 'toolwire id', SECRET_ID_LENGTH);
}

/** The nonces of one socket and the port the page dialed (as a decimal string). */
export interface ProofBinding {
  pageNonce: string;
  hostNonce: string;
  port: string | number;
}

/** The host's proof, in `session.welcome`: it holds `key`, on this socket, on this port. */
export function hostProof<R extends Uint8Array | Promise<Uint8Array>>(
  hmac: HmacSha256<R>,
  key: string,
  { pageNonce, hostNonce, port }: ProofBinding,
): MacOf<R> {
  return mac(hmac, key, `toolwire host\n${pageNonce}\n${hostNonce}\n${port}`);
}

/** The page's proof, in `session.open`: the same, from the page's side (the nonces swapped). */
export function pageProof<R extends Uint8Array | Promise<Uint8Array>>(
  hmac: HmacSha256<R>,
  key: string,
  { pageNonce, hostNonce, port }: ProofBinding,
): MacOf<R> {
  return mac(hmac, key, `toolwire page\n${hostNonce}\n${pageNonce}\n${port}`);
}

/** The credential's secret a pairing code is spent for, derived by both sides of that socket. */
export function credentialSecret<R extends Uint8Array | Promise<Uint8Array>>(
  hmac: HmacSha256<R>,
  code: string,
  { pageNonce, hostNonce }: Omit<ProofBinding, 'port'>,
): MacOf<R> {
  return mac(hmac, code, `toolwire credential\n${pageNonce}\n${hostNonce}`);
}

/**
 * The delegated secret an extension's credential `credential` gives pages of `origin`: the key
 * of a socket that an extension's content script opens from that page (`?delegate-of=`). The
 * host derives it again from the parent credential and the socket's `Origin` header, so it is
 * never stored, and good for that origin only.
 */
export function delegateSecret<R extends Uint8Array | Promise<Uint8Array>>(
  hmac: HmacSha256<R>,
  credential: string,
  origin: string,
): MacOf<R> {
  return mac(hmac, credential, `toolwire delegate\n${origin}`);
}

/** The port a page dials for `address` (a ws:// or wss:// URL), as the proofs name it. */
export function dialedPort(address: string): string {
  const url = new URL(address);
  return url.port || (url.protocol === 'wss:' ? '443' : '80');
}
