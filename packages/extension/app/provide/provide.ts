/**
 * What the provider script does (./provider.ts runs it on `window`): installs toolwire's
 * polyfill unless the document already has a `document.modelContext` (the browser's own
 * WebMCP, which pages keep). Returns whether it installed.
 */
import { install } from '@toolwire/polyfill';

export function provideWebMcp(win: Window & typeof globalThis): boolean {
  if ('modelContext' in win.document) return false;
  install({ window: win });
  return true;
}
