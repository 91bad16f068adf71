/**
 * What the person pastes in the side panel: the pairing address `toolwire pair --extension ID`
 * printed (`ws://127.0.0.1:PORT/toolwire?pair=CODE`). As with a page's link
 * (docs/permissions.md "Pairing and credentials"), it pairs only with this machine and only by
 * a single-use code: an address elsewhere, or one carrying the host's page token or a
 * credential, is refused with the reason.
 */
import { linkMayReach } from '@toolwire/endpoint';

export type PairingAddress =
  | { ok: true; address: string; code: string }
  | { ok: false; code: 'pairing_address_invalid'; message: string };

function refuse(message: string): PairingAddress {
  return { ok: false, code: 'pairing_address_invalid', message };
}

/** Reads the pasted text: the host's address without its secret, and the pairing code. */
export function readPairingAddress(text: string): PairingAddress {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return refuse('Paste the ws://... address that toolwire pair --extension printed.');
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
    return refuse('A pairing address starts with ws:// (from toolwire pair --extension).');
  }
  if (!linkMayReach(url)) {
    return refuse(`The extension pairs only with a host on this machine, not ${url.hostname}.`);
  }
  if (url.searchParams.has('token') || url.searchParams.has('credential')) {
    return refuse('That address carries a long-lived secret; use toolwire pair --extension.');
  }
  const code = url.searchParams.get('pair');
  if (!code) return refuse('That address has no pairing code (?pair=...).');
  url.searchParams.delete('pair');
  url.hash = '';
  return { ok: true, address: url.toString(), code };
}
