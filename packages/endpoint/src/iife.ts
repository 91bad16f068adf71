/**
 * dist/endpoint.iife.js: the polyfill and the endpoint in one classic script. It installs the
 * globals, exposes `window.toolwire.connect`, and pairs the tab from a link the host printed
 * (`#toolwire=<ws address ?pair=CODE>`), after asking the person at the page (pairing-flow.ts,
 * fetched only when the tab has a link or a pairing it kept: pairing-link.ts).
 *
 * The page author decides, on the script tag:
 * - `data-toolwire-guard`: the page's guard (`read-only` by default, `read-write`,
 *   `full-access`, `disabled`). Never read from the URL.
 * - `data-toolwire-hosts`: hosts beyond this machine a link may pair with (`host[:port] ...`).
 * Both are read from the running script element itself (the polyfill's lib/chunks.ts), never
 * from `document.currentScript`, which markup posted to the page can shadow.
 */

import { install } from '@toolwire/polyfill';
import { chunkFromScript, ownScriptAttribute } from '@toolwire/polyfill/wire';
import type { GuardPreset } from '@toolwire/protocol';
import { GUARD_PRESETS } from '@toolwire/protocol';
import type { ConnectOptions, Session } from './connect.js';
import { connect, SDK_VERSION } from './connect.js';
import { hasKeptPairing, hasPairingLink, parseHosts, takePairingLink } from './pairing-link.js';

interface ToolwireGlobal {
  version: string;
  connect(options: ConnectOptions): Session;
  /** The session this script paired from a link (set once the person said yes). */
  session?: Session;
  /** Resolves with that session, or undefined when the tab did not pair. */
  paired: Promise<Session | undefined>;
}

const guardAttribute = ownScriptAttribute('data-toolwire-guard')?.trim();
let guard: GuardPreset = 'read-only';
if (guardAttribute) {
  if (Object.hasOwn(GUARD_PRESETS, guardAttribute)) guard = guardAttribute as GuardPreset;
  else {
    console.warn(
      `toolwire: data-toolwire-guard="${guardAttribute}" is not a guard (read-only, read-write, full-access, disabled); using read-only.`,
    );
  }
}

/**
 * The page script being built (a define): in the split one the pairing is the chunk
 * `polyfill-pairing.js`; the one-file script inlines it.
 */
declare const __TOOLWIRE_IIFE__: 'split' | 'standalone' | undefined;

/** Pairing from a link: the checks, the prompt and the kept credential (pairing-flow.ts). */
function loadPairing(): Promise<typeof import('./pairing-flow.js')> {
  return typeof __TOOLWIRE_IIFE__ !== 'undefined' && __TOOLWIRE_IIFE__ === 'split'
    ? chunkFromScript('pairing')
    : import('./pairing-flow.js');
}

install();
const api = { version: SDK_VERSION, connect } as ToolwireGlobal;
const hosts = parseHosts(ownScriptAttribute('data-toolwire-hosts'));
// A link leaves the address bar at once; the pairing code (checks, prompt) is fetched only for
// a tab that has a link or a pairing it kept.
const pair = (): Promise<Session | undefined> => {
  const link = takePairingLink(location, history);
  if (link === null && !hasKeptPairing()) return Promise.resolve(undefined);
  // A second link opened in the same tab: the session it has serves until the new one is
  // welcomed (pairWith closes it then), and goes on serving if the new code is refused.
  return loadPairing()
    .then((pairing) => pairing.pairWith({ guard, hosts }, connect, { link }, api.session))
    .then(
      (session) => {
        if (session) api.session = session;
        return session;
      },
      (error: unknown) => {
        console.warn(`toolwire: pairing failed: ${String(error)}`);
        return undefined;
      },
    );
};
api.paired = pair();
// A link opened in a tab that already shows this page changes only the fragment: no reload.
window.addEventListener('hashchange', () => {
  if (hasPairingLink(location.hash)) void pair();
});
(window as unknown as { toolwire: ToolwireGlobal }).toolwire = api;
