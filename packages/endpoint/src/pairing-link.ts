/**
 * What the endpoint's IIFE does before pairing loads: takes a link out of the
 * fragment (`#toolwire=...`) at once, and asks whether the tab has anything to pair with, that
 * link or a pairing it kept in `sessionStorage`. Only then is the pairing code (pairing-flow.ts,
 * the prompt) fetched.
 */

/** Where a tab keeps its pairing (address and credential) between reloads. */
export const PAIRING_STORAGE_KEY = 'toolwire.pairing';

/** `host` or `host:port` entries from a space- or comma-separated attribute. */
export function parseHosts(value: string | null | undefined): string[] {
  return (value ?? '')
    .split(/[\s,]+/)
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
}

/** This tab's `sessionStorage`, or null where there is none or it may not be read. */
export function defaultStorage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null; // sandboxed documents throw on access
  }
}

/** Does the fragment carry a pairing link? */
export function hasPairingLink(hash: string): boolean {
  return new URLSearchParams(hash.slice(1)).has('toolwire');
}

/**
 * Takes the pairing link out of the fragment, and so out of the address bar, before anything
 * else (the code is single use: the copy in the navigation entry is spent once the tab pairs).
 * Returns the link, or null when the fragment has none.
 */
export function takePairingLink(loc: Location, hist: History): string | null {
  const fragment = new URLSearchParams(loc.hash.slice(1));
  const link = fragment.get('toolwire');
  if (link !== null) {
    fragment.delete('toolwire');
    fragment.delete('toolwire-guard'); // an old link's: the guard is never the URL's
    const rest = fragment.toString();
    // An absolute URL, so that a `<base href>` (posted markup can carry one) plays no part; and
    // should the browser still refuse, the link stays in the address bar but the page lives on.
    try {
      const url = new URL(loc.href);
      url.hash = rest ? `#${rest}` : '';
      hist.replaceState(hist.state, '', url.href);
    } catch (error) {
      console.warn(`toolwire: could not take the pairing link out of the address bar: ${error}`);
    }
  }
  return link;
}

/** Has this tab kept a pairing to reconnect with (anything under the key)? */
export function hasKeptPairing(storage: Storage | null = defaultStorage()): boolean {
  try {
    return storage?.getItem(PAIRING_STORAGE_KEY) != null;
  } catch {
    return false;
  }
}
