import { createHmac } from 'node:crypto';
import { expect, type Page, test } from '@playwright/test';
import { createHost, type HostSession } from '../packages/host/src/index.js';
import { createNonce, secretId } from '../packages/protocol/src/index.js';
import { E2E_PORT } from '../playwright.config.js';
import { HostProcess, toolwire } from './support/cli.js';
import type { ExtensionBrowser } from './support/extension.js';
import { launchWithExtension } from './support/extension.js';
import { launchMcp } from './support/mcp.js';

// Issue 17 part 2, "Connect this tab to toolwire": the BUILT extension in Chromium, a page
// with only the toolwire polyfill (no endpoint.iife.js, no connect()) or only the browser's own
// WebMCP, and the built `toolwire` host, CLI and `toolwire mcp` as processes. The person pastes
// the address `toolwire pair --extension ID` printed in the side panel and clicks Connect; the
// host then lists and calls the tab's tools. Closing the tab ends the session and fails a
// pending call with a code.

const PAGE = `http://localhost:${E2E_PORT}/e2e/pages/connect/page.html`;

let browser: ExtensionBrowser | undefined;
let host: HostProcess | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
  await browser?.close();
  browser = undefined;
});

/** The browser with the extension, and a host process (its options). */
async function start(hostArgs: string[] = [], native = false) {
  browser = await launchWithExtension({ native });
  host = new HostProcess(hostArgs);
  await host.url();
  return { browser, host, env: host.env };
}

/** A page loaded with its tools registered, and its tab id. */
async function openTab(url = PAGE): Promise<{ page: Page; tabId: number }> {
  const current = browser as ExtensionBrowser;
  const page = await current.context.newPage();
  await page.goto(url);
  await expect(page.locator('#status')).toHaveText('ready');
  return { page, tabId: await current.tabIdOf(page) };
}

/** The side panel for `tabId`, as a tab of its own. */
async function openPanel(tabId: number): Promise<Page> {
  const panel = await (browser as ExtensionBrowser).openPanel(tabId);
  await expect(panel.locator('#connect h2')).toHaveText('Connect this tab to toolwire');
  return panel;
}

/** `toolwire pair --extension ID`, pasted in the panel, Connect clicked. */
async function connectTab(panel: Page, guard = 'read-only'): Promise<void> {
  const running = host as HostProcess;
  await expect(panel.locator('.connect-command')).toHaveText(
    `toolwire pair --extension chrome-extension://${(browser as ExtensionBrowser).extensionId}`,
  );
  const paired = await toolwire(
    ['pair', '--extension', (browser as ExtensionBrowser).extensionId],
    running.env,
  );
  expect(paired.code, paired.err).toBe(0);
  await panel.locator('#connect-pairing').fill(paired.out.trim());
  await panel.locator('#connect-guard').selectOption(guard);
  await panel.locator('#connect-button').click();
  await expect(panel.locator('.connect-status')).toHaveText(/^Connected to ws:\/\/127\.0\.0\.1:/);
}

const badge = (tabId: number) =>
  (browser as ExtensionBrowser).worker.evaluate(
    (id) => (globalThis as any).chrome.action.getBadgeText({ tabId: id }) as Promise<string>,
    tabId,
  );

async function sessions(env: Record<string, string>): Promise<any[]> {
  return JSON.parse((await toolwire(['sessions', '--json'], env)).out).sessions;
}

/**
 * Waits for `count` sessions, each a tab serving itself (the extension's delegate): after a
 * code, the worker's own session serves the tab until the tab's takes over.
 */
async function servedFromTabs(env: Record<string, string>, count = 1): Promise<void> {
  await expect
    .poll(async () => (await sessions(env)).map((one: { auth: string }) => one.auth))
    .toEqual(Array(count).fill('extension'));
}

