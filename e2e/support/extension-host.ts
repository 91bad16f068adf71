/**
 * One test's Chromium with the BUILT extension and a `toolwire host` process of its own, both
 * ended after each test; and the steps the extension's e2e files share: a tab opened on a page
 * that says `ready`, and that tab paired and connected from its panel.
 */
import { expect, type Page, test } from '@playwright/test';
import { HostProcess, toolwire } from './cli.js';
import { type ExtensionBrowser, launchWithExtension } from './extension.js';

export interface ExtensionWithHost {
  /** The browser and the host of the running test (start() first). */
  readonly browser: ExtensionBrowser;
  readonly host: HostProcess;
  start(): Promise<{ browser: ExtensionBrowser; host: HostProcess }>;
  /** A new tab on `url`, once its `#status` says `ready`, and its tab id. */
  openTab(url: string): Promise<{ page: Page; tabId: number }>;
  /**
   * The tab's panel, Connect clicked and connected: with `toolwire pair --extension ID` pasted
   * first, or (`pair: false`) on the pairing the extension keeps.
   */
  connectTab(tabId: number, pair?: boolean): Promise<Page>;
}

/** Registers the after-each teardown; call at the top of a test file. */
export function extensionWithHost(): ExtensionWithHost {
  let browser: ExtensionBrowser | undefined;
  let host: HostProcess | undefined;
  test.afterEach(async () => {
    await host?.stop();
    host = undefined;
    await browser?.close();
    browser = undefined;
  });
  const started = () => {
    if (!browser || !host) throw new Error('extensionWithHost: start() first');
    return { browser, host };
  };
  return {
    get browser() {
      return started().browser;
    },
    get host() {
      return started().host;
    },
    async start() {
      browser = await launchWithExtension();
      host = new HostProcess([]);
      await host.url();
      return { browser, host };
    },
    async openTab(url) {
      const current = started().browser;
      const page = await current.context.newPage();
      await page.goto(url);
      await expect(page.locator('#status')).toHaveText('ready');
      return { page, tabId: await current.tabIdOf(page) };
    },
    async connectTab(tabId, pair = true) {
      const { browser: current, host: running } = started();
      const panel = await current.openPanel(tabId);
      await expect(panel.locator('#connect h2')).toHaveText('Connect this tab to toolwire');
      if (pair) {
        const paired = await toolwire(['pair', '--extension', current.extensionId], running.env);
        expect(paired.code, paired.err).toBe(0);
        await panel.locator('#connect-pairing').fill(paired.out.trim());
      }
      await panel.locator('#connect-button').click();
      await expect(panel.locator('.connect-status')).toHaveText(
        /^Connected to ws:\/\/127\.0\.0\.1:/,
      );
      return panel;
    },
  };
}
