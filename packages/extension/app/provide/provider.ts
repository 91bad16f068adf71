/**
 * The provider (`dist-extension/content/provide.js`): toolwire's polyfill for a site the person
 * chose in the panel ("Provide WebMCP on this site"). The background registers it as a
 * `world: 'MAIN'` content script at `document_start` for that origin only (./sites.ts), so it
 * runs before the page's own scripts: a page that feature-tests `document.modelContext` finds
 * one and registers its tools, which the MAIN-world reader then reads through `window.tools`
 * (the reader looks the source up at every listing, so the order the two scripts run in does
 * not matter).
 *
 * A browser with its own WebMCP keeps it: nothing is installed where `document.modelContext`
 * already exists. The build inlines every part of the polyfill (validators, lowering, frames,
 * form tools): a content script has no URL of its own to fetch parts from, and serving them as
 * web-accessible resources would let any page probe for the extension.
 */
import { provideWebMcp } from './provide.js';

provideWebMcp(window);
