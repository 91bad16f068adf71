import { expect, test } from '@playwright/test';
import { type DemoServers, startDemoServers } from '../demo/serve.js';

// The demo's frames page (issue 5): its live matrix, on two real origins, must agree with
// docs/browser-api.md in every cell. The page computes the expected values itself (demo/frames/expectations.ts);
// this test holds it to "no red cell, no failed call", checks what a reader sees first, and
// takes the page's screenshot (test-results/; demo/frames/screenshot.ts makes the committed one).

let servers: DemoServers;

test.beforeAll(async () => {
  // Free ports of its own (0): other suites and checkouts may be serving the demo at once.
  servers = await startDemoServers({ ports: { a: 0, b: 0 }, watch: false });
});

test.afterAll(async () => {
  await servers?.close();
});

test('the frames page matrix matches docs/browser-api.md in every cell', async ({ page }) => {
  // The whole test's bound, not a wait: more work than the default 30 s allows a busy machine.
  test.setTimeout(90_000);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(servers.framesUrl);
  await page.waitForSelector('#matrix[data-ready="true"]', { timeout: 60_000 });
  // Frames keep arriving (and re-rendering the matrix) for a moment: wait until every frame's
  // tools are in it, that is until no cell is red (a frame not heard from yet leaves its
  // tools' cells red; the bound is generous, never the thing tested).
  const matrix = () =>
    page.evaluate(() => {
      const cells = [...document.querySelectorAll<HTMLElement>('#matrix [data-cell]')];
      return {
        cells: cells.length,
        mismatch: cells
          .filter((cell) => cell.dataset.match === 'mismatch')
          .map((cell) => cell.title || cell.dataset.cell),
        error: cells
          .filter((cell) => cell.dataset.match === 'error')
          .map((cell) => cell.title || cell.dataset.cell),
      };
    });
  await expect
    .poll(
      async () => {
        const { mismatch, error } = await matrix();
        return { mismatch, error };
      },
      { timeout: 60_000 },
    )
    .toEqual({ mismatch: [], error: [] });
  const counts = await matrix();
  expect(counts.cells).toBeGreaterThan(100);
  expect(counts.mismatch).toEqual([]);
  expect(counts.error).toEqual([]);
  await expect(page.locator('h1')).toHaveText('toolwire: who sees which tool across frames');
  await expect(page.locator('#summary')).toContainText('0 mismatch');
  await expect(page.locator('#scenarios .card')).toHaveCount(6);
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: 1560, height });
  // The screenshot after the page has laid itself out at that size (two frames painted).
  await page.waitForFunction((width) => window.innerWidth === width, 1560);
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  );
  await page.screenshot({ path: test.info().outputPath('frames.png') });
  expect(problems).toEqual([]);
});
