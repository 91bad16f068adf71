import { fileURLToPath } from 'node:url';
import { expect, type Frame, type Page, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { HostProcess, toolwire } from './support/cli.js';
import type { ExtensionBrowser } from './support/extension.js';
import { launchWithExtension } from './support/extension.js';
import { launchMcp } from './support/mcp.js';
import type { StaticServer } from './support/static-server.js';
import { serveFolder } from './support/static-server.js';

// The BUILT toolwire extension in Chromium with frames: a top page (localhost) and a
// cross-origin frame (127.0.0.1, `allow="tools"`) that each register tools through
// `document.modelContext`, with toolwire's polyfill on the pages (no WebMCP flag) and again with
// the browser's own WebMCP (the flag on, no toolwire script on the pages). The panel lists each
// frame's tools under its origin, a call runs in the frame that registered the tool, and
// Connect serves each frame origin as its own session of a real `toolwire host` process.

const A = `http://localhost:${E2E_PORT}`;
const B = `http://127.0.0.1:${E2E_PORT}`;
const TOP = `${A}/e2e/pages/extension-frames/top.html`;

let browser: ExtensionBrowser | undefined;
let host: HostProcess | undefined;
let third: StaticServer | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
  await browser?.close();
  browser = undefined;
  await third?.close();
  third = undefined;
});

/** The top page and its frame, loaded with their tools registered. */
async function openFrames(
  native: boolean,
  search = '',
): Promise<{ page: Page; frame: Frame; tabId: number }> {
  browser = await launchWithExtension({ native });
  const page = await browser.context.newPage();
  const query = [native ? 'native' : '', search].filter(Boolean).join('&');
  await page.goto(query ? `${TOP}?${query}` : TOP);
  await page.waitForFunction(() => (window as any).topReady === true);
  const frame = await frameOf(page, B);
  await frame.waitForFunction(() => (window as any).frameReady === true);
  return { page, frame, tabId: await browser.tabIdOf(page) };
}

async function frameOf(page: Page, origin: string): Promise<Frame> {
  await expect.poll(() => page.frames().some((f) => f.url().startsWith(`${origin}/`))).toBe(true);
  return page.frames().find((f) => f.url().startsWith(`${origin}/`)) as Frame;
}

const ran = (where: Page | Frame) => where.evaluate(() => (window as any).ran as string[]);

/** The panel's groups: each frame origin's heading and its tools' names, in order. */
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

for (const native of [false, true]) {
  const mode = native ? 'native WebMCP' : 'the polyfill';
  test(`with ${mode}: the panel groups the tools by frame origin and runs each call in its frame`, async () => {
    const { page, frame, tabId } = await openFrames(native);
    const panel = await (browser as ExtensionBrowser).openPanel(tabId);
    const frameTools = [
      // With the polyfill, the frame's toolwire tool coalesces into the top's window.tools: it
      // is listed once, under the frame's origin.
      ...(native ? [] : ['frame.coalesced']),
      'frame.where',
      `shared.where@${B}`,
    ];
    await expect
      .poll(() => groups(panel), { timeout: 15_000 })
      .toEqual([
        [A, ['shared.where', 'top.where']],
        [B, frameTools],
      ]);
    await expect(panel.locator('.frame-origin')).toHaveText([A, `${B} (frame)`]);
    const tool = (name: string) => panel.locator(`article.tool[data-tool="${name}"]`);
    await expect(tool('frame.where').locator('.badges')).toContainText(
      native ? 'native' : 'toolwire',
    );

    // Each call runs in the frame that registered the tool, and says so.
    await tool('frame.where').locator('button.call').click();
    await expect(tool('frame.where').locator('.output pre')).toContainText(`"ranIn": "${B}"`);
    await tool(`shared.where@${B}`).locator('button.call').click();
    await expect(tool(`shared.where@${B}`).locator('.output pre')).toContainText(`"ranIn": "${B}"`);
    await tool('shared.where').locator('button.call').click();
    await expect(tool('shared.where').locator('.output pre')).toContainText(`"ranIn": "${A}"`);
    if (!native) {
      await tool('frame.coalesced').locator('button.call').click();
      await expect(tool('frame.coalesced').locator('.output pre')).toContainText(`"ranIn": "${B}"`);
    }
    expect(await ran(frame)).toEqual([
      'frame.where',
      'shared.where',
      ...(native ? [] : ['frame.coalesced']),
    ]);
    expect(await ran(page)).toEqual(['shared.where']);

    // The frame navigates to a page without tools: its group goes, the top's stays and runs.
    await page.evaluate((url) => {
      (document.getElementById('frame') as HTMLIFrameElement).src = url;
    }, `${B}/e2e/pages/index.html`);
    await expect.poll(() => groups(panel)).toEqual([[A, ['shared.where', 'top.where']]]);
    await tool('top.where').locator('button.call').click();
    await expect(tool('top.where').locator('.output pre')).toContainText(`"ranIn": "${A}"`);
    expect(await ran(page)).toEqual(['shared.where', 'top.where']);
  });
}