test('a page without endpoint.iife.js answers toolwire tools, call and MCP once connected', async () => {
  const { env } = await start(['--max-tool-policy', 'write']);
  const { page, tabId } = await openTab();
  // Nothing connects by itself: the page has no endpoint.
  expect(await sessions(env)).toEqual([]);
  const panel = await openPanel(tabId);
  await connectTab(panel);
  await expect.poll(() => badge(tabId)).toBe('ON');

  // The tab serves itself once the code is spent: one session, from the page's origin.
  await expect
    .poll(async () => (await sessions(env)).map((one: { auth: string }) => one.auth))
    .toEqual(['extension']);
  const [session] = await sessions(env);
  expect(session).toMatchObject({
    origin: `http://localhost:${E2E_PORT}`,
    page: { url: PAGE, origin: `http://localhost:${E2E_PORT}`, title: 'toolwire connect e2e' },
    guard: 'read-only',
    paired: true,
    auth: 'extension',
  });

  const tools = await toolwire(['tools', '--json'], env);
  expect(tools.code, tools.err).toBe(0);
  const listed = JSON.parse(tools.out);
  expect(listed.tools.map((tool: any) => tool.id).sort()).toEqual([
    'shop.logo',
    'shop.search',
    'shop.wait',
  ]);
  // The read-only guard picked in the panel hides the write and critical tools; the host says
  // so. The page-only tool (no naturalLanguageProperties) is not offered at all.
  expect(listed.session.hidden).toEqual([
    { id: 'cart.add', policy: 'write' },
    { id: 'shop.reset', policy: 'critical' },
  ]);

  const called = await toolwire(
    ['call', 'shop.search', '--args', '{"query":"shoe"}', '--json'],
    env,
  );
  expect(called.code, called.err).toBe(0);
  expect(JSON.parse(called.out).result.result).toEqual({
    query: 'shoe',
    results: ['shoe (blue)', 'shoe (red)'],
  });
  const hidden = await toolwire(['call', 'cart.add'], env);
  expect(hidden.code).toBe(1);
  expect(hidden.err).toMatch(
    /^toolwire: tool_execution_denied: .*hidden by the page's guard \(read-only\)/,
  );
  expect(hidden.err).not.toContain('--max-tool-policy');
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
    expect(JSON.parse(answer.content[0].text)).toEqual({
      query: 'hat',
      results: ['hat (blue)', 'hat (red)'],
    });
    // The image the tab lowered arrives as MCP image content, unchanged.
    const logo: any = await mcp.client.callTool({ name: 'shop_logo', arguments: {} });
    expect(logo.content).toContainEqual(
      expect.objectContaining({ type: 'image', mimeType: 'image/png' }),
    );
  } finally {
    await mcp.close();
  }

  // Connected again with read-write (no new code: the extension's pairing): the write tool
  // runs; the tool the page declared critical stays hidden.
  await panel.locator('#connect-guard').selectOption('read-write');
  await panel.locator('#connect-button').click();
  // Connected at once with the kept pairing: the tab serves itself (no path is shown until
  // the tab's own session has been welcomed).
  await expect(panel.locator('.connect-status')).toHaveText(
    /\(read-write, served from the tab\)\.$/,
  );
  await expect.poll(async () => (await sessions(env))[0]?.guard).toBe('read-write');
  expect(await sessions(env)).toHaveLength(1);
  const added = await toolwire(['call', 'cart.add'], env);
  expect(added.code, added.err).toBe(0);
  const reset = await toolwire(['call', 'shop.reset'], env);
  expect(reset.code).toBe(1);
  expect(reset.err).toMatch(
    /^toolwire: tool_execution_denied: .*hidden by the page's guard \(read-write\)/,
  );
  const internal = await toolwire(['call', 'shop.internal'], env);
  expect(internal.code).toBe(1);
  expect(internal.err).toContain('tool_not_found');
  // The CLI's search, the MCP client's, then cart.add: nothing else ran in the page.
  expect(await page.evaluate(() => (window as any).calls)).toEqual([
    'shop.search',
    'shop.search',
    'cart.add',
  ]);
});

test('closing the tab ends its session and fails a pending call with a code, no hang', async () => {
  const { env } = await start();
  const { page, tabId } = await openTab();
  const panel = await openPanel(tabId);
  await connectTab(panel);
  await servedFromTabs(env);
  // Honest path first: the session answers.
  const ok = await toolwire(['call', 'shop.search', '--args', '{"query":"a"}'], env);
  expect(ok.code, ok.err).toBe(0);

  const pending = toolwire(['call', 'shop.wait', '--json'], env);
  await expect
    .poll(() => page.evaluate(() => (window as any).calls.includes('shop.wait')))
    .toBe(true);
  const started = Date.now();
  await page.close();
  const failed = await pending;
  // A bound, not a measure: the call fails when the tab goes, not at its own timeout.
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(failed.code).toBe(1);
  expect(JSON.parse(failed.out).error.code).toMatch(/^(tool_transport_closed|tab_gone)$/);
  await expect.poll(async () => (await sessions(env)).length).toBe(0);
  await expect(panel.locator('.connect-status')).toHaveText(/not connected/i);
});

