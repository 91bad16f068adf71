import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Frame, Page, Worker } from '@playwright/test';
import { chromium, expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { CHROMIUM_ARGS, findChromium } from '../scripts/find-chromium.mjs';
import { browserEndpoint, connectCdp } from './support/cdp.js';
import { EXTENSION_DIR } from './support/extension.js';

// A tab opened BEFORE the toolwire extension was installed: Chromium starts without it, the
// page loads and registers its tools (top and a cross-origin frame), and only then is the
// built extension installed, through the DevTools protocol's `Extensions.loadUnpacked` (what
// "Load unpacked" does; Chromium needs --enable-unsafe-extension-debugging for it). Chromium
// runs no manifest content script in tabs that were already open, so the tab has no relay;
// the panel's first look at it injects them (`chrome.scripting.executeScript`, every frame)
// and lists both frames' tools without a reload.

const A = `http://localhost:${E2E_PORT}`;
const B = `http://127.0.0.1:${E2E_PORT}`;
const TOP = `${A}/e2e/pages/extension-frames/top.html`;

let context: BrowserContext | undefined;
let userDataDir = '';

test.afterEach(async () => {
  await context?.close();
  context = undefined;
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

async function tabIdOf(worker: Worker, url: string): Promise<number> {
  return worker.evaluate(async (wanted) => {
    const tabs: { id?: number; url?: string }[] = await (globalThis as any).chrome.tabs.query({});
    return tabs.find((tab) => tab.url === wanted)?.id as number;
  }, url);
}

/** Which frames of the tab run the extension's relay (its mark, in the extension's world). */
function relayMarks(worker: Worker, tabId: number): Promise<unknown[]> {
  return worker.evaluate(async (id) => {
    const results = await (globalThis as any).chrome.scripting.executeScript({
      target: { tabId: id, allFrames: true },
      func: () => (globalThis as any).toolwireRelayStarted === true,
    });
    return results.map((result: { result: unknown }) => result.result);
  }, tabId);
}

async function groups(panel: Page): Promise<[string, string[]][]> {
  return panel
    .locator('section.frame-group')
    .evaluateAll((sections) =>
      sections.map((section) => [
        (section as HTMLElement).dataset.origin as string,
        [...section.querySelectorAll('article.tool')].map(
          (article) => (article as HTMLElement).dataset.tool as string,
        ),
      ]),
    );
}

test('a tab opened before the extension was installed lists its frames’ tools on first panel use, without a reload', async () => {
  userDataDir = mkdtempSync(join(tmpdir(), 'toolwire-old-tab-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    headless: true,
    executablePath: findChromium(),
    args: [...CHROMIUM_ARGS, '--enable-unsafe-extension-debugging', '--remote-debugging-port=0'],
    ignoreDefaultArgs: ['--disable-extensions'],
  });
  const page = await context.newPage();
  await page.goto(TOP);
  await page.waitForFunction(() => (window as any).topReady === true);
  // Two frames may be there before the child has committed its URL: wait for the URL itself.
  const frameOf = () => page.frames().find((f) => f.url().startsWith(`${B}/`));
  await expect.poll(() => frameOf() !== undefined).toBe(true);
  const frame = frameOf() as Frame;
  await frame.waitForFunction(() => (window as any).frameReady === true);
  // This document is the one the panel must read: a reload would lose the mark.
  await page.evaluate(() => {
    (window as any).loadedOnce = 'before the extension';
  });
  expect(context.serviceWorkers()).toEqual([]);

  // The extension is installed now, with the tab open.
  const cdp = await connectCdp(await browserEndpoint(userDataDir));
  let extensionId: string;
  try {
    ({ id: extensionId } = await cdp.send<{ id: string }>('Extensions.loadUnpacked', {
      path: EXTENSION_DIR,
    }));
  } finally {
    cdp.close();
  }
  const worker =
    context.serviceWorkers().find((w) => w.url().includes(extensionId)) ??
    (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
  const tabId = await tabIdOf(worker, page.url());
  // The premise: no frame of the tab runs the relay (no content script ran in it).
  expect(await relayMarks(worker, tabId)).toEqual([false, false]);

  const panel = await context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?tab=${tabId}`);
  await expect
    .poll(() => groups(panel), { timeout: 15_000 })
    .toEqual([
      [A, ['shared.where', 'top.where']],
      [B, ['frame.coalesced', 'frame.where', `shared.where@${B}`]],
    ]);
  expect(await relayMarks(worker, tabId)).toEqual([true, true]);
  const tool = (name: string) => panel.locator(`article.tool[data-tool="${name}"]`);
  await tool('frame.where').locator('button.call').click();
  await expect(tool('frame.where').locator('.output pre')).toContainText(`"ranIn": "${B}"`);
  await tool('top.where').locator('button.call').click();
  await expect(tool('top.where').locator('.output pre')).toContainText(`"ranIn": "${A}"`);
  expect(await frame.evaluate(() => (window as any).ran)).toEqual(['frame.where']);
  expect(await page.evaluate(() => (window as any).ran)).toEqual(['top.where']);
  expect(await page.evaluate(() => (window as any).loadedOnce)).toBe('before the extension');

  // A second panel on the tab injects nothing more: one relay a frame, each call runs once.
  const again = await context.newPage();
  await again.goto(`chrome-extension://${extensionId}/panel.html?tab=${tabId}`);
  await expect.poll(() => groups(again), { timeout: 15_000 }).toEqual(await groups(panel));
  const second = again.locator('article.tool[data-tool="top.where"]');
  await second.locator('button.call').click();
  await expect(second.locator('.output pre')).toContainText(`"ranIn": "${A}"`);
  expect(await page.evaluate(() => (window as any).ran)).toEqual(['top.where', 'top.where']);

  // Where the browser allows no extension script, the panel says so in one line.
  const settings = await context.newPage();
  await settings.goto('chrome://version/');
  const settingsTab = await tabIdOf(worker, 'chrome://version/');
  const refused = await context.newPage();
  await refused.goto(`chrome-extension://${extensionId}/panel.html?tab=${settingsTab}`);
  await expect(refused.locator('#status')).toHaveText(
    /^page_not_scriptable: The browser does not let extensions read this page/,
  );
  await expect(refused.locator('article.tool')).toHaveCount(0);
});
