import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import type { ExtensionBrowser } from './support/extension.js';
import { launchWithExtension } from './support/extension.js';

// Issue 17 parts 1 and 2: the BUILT toolwire extension in Chromium. Its side panel (opened as
// a tab, `panel.html?tab=ID`) lists a tab's tools through the MAIN-world reader, the isolated
// relay and the background, and calls them through forms generated from their schemas.

const A = `http://localhost:${E2E_PORT}`;
const B = `http://127.0.0.1:${E2E_PORT}`;

let browser: ExtensionBrowser | undefined;

test.afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

test("the panel lists a toolwire page's tools and its cross-origin frame's, and calls them through their forms", async () => {
  browser = await launchWithExtension();
  const page = await browser.context.newPage();
  await page.goto(`${A}/e2e/pages/extension/shop.html?panel`);
  await page.waitForFunction(() => (window as any).shopReady === true);
  const panel = await browser.openPanel(await browser.tabIdOf(page));

  const tool = (name: string) => panel.locator(`article.tool[data-tool="${name}"]`);
  // The frame's tool coalesces into the top's window.tools: listed once, with the frame's
  // origin, in that origin's group after the tab's own.
  await expect(tool('calendar.slots')).toBeVisible({ timeout: 15_000 });
  await expect(panel.locator('article.tool h3')).toHaveText([
    'cart.add',
    'chart.render',
    'orders.export',
    'calendar.slots',
  ]);
  await expect(panel.locator('.frame-origin')).toHaveText([A, `${B} (frame)`]);
  await expect(tool('calendar.slots').locator('.origin')).toHaveText(B);
  await expect(tool('cart.add').locator('.origin')).toHaveText(A);
  await expect(tool('cart.add').locator('.badges')).toContainText('toolwire');
  await expect(tool('chart.render').locator('.badges')).toContainText('read');
  await expect(tool('cart.add').locator('.tool-title')).toHaveText('Add to cart');
  await expect(panel.locator('#connect')).toHaveCount(1);

  // The generated form: text, integer, checkbox, select; required fields are checked first.
  const cart = tool('cart.add');
  await cart.locator('button.call').click();
  await expect(cart.locator('.output .error')).toHaveText('sku is required');
  await cart.locator('[data-field="sku"]').fill('A-1');
  await cart.locator('[data-field="qty"]').fill('2');
  await cart.locator('[data-field="gift"]').check();
  await cart.locator('[data-field="size"]').selectOption('M');
  await cart.locator('button.call').click();
  await expect(cart.locator('.output pre')).toContainText('"sku": "A-1"');
  // Lowered JSON: the Date is its ISO text.
  await expect(cart.locator('.output pre')).toContainText('"at": "2026-01-02T00:00:00.000Z"');
  expect(await page.evaluate(() => (window as any).calls)).toEqual([
    { sku: 'A-1', qty: 2, gift: true, size: 'M' },
  ]);

  // The JSON editor instead of the form.
  await cart.locator('button.toggle-json').click();
  await cart.locator('textarea.json-editor').fill('{"sku": "B-2", "qty": 1}');
  await cart.locator('button.call').click();
  await expect(cart.locator('.output pre')).toContainText('"sku": "B-2"');

  // The frame's tool, called across origins.
  await tool('calendar.slots').locator('button.call').click();
  await expect(tool('calendar.slots').locator('.output pre')).toContainText('14:30');

  // An image as an image, a File as a download.
  await tool('chart.render').locator('button.call').click();
  const img = tool('chart.render').locator('.output img');
  await expect(img).toHaveAttribute('src', /^data:image\/png;base64,/);
  expect(
    await img.evaluate((node: HTMLImageElement) => node.decode().then(() => node.naturalWidth)),
  ).toBe(4);
  await tool('orders.export').locator('button.call').click();
  const link = tool('orders.export').locator('.output a[download]');
  await expect(link).toHaveAttribute('download', 'orders.csv');
  expect(await link.evaluate((a: HTMLAnchorElement) => fetch(a.href).then((r) => r.text()))).toBe(
    'id,total\n1,9.5\n',
  );

  // The log keeps every call, newest first.
  await expect(panel.locator('#log li')).toHaveCount(5);
  await expect(panel.locator('#log li').first()).toContainText('orders.export');
  await expect(panel.locator('#log li.failed')).toHaveCount(0);
});