test("Disconnect while the host's call runs in the tab aborts the page tool's signal", async () => {
  const { env } = await start();
  const { page, tabId } = await openTab();
  const panel = await openPanel(tabId);
  await connectTab(panel);
  await servedFromTabs(env);

  const pending = toolwire(['call', 'shop.wait', '--json'], env);
  await expect
    .poll(() => page.evaluate(() => (window as any).calls.includes('shop.wait')))
    .toBe(true);
  // Running, and nothing aborted it yet.
  expect(await page.evaluate(() => (window as any).aborted)).toEqual([]);
  await panel.locator('#disconnect-button').click();
  // The tab's client ended: its call still running in the tab is cancelled there, through the
  // background, the relay and the private channel, and the tool's own signal aborts.
  await page.waitForFunction(() => (window as any).aborted.length === 1);
  expect(await page.evaluate(() => (window as any).aborted)).toEqual(['AbortError']);
  const failed = await pending;
  expect(failed.code).toBe(1);
  expect(JSON.parse(failed.out).error.code).toMatch(/^(tool_transport_closed|tab_gone)$/);
});

test("a host's cancel aborts the page tool's signal in the tab, and the tool's progress reaches the host", async () => {
  browser = await launchWithExtension();
  // The host in this process: its HostSession.call takes a signal and onProgress.
  const inProcess = await createHost();
  try {
    const { page, tabId } = await openTab();
    const panel = await openPanel(tabId);
    const { url } = inProcess.extensionPairing(browser.extensionId);
    await panel.locator('#connect-pairing').fill(url);
    await panel.locator('#connect-button').click();
    await expect(panel.locator('.connect-status')).toHaveText(/^Connected to /);
    // The tab's own session (it takes over from the worker's once the code is spent).
    await expect
      .poll(() =>
        inProcess.sessions
          .find((one) => one.delegated)
          ?.tools()
          .map((tool) => tool.id),
      )
      .toContain('shop.wait');
    const session = inProcess.sessions.find((one) => one.delegated) as HostSession;

    const controller = new AbortController();
    const reports: unknown[] = [];
    const outcome = session
      .call('shop.wait', {}, { signal: controller.signal, onProgress: (r) => reports.push(r) })
      .then(
        () => ({ code: 'resolved' }),
        (error: { code?: string }) => error,
      );
    await page.waitForFunction(() => typeof (window as any).reportWait === 'function');
    // The tool reports; the report crosses the page, the extension and the socket to the host.
    await page.evaluate(() => (window as any).reportWait(1, 3, 'waiting for the courier'));
    await expect
      .poll(() => reports)
      .toEqual([{ progress: 1, total: 3, message: 'waiting for the courier' }]);
    expect(await page.evaluate(() => (window as any).aborted)).toEqual([]);

    controller.abort();
    expect(await outcome).toMatchObject({ code: 'tool_call_cancelled' });
    // session.cancel reached the extension's endpoint, whose tool aborted the tab's call: the
    // page tool's own signal aborts in the MAIN world.
    await page.waitForFunction(() => (window as any).aborted.length === 1);
    expect(await page.evaluate(() => (window as any).aborted)).toEqual(['AbortError']);
    expect(session.isOpen).toBe(true);
  } finally {
    await inProcess.close();
  }
});

test('navigating the tab ends its session; a second tab reuses the pairing', async () => {
  const { env } = await start();
  const first = await openTab();
  const panel = await openPanel(first.tabId);
  await connectTab(panel);
  await servedFromTabs(env);
  await first.page.goto(`http://127.0.0.1:${E2E_PORT}/e2e/pages/index.html`);
  await expect.poll(async () => (await sessions(env)).length).toBe(0);
  await expect.poll(() => badge(first.tabId)).toBe('');

  // Another tab: no new code, the extension's pairing with this host run is reused.
  const second = await openTab();
  const secondPanel = await openPanel(second.tabId);
  await expect(secondPanel.locator('.connect-hint')).toContainText('Paired with ws://127.0.0.1:');
  await secondPanel.locator('#connect-button').click();
  await expect(secondPanel.locator('.connect-status')).toHaveText(/^Connected to /);
  await servedFromTabs(env);
  const called = await toolwire(['call', 'shop.search', '--args', '{"query":"b"}'], env);
  expect(called.code, called.err).toBe(0);
});

