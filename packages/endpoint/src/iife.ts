/**
 * dist/endpoint.iife.js: the polyfill and the endpoint in one classic script. It installs the
 * globals, exposes `window.toolwire.connect`, and pairs the tab from a link the host printed
 * (`#toolwire=<ws address ?pair=CODE>`), after asking the person at the page (pair-from-link.ts).
 *
 * The page author decides, on the script tag:
 * - `data-toolwire-guard`: the page's guard (`read-only` by default, `read-write`,
 *   `full-access`, `disabled`). Never read from the URL.
 * - `data-toolwire-hosts`: hosts beyond this machine a link may pair with (`host[:port] ...`).
 */

import { install } from '@toolwire/polyfill';
import type { GuardPreset } from '@toolwire/protocol';
import { GUARD_PRESETS } from '@toolwire/protocol';
import type { ConnectOptions, Session } from './connect.js';
import { connect, SDK_VERSION } from './connect.js';
import { pairFromLink, parseHosts } from './pair-from-link.js';

interface ToolwireGlobal {
  version: string;
  connect(options: ConnectOptions): Session;
  /** The session this script paired from a link (set once the person said yes). */
  session?: Session;
  /** Resolves with that session, or undefined when the tab did not pair. */
  paired: Promise<Session | undefined>;
}

const script = document.currentScript as HTMLScriptElement | null;
const guardAttribute = script?.dataset.toolwireGuard?.trim();
let guard: GuardPreset = 'read-only';
if (guardAttribute) {
  if (Object.hasOwn(GUARD_PRESETS, guardAttribute)) guard = guardAttribute as GuardPreset;
  else {
    console.warn(
      `toolwire: data-toolwire-guard="${guardAttribute}" is not a guard (read-only, read-write, full-access, disabled); using read-only.`,
    );
  }
}

install();
const api = { version: SDK_VERSION, connect } as ToolwireGlobal;
const hosts = parseHosts(script?.dataset.toolwireHosts);
const pair = (): Promise<Session | undefined> =>
  pairFromLink({ guard, hosts }).then(
    (session) => {
      if (session) {
        // A new pairing replaces the tab's old one (a second link opened in the same tab).
        if (api.session && api.session !== session) api.session.close();
        api.session = session;
      }
      return session;
    },
    (error: unknown) => {
      console.warn(`toolwire: pairing failed: ${String(error)}`);
      return undefined;
    },
  );
api.paired = pair();
// A link opened in a tab that already shows this page changes only the fragment: no reload.
window.addEventListener('hashchange', () => {
  if (new URLSearchParams(location.hash.slice(1)).has('toolwire')) void pair();
});
(window as unknown as { toolwire: ToolwireGlobal }).toolwire = api;
