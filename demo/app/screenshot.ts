/**
 * `npx tsx demo/app/screenshot.ts`: starts the demo's two origins and a host, runs the tour
 * against the app in headless Chromium (Debian's, never a Playwright download), and writes
 * demo/app/screenshot.png: the app paired, after the tour, with the session log and the agent
 * view showing.
 */
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { createHost } from '../../packages/host/src/index.js';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/find-chromium.mjs';
import { startDemoServers } from '../serve.js';
import { fitPage, SHOWCASE_VIEWPORT, showcase } from './showcase.js';

const OUTPUT = fileURLToPath(new URL('./screenshot.png', import.meta.url));

const servers = await startDemoServers({ watch: false });
const host = await createHost({ origins: [servers.originA], maxToolPolicy: 'write' });
const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: SHOWCASE_VIEWPORT });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await showcase(page, host, servers.originA);
  await fitPage(page);
  await page.screenshot({ path: OUTPUT });
  for (const problem of problems) process.stdout.write(`  ${problem}\n`);
  process.stdout.write(`screenshot: ${OUTPUT}\n`);
} finally {
  await browser.close();
  await host.close();
  await servers.close();
}