test('the panel lists a native declarative form tool and submits it through its form', async () => {
  browser = await launchWithExtension({ native: true });
  const page = await browser.context.newPage();
  await page.goto(`${A}/e2e/pages/extension/native-form.html`);
  expect(await page.evaluate(() => 'tools' in window)).toBe(false);
  const panel = await browser.openPanel(await browser.tabIdOf(page));
  const form = panel.locator('article.tool[data-tool="newsletter"]');
  await expect(form).toBeVisible({ timeout: 15_000 });
  await expect(form.locator('.badges')).toContainText('declarative');
  await expect(form.locator('.badges')).toContainText('write');
  await expect(form.locator('.description')).toHaveText('Subscribes to the newsletter.');
  await form.locator('[data-field="email"]').fill('ada@example.com');
  await form.locator('button.call').click();
  await expect(page.frameLocator('iframe[name="result"]').locator('#query')).toHaveText(
    '?email=ada%40example.com',
  );
  await expect(panel.locator('#log li')).toHaveCount(1);
});

test('a call pending when the tab navigates or closes fails with tab_gone, and the panel follows', async () => {
  browser = await launchWithExtension();
  const page = await browser.context.newPage();
  await page.goto(`${A}/e2e/pages/extension/shop.html?gone#wait`);
  const panel = await browser.openPanel(await browser.tabIdOf(page));
  const wait = panel.locator('article.tool[data-tool="order.wait"]');
  await expect(wait).toBeVisible({ timeout: 15_000 });
  await wait.locator('button.call').click();
  await expect(panel.locator('#log li.pending')).toHaveCount(1);

  // Another document in the same tab: the pending call fails, the new document's tools show.
  await page.goto(`${A}/e2e/pages/extension/hostile.html`);
  await expect(panel.locator('#log li.failed')).toContainText(
    'order.wait {} → tab_gone: The tab closed or navigated before answering.',
  );
  await expect(panel.locator('#log li')).toHaveCount(1);
  await expect(panel.locator('article.tool[data-tool="honest.echo"]')).toBeVisible();
  await expect(panel.locator('article.tool[data-tool="order.wait"]')).toHaveCount(0);

  await page.close();
  await expect(panel.locator('#status')).toHaveText('The tab closed.');
});

test("while a call runs the panel shows its progress, and Cancel aborts the page tool's signal", async () => {
  browser = await launchWithExtension();
  const page = await browser.context.newPage();
  await page.goto(`${A}/e2e/pages/extension/shop.html?slow#slow`);
  await page.waitForFunction(() => (window as any).shopReady === true);
  const panel = await browser.openPanel(await browser.tabIdOf(page));
  const slow = panel.locator('article.tool[data-tool="report.build"]');
  await expect(slow).toBeVisible({ timeout: 15_000 });
  const cancel = slow.locator('button.cancel');
  await expect(cancel).toBeHidden();

  await slow.locator('button.call').click();
  await expect(cancel).toBeVisible();
  await expect(slow.locator('button.call')).toBeDisabled();
  // No report yet: an indeterminate bar.
  const bar = slow.locator('.output progress');
  await expect(bar).toBeVisible();
  expect(await bar.evaluate((node: HTMLProgressElement) => node.position)).toBe(-1);
  await page.waitForFunction(() => typeof (window as any).reportStep === 'function');

  // The tool reports: the bar follows, with the count and the tool's message beside it.
  await page.evaluate(() => (window as any).reportStep(1, 4, 'Reading the orders'));
  await expect(slow.locator('.progress-message')).toHaveText('Reading the orders');
  await expect(slow.locator('.progress-count')).toHaveText('1/4');
  expect(await bar.evaluate((node: HTMLProgressElement) => [node.value, node.max])).toEqual([1, 4]);
  // A page's message with markup, far too long: clipped, and shown as text.
  const markup = `<img src=x onerror="document.title='pwned'">`;
  await page.evaluate((text) => (window as any).reportStep(3, 4, text + 'x'.repeat(5000)), markup);
  await expect(slow.locator('.progress-count')).toHaveText('3/4');
  const shown = (await slow.locator('.progress-message').textContent()) ?? '';
  expect(shown.startsWith(markup)).toBe(true);
  expect(shown).toHaveLength(1024);
  await expect(panel.locator('main img')).toHaveCount(0);
  expect(await panel.title()).toBe('toolwire');
  // All this while, the tool ran on: nothing aborted it.
  expect(await page.evaluate(() => (window as any).aborted)).toEqual([]);

  await cancel.click();
  // The cancel reached the MAIN world: the tool's own signal aborted.
  await page.waitForFunction(() => (window as any).aborted.length === 1);
  expect(await page.evaluate(() => (window as any).aborted)).toEqual(['AbortError']);
  await expect(slow.locator('.output .error')).toHaveText(
    'tool_call_cancelled: The caller cancelled the call.',
  );
  await expect(cancel).toBeHidden();
  await expect(slow.locator('.output progress')).toHaveCount(0);
  await expect(slow.locator('button.call')).toBeEnabled();
  await expect(panel.locator('#log li.failed')).toContainText(
    'report.build {} → tool_call_cancelled: The caller cancelled the call.',
  );
});