test("a frame's page cannot list tools under another origin's group, nor answer for another frame", async () => {
  third = await serveFolder(
    fileURLToPath(new URL('./pages/extension-frames/', import.meta.url)).replace(/\/$/, ''),
  );
  const hostileUrl = `${third.origin}/hostile.html?a=${encodeURIComponent(A)}&b=${encodeURIComponent(B)}`;
  const { page, frame, tabId } = await openFrames(
    false,
    `hostile=${encodeURIComponent(hostileUrl)}`,
  );
  const hostile = await frameOf(page, third.origin);
  await hostile.waitForFunction(() => (window as any).hostileReady === true);
  const panel = await (browser as ExtensionBrowser).openPanel(tabId);
  const tool = (name: string) => panel.locator(`article.tool[data-tool="${name}"]`);

  // The honest path: every frame's group, the hostile frame's own tool in its own group.
  await expect
    .poll(() => groups(panel), { timeout: 15_000 })
    .toEqual([
      [A, ['shared.where', 'top.where']],
      [B, ['frame.coalesced', 'frame.where', `shared.where@${B}`]],
      [third.origin, ['hostile.own']],
    ]);
  await tool('hostile.own').locator('button.call').click();
  await expect(tool('hostile.own').locator('.output pre')).toContainText(
    `"ranIn": "${third.origin}"`,
  );
  expect(await hostile.evaluate(() => (window as any).hostileCalls)).toEqual(['hostile.own']);

  // What it claimed for the other origins is nowhere: not in their groups, not in its own.
  for (const name of ['evil.in-top', 'evil.in-frame']) await expect(tool(name)).toHaveCount(0);
  await expect(panel.locator('article.tool')).toHaveCount(6);
  await expect(panel.locator('article.tool[data-tool^="top.where"]')).toHaveCount(1);
  await expect(panel.locator('article.tool[data-tool^="frame.where"]')).toHaveCount(1);

  // The names it claimed run in the frames that registered them, never in the hostile frame.
  await tool('frame.where').locator('button.call').click();
  await expect(tool('frame.where').locator('.output pre')).toContainText(`"ranIn": "${B}"`);
  await tool('top.where').locator('button.call').click();
  await expect(tool('top.where').locator('.output pre')).toContainText(`"ranIn": "${A}"`);
  expect(await ran(frame)).toEqual(['frame.where']);
  expect(await ran(page)).toEqual(['top.where']);
  // Its forged handoff to the top window got nothing: no request ever came on its port.
  expect(await hostile.evaluate(() => (window as any).hostileCalls)).toEqual(['hostile.own']);
});

async function sessions(env: Record<string, string>): Promise<any[]> {
  return JSON.parse((await toolwire(['sessions', '--json'], env)).out).sessions;
}