test("a page with only the browser's own WebMCP answers the host once connected", async () => {
  const { env } = await start([], true);
  const { tabId } = await openTab(`http://localhost:${E2E_PORT}/e2e/pages/connect/native.html`);
  const panel = await openPanel(tabId);
  await connectTab(panel);
  await servedFromTabs(env);
  await expect
    .poll(async () => JSON.parse((await toolwire(['tools', '--json'], env)).out).tools?.length)
    .toBe(1);
  const called = await toolwire(['call', 'news.latest', '--args', '{"count":1}', '--json'], env);
  expect(called.code, called.err).toBe(0);
  expect(JSON.parse(called.out).result.result).toEqual({
    headlines: ['Native tools reach the host'],
  });
});

test("a page cannot use the extension's pairing address; the extension still can", async () => {
  const { env } = await start();
  const { page, tabId } = await openTab();
  const extensionId = (browser as ExtensionBrowser).extensionId;
  const address = (await toolwire(['pair', '--extension', extensionId], env)).out.trim();
  // The page tries it itself (a page can read anything pasted or shown in it), naming the code
  // by its id as the handshake does (docs/wire.md "The handshake").
  const named = new URL(address);
  const code = named.searchParams.get('pair') as string;
  named.searchParams.delete('pair');
  named.searchParams.set(
    'pair-id',
    secretId((key, message) => createHmac('sha256', key).update(message).digest(), code),
  );
  named.searchParams.set('nonce', createNonce());
  const refused = await page.evaluate(
    (url) =>
      new Promise<{ code: number; reason: string }>((resolve) => {
        const socket = new WebSocket(url);
        socket.onclose = (event) => resolve({ code: event.code, reason: event.reason });
      }),
    named.toString(),
  );
  expect(refused.code).toBe(4401);
  expect(refused.reason).toContain(`not for pages of http://localhost:${E2E_PORT}`);
  expect(await sessions(env)).toEqual([]);
  // Unspent: pasted in the panel, it connects the tab.
  const panel = await openPanel(tabId);
  await panel.locator('#connect-pairing').fill(address);
  await panel.locator('#connect-button').click();
  await expect(panel.locator('.connect-status')).toHaveText(/^Connected to /);
  await servedFromTabs(env);
});

test('two connected tabs that register the same tool ids are both callable over MCP', async () => {
  const { env } = await start();
  const first = await openTab();
  const second = await openTab(PAGE.replace('localhost', '127.0.0.1'));
  await connectTab(await openPanel(first.tabId));
  // The second tab: its own click, the extension's pairing reused.
  const secondPanel = await openPanel(second.tabId);
  await secondPanel.locator('#connect-button').click();
  await expect(secondPanel.locator('.connect-status')).toHaveText(/^Connected to /);
  await servedFromTabs(env, 2);

  const mcp = await launchMcp(['--attach'], env);
  try {
    const search = async () =>
      (await mcp.client.listTools()).tools.filter(
        (tool) => (tool._meta as any)?.['toolwire/tab'] && /^shop_search/.test(tool.name),
      );
    await expect.poll(async () => (await search()).length).toBe(2);
    const listed = await search();
    const names = listed.map((tool) => tool.name);
    // Unique names; each says which tab (origin) it belongs to.
    expect(new Set(names).size).toBe(2);
    expect(names).toContain('shop_search');
    const byOrigin = new Map(
      listed.map((tool) => [(tool._meta as any)['toolwire/tab'].origin as string, tool]),
    );
    expect([...byOrigin.keys()].sort()).toEqual([
      `http://127.0.0.1:${E2E_PORT}`,
      `http://localhost:${E2E_PORT}`,
    ]);
    for (const tool of listed) {
      expect(tool.description).toContain((tool._meta as any)['toolwire/tab'].origin);
    }
    // Each name reaches its own tab and only that tab.
    for (const [origin, tool] of byOrigin) {
      const answer: any = await mcp.client.callTool({
        name: tool.name,
        arguments: { query: origin },
      });
      expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
    }
    const callsIn = (page: Page) => page.evaluate(() => (window as any).calls);
    expect(await callsIn(first.page)).toEqual(['shop.search']);
    expect(await callsIn(second.page)).toEqual(['shop.search']);
    // The plain name still belongs to the tab that offered it first.
    expect((byOrigin.get(`http://localhost:${E2E_PORT}`) as any).name).toBe('shop_search');
  } finally {
    await mcp.close();
  }
});