test("when the extension's service worker is stopped, the panel and the tab's relay connect again", async () => {
  browser = await launchWithExtension();
  const page = await browser.context.newPage();
  await page.goto(`${A}/e2e/pages/extension/hostile.html?restart`);
  const panel = await browser.openPanel(await browser.tabIdOf(page));
  const echo = panel.locator('article.tool[data-tool="honest.echo"]');
  await expect(echo).toBeVisible({ timeout: 15_000 });

  // What Chromium does to an idle worker: stop it, closing every port it held.
  const cdp = await browser.context.newCDPSession(panel);
  const statuses: string[] = [];
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const version of versions) statuses.push(version.runningStatus);
  });
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  // The panel wakes it, and it asks the tab's relay to connect again.
  await expect.poll(() => statuses.join(' ')).toMatch(/stopped.* running/);
  await expect(async () => {
    await echo.locator('.tool-form textarea').fill('{"after": "restart"}');
    await echo.locator('button.call').click();
    await expect(echo.locator('.output pre')).toContainText('"after": "restart"', {
      timeout: 2000,
    });
  }).toPass({ timeout: 15_000 });
});

test("a page cannot forge the relay's handoff or answers, nor see the real handoff; its markup stays text", async () => {
  browser = await launchWithExtension();
  const page = await browser.context.newPage();
  await page.goto(`${A}/e2e/pages/extension/hostile.html`);
  await page.waitForFunction(() => typeof (window as any).forge === 'function');
  const panel = await browser.openPanel(await browser.tabIdOf(page));
  const tool = (name: string) => panel.locator(`article.tool[data-tool="${name}"]`);

  // The honest path first: listed and called.
  await expect(tool('honest.echo')).toBeVisible({ timeout: 15_000 });
  await tool('honest.echo').locator('.tool-form textarea').fill('{"n": 1}');
  await tool('honest.echo').locator('button.call').click();
  await expect(tool('honest.echo').locator('.output pre')).toContainText('"n": 1');
  // Page text with markup is shown as text, in the tool's card, its form and its result.
  const markup = tool('markup.tool');
  await expect(markup.locator('.tool-title')).toHaveText('<b>bold</b>');
  await expect(markup.locator('.description')).toHaveText(
    `<img src=x onerror="document.title='pwned'">`,
  );
  await expect(markup.locator('label')).toHaveText('<i>field</i>');
  await markup.locator('button.call').click();
  await expect(markup.locator('.output pre')).toContainText(
    '"html": "<img src=x onerror=alert(1)>"',
  );
  await expect(panel.locator('main b, main i, main img, main script')).toHaveCount(0);
  expect(await panel.title()).toBe('toolwire');

  // The attacks: a second handoff with the page's own port, forged answers and change
  // notices on the window, a synthetic handoff event. The page has no chrome.runtime.
  expect(await page.evaluate(() => (window as any).forge())).toBe('undefined');
  await page.evaluate(() => (window as any).addLate());
  // The real channel still works and carries the page's real change...
  await expect(tool('late.tool')).toBeVisible();
  await expect(panel.locator('article.tool h3')).toHaveText([
    'honest.echo',
    'late.tool',
    'markup.tool',
  ]);
  // ...and nothing forged reached the panel; the page's port never got a request.
  await expect(tool('forged.tool')).toHaveCount(0);
  expect(await page.evaluate(() => (window as any).fakeRequests)).toBe(0);
  // Page listeners, even the earliest, never saw a handoff: the relay hides them all.
  expect(await page.evaluate(() => (window as any).sniffed)).toEqual([]);
  await tool('honest.echo').locator('button.call').click();
  await expect(panel.locator('#log li.ok')).toHaveCount(3);
});
