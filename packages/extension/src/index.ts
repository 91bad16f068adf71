/**
 * `@toolwire/extension`: a browser tab's WebMCP tools for extension authors. Three parts: the
 * MAIN-world reader and the isolated-world relay (content scripts; built copies are in
 * `dist/content/`), and `tabTools(tabId)` for the background.
 */

export type { ListenOptions } from './background/relays.js';
export { listenForRelays, relayPath } from './background/relays.js';
export type { TabToolsOptions } from './background/tab-tools.js';
export { TabToolsError, tabTools } from './background/tab-tools.js';
export { RELAY_PORT_NAME } from './channel/messages.js';
export type { RuntimePortLike } from './channel/runtime-port.js';
export { startLinkPage } from './link/link-page.js';
export { startMainWorldReader } from './main-world/reader.js';
export type { LocalRelay, RelayOptions, RelayState } from './relay/relay.js';
export { startRelay } from './relay/relay.js';
export type * from './types.js';
