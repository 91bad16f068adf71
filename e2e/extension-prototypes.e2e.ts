import type { Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import type { ExtensionBrowser } from './support/extension.js';
import { launchWithExtension } from './support/extension.js';

// The BUILT toolwire extension in Chromium, on a page whose first inline script rewrites the
// built-ins of the MAIN world its reader shares (MessageEvent's `data` and `ports` getters,
// addEventListener, MessagePort's methods, Map, Array.isArray, JSON, Function.prototype.call,
// an Object.prototype getter...): it records all they are handed, and answers any request it
// sees through the port it came on, with forged tools.

const A = `http://localhost:${E2E_PORT}`;

interface Recorder {
  installed: boolean;
  ports: number;
  events: number;
  secrets: string[];
  requests: number;
}

let browser: ExtensionBrowser | undefined;

test.afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

/** What the page's recorder holds; it stops recording, so that reading it adds nothing. */
const recorder = (page: Page) =>
  page.evaluate(() => {
    const rec = (window as any).recorder as Recorder & { armed: boolean };
    rec.armed = false;
    return rec as Recorder;
  });

/** Opens the page and its panel, and lists and calls its tools there. */
async function listAndCall(ext: ExtensionBrowser, page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => (window as any).ready === true);
  if (await page.evaluate(() => (window as any).recorder.installed)) {
    // The recorder records: the page's own message, with a nonce-shaped string, reached it.
    expect(await page.evaluate(() => (window as any).selfCheck())).toBe(32);
    const live = await recorder(page);
    expect(live.secrets).toContain('0123456789abcdef0123456789abcdef');
    expect(live.ports).toBeGreaterThan(0);
    expect(live.events).toBeGreaterThan(0);
    // From here on, whatever it records came from someone else.
    await page.evaluate(() =>
      Object.assign((window as any).recorder, {
        ports: 0,
        events: 0,
        secrets: [],
        requests: 0,
        armed: true,
      }),
    );
  }
  const panel = await ext.openPanel(await ext.tabIdOf(page));
  const tool = (name: string) => panel.locator(`article.tool[data-tool="${name}"]`);
  await expect(tool('honest.echo')).toBeVisible({ timeout: 15_000 });
  await expect(panel.locator('article.tool h3')).toHaveText(['honest.echo', 'honest.time']);
  await tool('honest.echo').locator('.tool-form textarea').fill('{"n": 7}');
  await tool('honest.echo').locator('button.call').click();
  await expect(tool('honest.echo').locator('.output pre')).toContainText('"n": 7');
  await tool('honest.time').locator('button.call').click();
  await expect(tool('honest.time').locator('.output pre')).toContainText('noon');
  await expect(tool('forged.tool')).toHaveCount(0);
}

test("a page that rewrites MessageEvent's getters and other built-ins sees none of the reader's channel, and cannot answer for it", async () => {
  browser = await launchWithExtension();

  // The honest path first: the same page, its prototypes untouched.
  const honest = await browser.context.newPage();
  await listAndCall(browser, honest, `${A}/e2e/pages/extension/prototypes.html?honest`);
  expect((await recorder(honest)).installed).toBe(false);

  // The hostile page: the panel still lists and calls the page's real tools...
  const hostile = await browser.context.newPage();
  await listAndCall(browser, hostile, `${A}/e2e/pages/extension/prototypes.html`);
  // ...and the page's rewritten built-ins were never handed the private port, a message event
  // of the channel, the nonce or a request id (all 32 hex digits), nor a request to forge.
  const seen = await recorder(hostile);
  expect(seen.installed).toBe(true);
  expect(seen).toMatchObject({ ports: 0, events: 0, secrets: [], requests: 0 });
});
