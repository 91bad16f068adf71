/**
 * The toolwire extension's service worker: accepts the tabs' relays (`listenForRelays`) and
 * the side panels (`servePanels`), and opens the side panel from the toolbar button.
 */
import { listenForRelays } from '../src/index.js';
import { servePanels } from './panel-service.js';

listenForRelays();
servePanels();
void chrome.sidePanel?.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
