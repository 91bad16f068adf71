/**
 * dist/endpoint.iife.js: the polyfill and the endpoint in one classic script. It installs the
 * globals, exposes `window.toolwire.connect`, and connects by itself when the page's URL carries
 * `#toolwire=<encoded ws URL with token>` (what `toolwire host` prints). The fragment is removed
 * from the address bar once read, so the token does not linger in history or screenshots.
 */

import { install } from '@toolwire/polyfill';
import type { Guard, GuardPreset } from '@toolwire/protocol';
import type { ConnectOptions, Session } from './connect.js';
import { connect, SDK_VERSION } from './connect.js';

interface ToolwireGlobal {
  version: string;
  connect(options: ConnectOptions): Session;
  session?: Session;
}

install();
const api: ToolwireGlobal = { version: SDK_VERSION, connect };
(window as unknown as { toolwire: ToolwireGlobal }).toolwire = api;

const fragment = new URLSearchParams(location.hash.slice(1));
const url = fragment.get('toolwire');
if (url) {
  const guard = (fragment.get('toolwire-guard') ?? undefined) as GuardPreset | Guard | undefined;
  fragment.delete('toolwire');
  fragment.delete('toolwire-guard');
  const rest = fragment.toString();
  history.replaceState(
    history.state,
    '',
    `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`,
  );
  api.session = connect({ url, ...(guard ? { guard } : {}) });
}
