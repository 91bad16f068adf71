/**
 * Chromium with the BUILT toolwire extension loaded (packages/extension/dist-extension, made by
 * `pnpm build`): a persistent context (extensions need one), the extension's id from its
 * service worker, tab ids through `chrome.tabs`, and the side panel opened as a normal tab.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page, Worker } from '@playwright/test';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/find-chromium.mjs';

export const EXTENSION_DIR = fileURLToPath(
  new URL('../../packages/extension/dist-extension', import.meta.url),
);

export interface ExtensionBrowser {
  context: BrowserContext;
  extensionId: string;
  worker: Worker;
  /** The `chrome.tabs` id of the tab showing `page` (its URL must be unique among tabs). */
  tabIdOf(page: Page): Promise<number>;
  /** The side panel for that tab, as a normal tab: `panel.html?tab=ID`. */
  openPanel(tabId: number): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium with the extension; `native` turns on Chromium's own WebMCP.
 * `userDataDir` reuses a profile (a browser restart); the caller removes it, not `close()`.
 */
export async function launchWithExtension(
  options: { native?: boolean; userDataDir?: string } = {},
): Promise<ExtensionBrowser> {
  if (!existsSync(join(EXTENSION_DIR, 'manifest.json')))
    throw new Error(`No built extension in ${EXTENSION_DIR}: run pnpm build first.`);
  const userDataDir = options.userDataDir ?? mkdtempSync(join(tmpdir(), 'toolwire-extension-'));
  const args = [
    ...CHROMIUM_ARGS,
    `--disable-extensions-except=${EXTENSION_DIR}`,
    `--load-extension=${EXTENSION_DIR}`,
    ...(options.native ? ['--enable-experimental-web-platform-features'] : []),
  ];
  const context = await chromium.launchPersistentContext(userDataDir, {
    headless: true,
    executablePath: findChromium(),
    args,
  });
  const worker =
    context.serviceWorkers()[0] ??
    (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
  const extensionId = new URL(worker.url()).host;
  return {
    context,
    extensionId,
    worker,
    async tabIdOf(page) {
      const url = page.url();
      const id = await worker.evaluate(async (wanted) => {
        const tabs: { id?: number; url?: string }[] = await (globalThis as any).chrome.tabs.query(
          {},
        );
        return tabs.find((tab) => tab.url === wanted)?.id;
      }, url);
      if (typeof id !== 'number') throw new Error(`No tab shows ${url}`);
      return id;
    },
    async openPanel(tabId) {
      const panel = await context.newPage();
      await panel.goto(`chrome-extension://${extensionId}/panel.html?tab=${tabId}`);
      return panel;
    },
    async close() {
      await context.close();
      if (!options.userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
