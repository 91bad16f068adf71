import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type BrowserContext,
  chromium,
  expect,
  type Page,
  test,
  type Worker,
} from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { CHROMIUM_ARGS, findChromium } from '../scripts/find-chromium.mjs';
import { HostProcess, toolwire } from './support/cli.js';
import { launchMcp } from './support/mcp.js';

// Issue 17 part 2, "Connect this tab to toolwire": the BUILT extension in Chromium, a page
// with only the toolwire polyfill (no endpoint.iife.js, no connect()), the built `toolwire`
// host, CLI and `toolwire mcp` as processes. The person pastes the address `toolwire pair
// --extension ID` printed in the side panel and clicks Connect; the host then lists and calls
// the tab's tools. Closing the tab ends the session and fails a pending call with a code.

/** The extension APIs the service worker's evaluations use (the worker has them; Node does not). */
declare const chrome: {
  tabs: { query(filter: { url: string }): Promise<{ id?: number }[]> };
  action: { getBadgeText(details: { tabId: number }): Promise<string> };
};

const EXTENSION = fileURLToPath(new URL('../packages/extension/dist-extension', import.meta.url));
const PAGE = `http://localhost:${E2E_PORT}/e2e/pages/connect/page.html`;

let context: BrowserContext;
let worker: Worker;
let extensionId: string;
let host: HostProcess | undefined;

test.beforeAll(async () => {
  if (!existsSync(`${EXTENSION}/manifest.json`)) {
    throw new Error(`Build the extension first (pnpm build): no ${EXTENSION}/manifest.json`);
  }
  context = await chromium.launchPersistentContext('', {
    executablePath: findChromium(),
    headless: true,
    args: [
      ...CHROMIUM_ARGS,
      `--disable-extensions-except=${EXTENSION}`,
      `--load-extension=${EXTENSION}`,
    ],
  });
  worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  extensionId = new URL(worker.url()).host;
});

test.afterAll(async () => {
  await context?.close();
});

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
  for (const page of context.pages()) await page.close();
});

/** The page, loaded with its tools registered, and its tab id. */
async function openShop(): Promise<{ page: Page; tabId: number }> {
  const page = await context.newPage();
  await page.goto(PAGE);
  await expect(page.locator('#status')).toHaveText('ready');
  const tabId = await worker.evaluate(async (url) => {
    const [tab] = await chrome.tabs.query({ url });
    return tab?.id ?? -1;
  }, PAGE);
  expect(tabId).toBeGreaterThan(0);
  return { page, tabId };
}

/** The side panel for `tabId`, as a tab of its own. */
async function openPanel(tabId: number): Promise<Page> {
  const panel = await context.newPage();
  await panel.goto(`chrome-extension://${extensionId}/panel.html?tab=${tabId}`);
  await expect(panel.locator('#connect h2')).toHaveText('Connect this tab to toolwire');
  return panel;
}

/** `toolwire pair --extension ID`, pasted in the panel, Connect clicked. */
async function connectTab(panel: Page, guard = 'read-only'): Promise<void> {
  const running = host as HostProcess;
  await expect(panel.locator('.connect-command')).toHaveText(
    `toolwire pair --extension chrome-extension://${extensionId}`,
  );
  const paired = await toolwire(['pair', '--extension', extensionId], running.env);
  expect(paired.code, paired.err).toBe(0);
  await panel.locator('#connect-pairing').fill(paired.out.trim());
  await panel.locator('#connect-guard').selectOption(guard);
  await panel.locator('#connect-button').click();
  await expect(panel.locator('.connect-status')).toHaveText(/^Connected to ws:\/\/127\.0\.0\.1:/);
}

const badge = (tabId: number) =>
  worker.evaluate((id) => chrome.action.getBadgeText({ tabId: id }), tabId);

async function sessions(env: Record<string, string>): Promise<any[]> {
  return JSON.parse((await toolwire(['sessions', '--json'], env)).out).sessions;
}

