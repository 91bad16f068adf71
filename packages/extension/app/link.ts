/**
 * The toolwire extension's link page (`link.html`, listed in `web_accessible_resources`): a
 * tab's relay embeds it for a moment to hand the service worker a direct port (see
 * src/link/link-page.ts).
 */
import { startLinkPage } from '../src/index.js';

startLinkPage();
