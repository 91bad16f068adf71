/**
 * Pairing this tab from a link the host printed.
 *
 * 1. The link is `#toolwire=<ws address ?pair=CODE>`. The fragment is removed from the address
 *    bar before anything else; the code is single use, so the copy the browser keeps in its
 *    navigation entry is spent once this tab pairs.
 * 2. A link only pairs with this machine (`localhost`, `127.0.0.1`, `[::1]`), or with the hosts
 *    the page's own markup allows (`hosts`). A link carrying a long-lived token is refused.
 * 3. A link never connects by itself: the person at the page says yes in a prompt that names
 *    the host and the page's guard. The guard is the page author's (never read from the URL).
 *    A link inside a frame is refused: the page embedding it could cover the prompt and steer
 *    the click (a person opens a link in its own tab).
 * 4. The credential the host gives for the code is kept in `sessionStorage` (this tab only);
 *    reloading the tab reconnects with it, without asking again. A refused or revoked
 *    credential is forgotten.
 * 5. A new link in a tab that holds a working pairing is tried beside it, as a session of its
 *    own: the tab's session keeps serving while the prompt shows and while the new code is
 *    traded. Only once the host welcomed the new session (`paired`) does the old one close and
 *    the new pairing replace the kept one. A dismissed prompt, or a new code the host refuses
 *    (spent, expired, for another origin), leaves the old pairing kept and its session open.
 *    A link that arrives with a load of the page (no session yet) leaves the kept pairing
 *    alone while it is tried; if it fails, the tab reconnects with the kept pairing.
 * Each refusal is one console line saying why.
 *
 * `connect` is passed in (pair-from-link.ts passes the endpoint's): the IIFE loads this module
 * lazily as the chunk `polyfill-pairing.js`, only when the tab has a link or a kept pairing
 * (pairing-link.ts), and the chunk must not carry a second copy of the session.
 */
import type { Guard, GuardPreset } from '@toolwire/protocol';
import { GUARD_PRESETS, pairingPhrase } from '@toolwire/protocol';
import type { ConnectOptions, PairedDetail, Session } from './connect.js';
import { defaultStorage, PAIRING_STORAGE_KEY, takePairingLink } from './pairing-link.js';
import type { PairingRequest } from './pairing-prompt.js';
import { askToPair } from './pairing-prompt.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface LinkPairingOptions extends Omit<ConnectOptions, 'url' | 'token' | 'pairingCode'> {
  /** The page author's guard. Default `read-only`. */
  guard?: GuardPreset | Guard;
  /** Hosts beyond this machine a link may pair with: `host` or `host:port` entries. */
  hosts?: readonly string[];
  /** Where the tab's credential is kept. Default `sessionStorage`; null keeps none. */
  storage?: Storage | null;
  /** Asks the person at the page. Default: the endpoint's own prompt. */
  prompt?: (request: PairingRequest) => Promise<boolean>;
  /** The page's location and history. Default: this window's. */
  location?: Location;
  history?: History;
}

interface StoredPairing {
  address: string;
  /** The credential's secret (never sent: the page names it by its id and proves it holds it). */
  credential: string;
  hostRun: string;
  /** The public id of the host's identity, as its welcome said. */
  hostId?: string;
}

const warn = (line: string) => console.warn(`toolwire: ${line}`);

/** May a link pair with `address`? Loopback always; other hosts only when the page allows them. */
export function linkMayReach(address: URL, hosts: readonly string[] = []): boolean {
  const name = address.hostname.toLowerCase();
  if (LOOPBACK_HOSTS.has(name)) return true;
  const port = address.port || (address.protocol === 'wss:' ? '443' : '80');
  return hosts.includes(name) || hosts.includes(`${name}:${port}`);
}

function guardName(guard: GuardPreset | Guard | undefined): string {
  if (guard === undefined) return 'read-only';
  if (typeof guard === 'string') return guard;
  const preset = (Object.keys(GUARD_PRESETS) as GuardPreset[]).find((name) => {
    const known = GUARD_PRESETS[name];
    return (
      known.maxPolicy === guard.maxPolicy &&
      known.discoveryEnabled === guard.discoveryEnabled &&
      known.executionEnabled === guard.executionEnabled
    );
  });
  return preset ?? `up to ${guard.maxPolicy} tools`;
}

/** Inside a frame? Then another page may lie over the prompt (clickjacking). */
function isFramed(): boolean {
  try {
    return globalThis.top != null && globalThis.top !== globalThis.self;
  } catch {
    return true; // a top this document may not even compare with is another page's
  }
}

function readStored(storage: Storage | null): StoredPairing | undefined {
  try {
    const value = JSON.parse(storage?.getItem(PAIRING_STORAGE_KEY) ?? 'null') as unknown;
    if (
      value &&
      typeof value === 'object' &&
      typeof (value as StoredPairing).address === 'string' &&
      typeof (value as StoredPairing).credential === 'string'
    ) {
      return value as StoredPairing;
    }
  } catch {
    // Unreadable: as if nothing were stored.
  }
  return undefined;
}

/** What the tab's kept pairing says now (the raw stored text), or null. */
function storedText(storage: Storage | null): string | null {
  try {
    return storage?.getItem(PAIRING_STORAGE_KEY) ?? null;
  } catch {
    return null;
  }
}

