/**
 * `npx tsx demo/frames/screenshot.ts`: starts the demo's two origins, opens the frames page in
 * headless Chromium (Debian's, never a Playwright download), waits for the matrix, writes
 * demo/frames/screenshot.png (git-ignored) and prints `cells: N, matching: M, mismatching: K`.
 */
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/find-chromium.mjs';
import { startDemoServers } from '../serve.js';

const OUTPUT = fileURLToPath(new URL('./screenshot.png', import.meta.url));
const READY_TIMEOUT_MS = 60_000;
/** The matrix counts as settled once no re-render happened for this long. */
const QUIET_MS = 1_000;
const VIEWPORT = { width: 1560, height: 1000 };

const servers = await startDemoServers({ watch: false });
const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: VIEWPORT });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  await page.goto(servers.framesUrl);
  await page.waitForSelector('#matrix[data-ready="true"]', { timeout: READY_TIMEOUT_MS });
  // Late toolchange events re-render the matrix; wait until it stops changing.
  let renders = '';
  for (;;) {
    const now = await page.getAttribute('#matrix', 'data-renders');
    if (now === renders) break;
    renders = now ?? '';
    await page.waitForTimeout(QUIET_MS);
  }
  const counts = await page.evaluate(() => {
    const cells = [...document.querySelectorAll<HTMLElement>('#matrix [data-cell]')];
    const byView: Record<string, { mismatch: number; error: number }> = {};
    for (const cell of cells) {
      const view = cell.dataset.cell ?? '?';
      byView[view] ??= { mismatch: 0, error: 0 };
      if (cell.dataset.match === 'mismatch') byView[view].mismatch++;
      if (cell.dataset.match === 'error') byView[view].error++;
    }
    return {
      cells: cells.length,
      matching: cells.filter((cell) => cell.dataset.match === 'match').length,
      byView,
      errors: [
        ...new Set(
          cells
            .filter((cell) => cell.dataset.match === 'error')
            .map((cell) => `${cell.dataset.cell}: ${cell.title}`),
        ),
      ],
      strays: document.querySelector('#strays')?.textContent ?? '',
      warning: document.querySelector('#warning')?.textContent ?? '',
    };
  });
  // Grow the viewport to the whole page, then shoot it as it is: a fullPage capture resizes
  // mid-shot, and nested cross-origin frames sometimes come out blank.
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: VIEWPORT.width, height });
  await page.waitForTimeout(500);
  await page.screenshot({ path: OUTPUT });
  const mismatching = counts.cells - counts.matching;
  process.stdout.write(
    `cells: ${counts.cells}, matching: ${counts.matching}, mismatching: ${mismatching}\n`,
  );
  for (const [view, { mismatch, error }] of Object.entries(counts.byView)) {
    if (mismatch + error > 0)
      process.stdout.write(`  ${view}: ${mismatch} mismatch, ${error} failed calls\n`);
  }
  for (const error of counts.errors) process.stdout.write(`  failed call, ${error}\n`);
  if (counts.strays) process.stdout.write(`  ${counts.strays}\n`);
  if (counts.warning) process.stdout.write(`  warning: ${counts.warning}\n`);
  for (const problem of problems) process.stdout.write(`  ${problem}\n`);
  process.stdout.write(`screenshot: ${OUTPUT}\n`);

  // Liveness, after the shot: the re-run button and a toolchange each redraw the matrix.
  const rendersNow = async () => Number(await page.getAttribute('#matrix', 'data-renders'));
  const redrawn = async (action: () => Promise<unknown>) => {
    const before = await rendersNow();
    await action();
    try {
      await page.waitForFunction(
        (count) => Number(document.querySelector('#matrix')?.getAttribute('data-renders')) > count,
        before,
        { timeout: 10_000 },
      );
      return 'ok';
    } catch {
      return 'NO REDRAW';
    }
  };
  const rerun = await redrawn(() => page.click('#rerun'));
  // A string, not a function: tsx would wrap a named arrow in a helper the page lacks.
  const toolchange = await redrawn(() =>
    page.evaluate("window.toolManager.register({ name: 'late.tool', execute: () => null })"),
  );
  process.stdout.write(`live: re-run ${rerun}, toolchange ${toolchange}\n`);
} finally {
  await browser.close();
  await servers.close();
}