for (const native of [false, true]) {
  const mode = native ? 'native WebMCP' : 'the polyfill';
  test(`with ${mode}: Connect serves the frame's tools as a session of the frame's origin`, async () => {
    const { page, frame, tabId } = await openFrames(native);
    host = new HostProcess([]);
    await host.url();
    const { env } = host;
    const panel = await (browser as ExtensionBrowser).openPanel(tabId);
    await expect(panel.locator('section.frame-group')).toHaveCount(2, { timeout: 15_000 });
    const extensionId = (browser as ExtensionBrowser).extensionId;
    const paired = await toolwire(['pair', '--extension', extensionId], env);
    expect(paired.code, paired.err).toBe(0);
    await panel.locator('#connect-pairing').fill(paired.out.trim());
    await panel.locator('#connect-button').click();
    await expect(panel.locator('.connect-status')).toHaveText(/^Connected to ws:\/\/127\.0\.0\.1:/);

    // One session per frame origin, each labelled with its origin, with the tab's guard: the top
    // document serves itself (the extension's delegate, from the page's origin); the frame's
    // origin is served by the extension's worker.
    await expect
      .poll(async () => (await sessions(env)).map((session) => session.auth).sort())
      .toEqual(['extension', 'pairing']);
    const all = await sessions(env);
    const byOrigin = new Map(all.map((session) => [session.page.origin as string, session]));
    expect([...byOrigin.keys()].sort()).toEqual([B, A].sort());
    expect(byOrigin.get(A)).toMatchObject({ origin: A, auth: 'extension' });
    expect(byOrigin.get(B)).toMatchObject({
      origin: `chrome-extension://${extensionId}`,
      auth: 'pairing',
    });
    for (const session of all) {
      expect(session).toMatchObject({ guard: 'read-only', paired: true });
    }
    const frameSession = byOrigin.get(B).id as string;
    const topSession = byOrigin.get(A).id as string;

    const listed = await toolwire(['tools', '--session', frameSession, '--json'], env);
    expect(listed.code, listed.err).toBe(0);
    const tools = JSON.parse(listed.out).tools;
    expect(tools.map((tool: any) => tool.id).sort()).toEqual(
      [...(native ? [] : ['frame.coalesced']), 'frame.where', `shared.where@${B}`].sort(),
    );
    const topListed = JSON.parse(
      (await toolwire(['tools', '--session', topSession, '--json'], env)).out,
    );
    expect(topListed.tools.map((tool: any) => tool.id).sort()).toEqual([
      'shared.where',
      'top.where',
    ]);

    // `toolwire call` runs the frame's tool in the frame.
    const called = await toolwire(
      ['call', 'frame.where', '--session', frameSession, '--args', '{"note":"cli"}', '--json'],
      env,
    );
    expect(called.code, called.err).toBe(0);
    expect(JSON.parse(called.out).result.result).toEqual({
      tool: 'frame.where',
      ranIn: B,
      note: 'cli',
    });
    expect(await ran(frame)).toEqual(['frame.where']);
    expect(await ran(page)).toEqual([]);

    // An MCP client sees the frame's tool with the frame's origin, and runs it in the frame.
    const mcp = await launchMcp(['--attach'], env);
    try {
      const listedMcp = (await mcp.client.listTools()).tools;
      const whereTool = listedMcp.find((tool) => tool.name === 'frame_where');
      expect((whereTool?._meta as any)?.['toolwire/tab']?.origin).toBe(B);
      const answer: any = await mcp.client.callTool({ name: 'frame_where', arguments: {} });
      expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
      expect(JSON.parse(answer.content[0].text)).toMatchObject({ ranIn: B });
    } finally {
      await mcp.close();
    }
    expect(await ran(frame)).toEqual(['frame.where', 'frame.where']);

    // The frame goes: its session ends, the top's stays and answers.
    await page.evaluate(() => document.getElementById('frame')?.remove());
    await expect.poll(async () => (await sessions(env)).map((s) => s.page.origin)).toEqual([A]);
    const top = await toolwire(['call', 'top.where', '--session', topSession, '--json'], env);
    expect(top.code, top.err).toBe(0);
    expect(JSON.parse(top.out).result.result).toMatchObject({ ranIn: A });
  });
}

test("when the extension's service worker is stopped, every frame's relay connects again", async () => {
  const { frame, tabId } = await openFrames(false);
  const panel = await (browser as ExtensionBrowser).openPanel(tabId);
  const where = panel.locator('article.tool[data-tool="frame.where"]');
  await expect(where).toBeVisible({ timeout: 15_000 });
  // Honest path first: the frame's tool runs in the frame.
  await where.locator('button.call').click();
  await expect(where.locator('.output pre')).toContainText(`"ranIn": "${B}"`);

  // What Chromium does to an idle worker: stop it, closing every relay's port.
  const cdp = await (browser as ExtensionBrowser).context.newCDPSession(panel);
  const statuses: string[] = [];
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const version of versions) statuses.push(version.runningStatus);
  });
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  await expect.poll(() => statuses.join(' ')).toMatch(/stopped.* running/);
  // The panel wakes it; the top's relay and the frame's connect again when asked.
  await expect
    .poll(() => groups(panel), { timeout: 15_000 })
    .toEqual([
      [A, ['shared.where', 'top.where']],
      [B, ['frame.coalesced', 'frame.where', `shared.where@${B}`]],
    ]);
  await expect(async () => {
    await where.locator('button.call').click();
    await expect(where.locator('.output pre')).toContainText(`"ranIn": "${B}"`, {
      timeout: 2000,
    });
    expect((await ran(frame)).length).toBeGreaterThan(1);
  }).toPass({ timeout: 15_000 });
});
