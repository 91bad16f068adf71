/**
 * The toolwire extension's service worker: accepts the tabs' relays (`listenForRelays`), the
 * side panels (`servePanels`) and their "Connect this tab" requests (`serveConnections`), and
 * opens the side panel from the toolbar button.
 */
import { listenForRelays } from '../src/index.js';
import { serveConnections } from './connect/background.js';
import { servePanels, tabWithFrames } from './panel-service.js';
import { chromeProvideApi, reconcile } from './provide/sites.js';

listenForRelays();
servePanels();
// Connect serves every frame's tools, one host session per frame origin.
serveConnections(tabWithFrames);
// The sites chosen for "Provide WebMCP on this site": registrations made to match storage.
void reconcile(chromeProvideApi()).catch(() => {});
void chrome.sidePanel?.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