/**
 * Pairs this tab from its link, or reconnects it with the credential it kept, through
 * `connect`. Resolves the session, or undefined when there is nothing to pair with (no link,
 * refused, dismissed). `current` is the session the tab runs now, if any (a second link opened
 * in the same document): it serves on until a new link's session is welcomed, and is closed
 * then; while no new pairing is accepted, the promise resolves with it.
 */
export async function pairWith(
  options: LinkPairingOptions,
  connect: (options: ConnectOptions) => Session,
  /** The link the caller already took out of the fragment (takePairingLink), if it did. */
  taken?: { link: string | null },
  current?: Session,
): Promise<Session | undefined> {
  const {
    hosts = [],
    prompt,
    storage: given,
    location: loc = globalThis.location,
    history: hist = globalThis.history,
    ...connectOptions
  } = options;
  const storage = given === undefined ? defaultStorage() : given;

  // Out of the address bar first, whatever follows.
  const link = taken ? taken.link : takePairingLink(loc, hist);
  if (link !== null && isFramed()) {
    warn(
      'not pairing from a link inside a frame (another page could cover the prompt); open the link in its own tab.',
    );
    return undefined;
  }
  /**
   * Keeps `session`'s pairing once the host gives it one, and forgets it when the host refuses
   * or revokes it, but only while the kept pairing is still this session's: a refused session
   * never deletes another session's pairing. `kept` is the stored text it resumed from.
   */
  const keep = (session: Session, kept: string | null = null) => {
    let mine = kept;
    session.addEventListener('paired', (event) => {
      const detail = (event as CustomEvent<PairedDetail>).detail;
      mine = JSON.stringify({
        address: detail.address,
        credential: detail.credential,
        hostRun: detail.hostRun,
        ...(detail.hostId === undefined ? {} : { hostId: detail.hostId }),
      } satisfies StoredPairing);
      try {
        storage?.setItem(PAIRING_STORAGE_KEY, mine);
      } catch {
        warn('this tab cannot keep its pairing (no sessionStorage): a reload needs a new link.');
      }
    });
    session.addEventListener('refused', () => {
      try {
        if (mine !== null && storedText(storage) === mine) storage?.removeItem(PAIRING_STORAGE_KEY);
      } catch {
        // nothing kept
      }
    });
    return session;
  };

  /** The pairing this tab kept, reconnected (no prompt: the person said yes before). */
  const resume = (): Session | undefined => {
    const stored = readStored(storage);
    if (!stored) return undefined;
    let address: URL;
    try {
      address = new URL(stored.address);
    } catch {
      storage?.removeItem(PAIRING_STORAGE_KEY);
      return undefined;
    }
    if (!linkMayReach(address, hosts)) {
      warn(`not reconnecting to ${address.host}: the page no longer allows that host.`);
      storage?.removeItem(PAIRING_STORAGE_KEY);
      return undefined;
    }
    return keep(
      connect({ ...connectOptions, url: stored.address, credential: stored.credential }),
      storedText(storage),
    );
  };

  if (link === null) return resume();

  // The session that works now keeps serving whatever becomes of this link. After a load, the
  // kept pairing is left alone while the link is tried, and reconnects if the link fails.
  const old = current && current.status !== 'closed' ? current : undefined;
  const kept = old === undefined && readStored(storage) !== undefined;
  const back = (): Session | undefined => old ?? resume();
  let address: URL;
  try {
    address = new URL(link);
  } catch {
    warn('the pairing link is not a WebSocket address; not connecting.');
    return back();
  }
  if (address.protocol !== 'ws:' && address.protocol !== 'wss:') {
    warn(`the pairing link is not a WebSocket address (${address.protocol}); not connecting.`);
    return back();
  }
  const code = address.searchParams.get('pair');
  if (address.searchParams.has('token') || address.searchParams.has('credential') || !code) {
    warn(
      'this link carries no pairing code (a long-lived token in a link is refused); ask the host for a new link (toolwire pair).',
    );
    return back();
  }
  address.searchParams.delete('pair');
  if (!linkMayReach(address, hosts)) {
    warn(
      `not connecting to ${address.host}: a link pairs only with this machine (localhost, 127.0.0.1, [::1]) unless the page allows the host (data-toolwire-hosts).`,
    );
    return back();
  }
  const request: PairingRequest = {
    address: address.toString(),
    guard: guardName(options.guard),
    phrase: pairingPhrase(code),
  };
  const yes = await (prompt ?? ((r: PairingRequest) => askToPair(document, r)))(request);
  if (!yes) {
    warn(`pairing with ${address.host} dismissed.`);
    return back();
  }
  const fresh = keep(connect({ ...connectOptions, url: address.toString(), pairingCode: code }));
  if (!old && !kept) return fresh;
  // The host decides: the new session replaces the old one only once welcomed.
  return new Promise<Session | undefined>((resolve) => {
    const done = () => {
      fresh.removeEventListener('paired', onPaired);
      fresh.removeEventListener('close', onClose);
    };
    const onPaired = () => {
      done();
      old?.close();
      resolve(fresh);
    };
    const onClose = (event: Event) => {
      const { willRetry } = (event as CustomEvent<{ willRetry: boolean }>).detail;
      if (willRetry) return; // not refused: the new session tries again, the old one serves on
      done();
      fresh.close();
      const session = back();
      if (session) {
        warn(`the new link did not pair; this tab keeps its pairing with ${session.address}.`);
      }
      resolve(session);
    };
    fresh.addEventListener('paired', onPaired);
    fresh.addEventListener('close', onClose);
  });
}