test('a page without endpoint.iife.js answers toolwire tools, call and MCP once connected', async () => {
  host = new HostProcess(['--max-tool-policy', 'write']);
  await host.url();
  const { env } = host;
  const { page, tabId } = await openShop();
  // Nothing connects by itself: the page has no endpoint.
  expect(await sessions(env)).toEqual([]);
  const panel = await openPanel(tabId);
  await connectTab(panel);
  await expect.poll(() => badge(tabId)).toBe('ON');

  await expect.poll(async () => (await sessions(env)).length).toBe(1);
  const [session] = await sessions(env);
  expect(session.origin).toBe(`chrome-extension://${extensionId}`);

  const tools = await toolwire(['tools', '--json'], env);
  expect(tools.code, tools.err).toBe(0);
  const listed = JSON.parse(tools.out);
  expect(listed.tools.map((tool: any) => tool.id).sort()).toEqual([
    'shop.logo',
    'shop.search',
    'shop.wait',
  ]);
  // The read-only guard picked in the panel hides the write tool; the host says so.
  expect(listed.session.hidden).toEqual([{ id: 'cart.add', policy: 'write' }]);

  const called = await toolwire(
    ['call', 'shop.search', '--args', '{"query":"shoe"}', '--json'],
    env,
  );
  expect(called.code, called.err).toBe(0);
  expect(JSON.parse(called.out).result).toEqual({
    query: 'shoe',
    results: ['shoe (blue)', 'shoe (red)'],
  });
  const hidden = await toolwire(['call', 'cart.add'], env);
  expect(hidden.code).toBe(1);
  expect(hidden.err).toContain('tool_hidden_by_page_guard');
  expect(await page.evaluate(() => (window as any).calls)).toEqual(['shop.search']);

  // An MCP client through `toolwire mcp` (attached to the running host).
  const mcp = await launchMcp(['--attach'], env);
  try {
    const { tools: mcpTools } = await mcp.client.listTools();
    const search = mcpTools.find((tool) => tool.name === 'shop_search');
    expect(search?.title).toBe('Search the shop');
    const answer: any = await mcp.client.callTool({
      name: 'shop_search',
      arguments: { query: 'hat' },
    });
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ query: 'hat' });
    // The image the tab lowered arrives as MCP image content, unchanged.
    const logo: any = await mcp.client.callTool({ name: 'shop_logo', arguments: {} });
    expect(logo.content).toContainEqual(
      expect.objectContaining({ type: 'image', mimeType: 'image/png' }),
    );
  } finally {
    await mcp.close();
  }
});

test('closing the tab ends its session and fails a pending call with a code, no hang', async () => {
  host = new HostProcess([]);
  await host.url();
  const { env } = host;
  const { page, tabId } = await openShop();
  const panel = await openPanel(tabId);
  await connectTab(panel);
  await expect.poll(async () => (await sessions(env)).length).toBe(1);
  // Honest path first: the session answers.
  const ok = await toolwire(['call', 'shop.search', '--args', '{"query":"a"}'], env);
  expect(ok.code, ok.err).toBe(0);

  const pending = toolwire(['call', 'shop.wait', '--json'], env);
  await expect.poll(() => page.evaluate(() => (window as any).calls.includes('shop.wait'))).toBe(
    true,
  );
  const started = Date.now();
  await page.close();
  const failed = await pending;
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(failed.code).toBe(1);
  expect(JSON.parse(failed.out).error.code).toMatch(/^(tool_transport_closed|tab_gone)$/);
  await expect.poll(async () => (await sessions(env)).length).toBe(0);
  await expect(panel.locator('.connect-status')).toContainText('Not connected');
});

test('navigating the tab ends its session; a second tab reuses the pairing', async () => {
  host = new HostProcess([]);
  await host.url();
  const { env } = host;
  const first = await openShop();
  const panel = await openPanel(first.tabId);
  await connectTab(panel);
  await expect.poll(async () => (await sessions(env)).length).toBe(1);
  await first.page.goto(`http://127.0.0.1:${E2E_PORT}/e2e/pages/index.html`);
  await expect.poll(async () => (await sessions(env)).length).toBe(0);
  await expect.poll(() => badge(first.tabId)).toBe('');

  // Another tab: no new code, the extension's pairing with this host run is reused.
  const second = await openShop();
  const secondPanel = await openPanel(second.tabId);
  await expect(secondPanel.locator('.connect-hint')).toContainText('Paired with ws://127.0.0.1:');
  await secondPanel.locator('#connect-button').click();
  await expect(secondPanel.locator('.connect-status')).toHaveText(/^Connected to /);
  await expect.poll(async () => (await sessions(env)).length).toBe(1);
  const called = await toolwire(['call', 'shop.search', '--args', '{"query":"b"}'], env);
  expect(called.code, called.err).toBe(0);
});
