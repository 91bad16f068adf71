/**
 * `npx tsx --conditions=@toolwire/source demo/extension-screenshot.ts` (after `pnpm build`):
 * serves the demo on its two origins, opens the demo app in headless Chromium with the BUILT
 * toolwire extension loaded, opens the extension's side panel for the app's tab, adds a note
 * through `notes.add`'s generated form, and writes docs/assets/extension-panel.png: the app
 * and the panel side by side.
 */
import { fileURLToPath } from 'node:url';
import { launchWithExtension } from '../e2e/support/extension.js';
import { startDemoServers } from './serve.js';

const OUTPUT = fileURLToPath(new URL('../docs/assets/extension-panel.png', import.meta.url));
const servers = await startDemoServers({ watch: false });
const browser = await launchWithExtension();
try {
  const app = await browser.context.newPage();
  await app.setViewportSize({ width: 900, height: 820 });
  await app.goto(`${servers.originA}/app/`);
  const panel = await browser.openPanel(await browser.tabIdOf(app));
  await panel.setViewportSize({ width: 420, height: 820 });
  const add = panel.locator('article.tool[data-tool="notes.add"]');
  await add.waitFor({ timeout: 20_000 });
  await panel.locator('article.tool[data-tool="calendar.events"]').waitFor({ timeout: 20_000 });
  await add.locator('[data-field="text"]').fill('Call Ada about the #launch');
  await add.locator('button.call').click();
  await add.locator('.output pre').waitFor();
  // Scroll the panel so the form and its result show, as a person would after calling.
  await add.evaluate((node) => node.scrollIntoView({ block: 'start' }));
  await app.waitForTimeout(300);
  const [left, right] = await Promise.all([
    app.screenshot({ type: 'png' }),
    panel.screenshot({ type: 'png' }),
  ]);
  // Side by side, at 70%, on a page of its own.
  const frame = await browser.context.newPage();
  await frame.setViewportSize({
    width: Math.round((900 + 420) * 0.7) + 12,
    height: Math.round(820 * 0.7) + 8,
  });
  await frame.setContent(
    `<body style="margin:0;padding:4px;background:#888;display:flex;gap:4px">
      <img style="width:${900 * 0.7}px" src="data:image/png;base64,${left.toString('base64')}">
      <img style="width:${420 * 0.7}px" src="data:image/png;base64,${right.toString('base64')}">
    </body>`,
  );
  await frame.screenshot({ path: OUTPUT });
  process.stdout.write(`screenshot: ${OUTPUT}\n`);
} finally {
  await browser.close();
  await servers.close();
}
