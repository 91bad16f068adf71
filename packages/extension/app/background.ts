/**
 * The toolwire extension's service worker: accepts the tabs' relays (`listenForRelays`), the
 * side panels (`servePanels`) and their "Connect this tab" requests (`serveConnections`), and
 * opens the side panel from the toolbar button.
 */
import { listenForRelays, relayPath } from '../src/index.js';
import { serveConnections } from './connect/background.js';
import { servePanels, tabWithFrames } from './panel-service.js';
import { chromeProvideApi, reconcile } from './provide/sites.js';

// Requests and answers skip the browser's extension messaging once a tab's relay has handed
// this worker a direct port through the link page.
listenForRelays({ linkPage: 'link.html' });
// For tests and diagnostics in the worker's console: how a tab's frame is reached.
(globalThis as { toolwireRelayPath?: typeof relayPath }).toolwireRelayPath = relayPath;
servePanels();
// Connect serves every frame's tools, one host session per frame origin.
serveConnections(tabWithFrames);
// The sites chosen for "Provide WebMCP on this site": registrations made to match storage.
void reconcile(chromeProvideApi()).catch(() => {});
void chrome.sidePanel?.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
