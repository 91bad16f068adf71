import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { HostProcess, toolwire } from './support/cli.js';
import type { ExtensionBrowser } from './support/extension.js';
import { launchWithExtension } from './support/extension.js';
import { launchMcp, type McpProcess } from './support/mcp.js';
import {
  CORPUS_CASES,
  type CorpusAnswer,
  NATIVE_ERROR_CODES,
  PROVIDED_NATIVE_DIFFERENCES,
} from './support/webmcp-corpus.js';

// "Provide WebMCP on this site": the BUILT extension in Chromium WITHOUT the WebMCP flag, the
// corpus of pages written the way public WebMCP demos are (e2e/pages/webmcp-corpus/: no toolwire
// script, a feature test of document.modelContext), and the built `toolwire host`, `toolwire
// call` and `toolwire mcp --attach` as processes. Then the same pages and arguments in a
// Chromium with its own WebMCP, whose answers must match, but for the listed differences.

const A = `http://localhost:${E2E_PORT}`;
const B = `http://127.0.0.1:${E2E_PORT}`;
const corpus = (origin: string, file: string) => `${origin}/e2e/pages/webmcp-corpus/${file}`;

let browser: ExtensionBrowser | undefined;
let host: HostProcess | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
  await browser?.close();
  browser = undefined;
});

const hasModelContext = (page: Page) => page.evaluate(() => 'modelContext' in document);

/** A tab showing `url`, its id, and its panel (as a tab of its own). */
async function openWithPanel(url: string): Promise<{ page: Page; tabId: number; panel: Page }> {
  const current = browser as ExtensionBrowser;
  const page = await current.context.newPage();
  await page.goto(url);
  const tabId = await current.tabIdOf(page);
  const panel = await current.openPanel(tabId);
  return { page, tabId, panel };
}

/** A call through the panel's JSON editor: the answer as the panel shows it. */
async function panelCall(panel: Page, name: string, args: object): Promise<CorpusAnswer> {
  const tool = panel.locator(`article.tool[data-tool="${name}"]`);
  const editor = tool.locator('textarea.json-editor');
  if (await editor.isHidden()) await tool.locator('button.toggle-json').click();
  await editor.fill(JSON.stringify(args));
  await tool.locator('button.call').click();
  const shown = tool.locator('.output pre, .output p.error');
  await expect(shown).toHaveCount(1, { timeout: 15_000 });
  const text = (await shown.textContent()) ?? '';
  if ((await shown.evaluate((node) => node.localName)) === 'pre')
    return { ok: true, value: JSON.parse(text) };
  return { ok: false, code: text.slice(0, text.indexOf(':')) };
}

async function cliCall(env: Record<string, string>, name: string, args: object) {
  const run = await toolwire(['call', name, '--args', JSON.stringify(args), '--json'], env);
  const parsed = JSON.parse(run.out);
  return run.code === 0
    ? ({ ok: true, value: parsed.result?.result } as CorpusAnswer)
    : ({ ok: false, code: parsed.error?.code, message: parsed.error?.message } as CorpusAnswer);
}

async function mcpCall(mcp: McpProcess, name: string, args: object): Promise<CorpusAnswer> {
  const answer: any = await mcp.client.callTool({ name, arguments: args as never });
  if (answer.isError)
    return {
      ok: false,
      code: answer._meta?.['toolwire/code'],
      message: String(answer.content[0]?.text ?? ''),
    };
  const text = answer.content[0]?.text;
  let value: unknown = answer.structuredContent;
  if (value === undefined) {
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
  }
  return { ok: true, value };
}

/** Only what every road reports: the value, or the code. */
const plain = (answer: CorpusAnswer) =>
  answer.ok ? { ok: true, value: answer.value } : { ok: false, code: answer.code };

async function sessions(env: Record<string, string>): Promise<any[]> {
  return JSON.parse((await toolwire(['sessions', '--json'], env)).out).sessions;
}

test('a chosen site gets WebMCP: its demo-style tools are listed, and answer the same through the panel, toolwire call and MCP', async () => {
  test.setTimeout(180_000);
  browser = await launchWithExtension();
  host = new HostProcess(['--max-tool-policy', 'critical']);
  await host.url();
  const env = host.env;

  // The honest baseline: before anyone chose the site, the page has no WebMCP and the panel
  // lists nothing; the section offers the choice, off.
  const first = await openWithPanel(corpus(A, 'flights.html'));
  expect(await hasModelContext(first.page)).toBe(false);
  await expect(first.panel.locator('#status')).toHaveText('This tab has no tools.');
  await expect(first.panel.locator('#provide')).toBeVisible();
  await expect(first.panel.locator('#provide label')).toHaveText('Provide WebMCP on this site');
  await expect(first.panel.locator('.provide-origin')).toHaveText(A);
  await expect(first.panel.locator('#provide-toggle')).not.toBeChecked();
  await expect(first.panel.locator('.provide-status')).toHaveText(/^Off:/);

  // The choice: registered for exactly this origin, remembered, and the tab reloads.
  await first.panel.locator('#provide-toggle').check();
  // The panel says the tab reloaded (the polyfill must run before the page's scripts).
  await expect(first.panel.locator('.provide-status')).toHaveText(
    /^On: every page of this site gets toolwire’s WebMCP .* The tab was reloaded to apply it\.$/,
  );
  await expect(first.panel.locator('article.tool h3')).toHaveText(
    ['bookFlight', 'getBaggagePolicy', 'searchFlights'].sort(),
    { timeout: 15_000 },
  );
  expect(await hasModelContext(first.page)).toBe(true);
  const registered = await (browser as ExtensionBrowser).worker.evaluate(async () => {
    const chrome = (globalThis as any).chrome;
    return {
      scripts: await chrome.scripting.getRegisteredContentScripts(),
      stored: await chrome.storage.local.get('provide.origins'),
    };
  });
  expect(registered.stored).toEqual({ 'provide.origins': [A] });
  expect(registered.scripts).toEqual([
    expect.objectContaining({
      id: `provide:${A}`,
      js: ['content/provide.js'],
      matches: [`${A}/*`],
      world: 'MAIN',
      runAt: 'document_start',
      allFrames: true,
      persistAcrossSessions: true,
    }),
  ]);
  await expect(
    first.panel.locator('article.tool[data-tool="searchFlights"] .badges'),
  ).toContainText('read');

  // Connect the tab (read by the host and MCP) with the extension's pairing.
  const paired = await toolwire(
    ['pair', '--extension', (browser as ExtensionBrowser).extensionId],
    env,
  );
  expect(paired.code, paired.err).toBe(0);
  const connect = async (panel: Page) => {
    await panel.locator('#connect-guard').selectOption('full-access');
    await panel.locator('#connect-button').click();
    await expect(panel.locator('.connect-status')).toHaveText(/^Connected to ws:\/\/127\.0\.0\.1:/);
  };
  await first.panel.locator('#connect-pairing').fill(paired.out.trim());
  await connect(first.panel);
  await expect.poll(async () => (await sessions(env)).length).toBe(1);
  await first.page.close();
  await expect.poll(async () => (await sessions(env)).length).toBe(0);

  // Every corpus page, one tab at a time: the same answer on every road.
  const mcp = await launchMcp(['--attach'], env);
  try {
    for (const file of [...new Set(CORPUS_CASES.map((c) => c.page))]) {
      const cases = CORPUS_CASES.filter((c) => c.page === file);
      const { page, panel } = await openWithPanel(corpus(A, file));
      await expect(panel.locator('#provide-toggle')).toBeChecked();
      for (const name of new Set(cases.map((c) => c.tool)))
        await expect(panel.locator(`article.tool[data-tool="${name}"]`)).toBeVisible({
          timeout: 15_000,
        });
      await connect(panel);
      await expect.poll(async () => (await sessions(env)).length).toBe(1);
      for (const corpusCase of cases) {
        const label = `${file} ${corpusCase.tool} ${JSON.stringify(corpusCase.args)}`;
        if (corpusCase.navigates) {
          // The tool's form submits to another document: asked once, through the CLI.
          const answer = await cliCall(env, corpusCase.tool, corpusCase.args);
          expect(plain(answer), label).toEqual(corpusCase.toolwire);
          await expect(page).toHaveURL(/results\.html\?q=boots$/);
          continue;
        }
        const viaPanel = await panelCall(panel, corpusCase.tool, corpusCase.args);
        const viaCli = await cliCall(env, corpusCase.tool, corpusCase.args);
        const viaMcp = await mcpCall(mcp, corpusCase.tool, corpusCase.args);
        expect(plain(viaPanel), `${label} (panel)`).toEqual(corpusCase.toolwire);
        expect(plain(viaCli), `${label} (toolwire call)`).toEqual(corpusCase.toolwire);
        expect(plain(viaMcp), `${label} (MCP)`).toEqual(corpusCase.toolwire);
        if (corpusCase.toolwireMessage) {
          expect(viaCli.ok ? '' : viaCli.message, label).toMatch(corpusCase.toolwireMessage);
          expect(viaMcp.ok ? '' : viaMcp.message, label).toMatch(corpusCase.toolwireMessage);
        }
      }
      await page.close();
      await expect.poll(async () => (await sessions(env)).length).toBe(0);
      await panel.close();
    }
  } finally {
    await mcp.close();
  }

  // Frames: a frame of the chosen origin gets the polyfill too (allFrames), a frame of another
  // origin in the same page does not.
  const framed = await (browser as ExtensionBrowser).context.newPage();
  await framed.goto(corpus(A, 'framed.html'));
  const frameOf = async (id: string) => {
    const handle = await framed.locator(`iframe#${id}`).elementHandle();
    const frame = await handle?.contentFrame();
    await frame?.waitForLoadState('load');
    return frame as NonNullable<typeof frame>;
  };
  const same = await frameOf('same');
  const foreign = await frameOf('other');
  expect(new URL(same.url()).origin).toBe(A);
  expect(new URL(foreign.url()).origin).toBe(B);
  expect(await hasModelContext(framed)).toBe(true);
  expect(await same.evaluate(() => 'modelContext' in document)).toBe(true);
  expect(await foreign.evaluate(() => 'modelContext' in document)).toBe(false);
  await framed.close();

  // Hostile after honest: the same page on another origin nobody chose has no WebMCP, and its
  // panel lists nothing and offers the choice, off.
  const other = await openWithPanel(corpus(B, 'flights.html'));
  await expect(other.panel.locator('.provide-origin')).toHaveText(B);
  await expect(other.panel.locator('#provide-toggle')).not.toBeChecked();
  await expect(other.panel.locator('#status')).toHaveText('This tab has no tools.');
  expect(await hasModelContext(other.page)).toBe(false);
  expect(await other.page.evaluate(() => 'tools' in window)).toBe(false);
});

test("Chromium's own WebMCP answers the corpus calls as the provided polyfill does, but for the listed differences", async () => {
  test.setTimeout(120_000);
  browser = await launchWithExtension({ native: true });
  const seen = new Set<string>();
  for (const corpusCase of CORPUS_CASES) {
    const label = `${corpusCase.page} ${corpusCase.tool} ${JSON.stringify(corpusCase.args)}`;
    const page = await browser.context.newPage();
    await page.goto(corpus(A, corpusCase.page));
    const native: CorpusAnswer & { name?: string } = await page.evaluate(
      async ({ name, args, codes }) => {
        const mc = (document as any).modelContext;
        let tool: any;
        while (!tool) {
          tool = (await mc.getTools()).find((listed: any) => listed.name === name);
          if (!tool) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        try {
          const text: string | null = await mc.executeTool(tool, args, {});
          let value: unknown = text;
          try {
            value = text === null ? null : JSON.parse(text);
          } catch {
            // Text that is not JSON stays text, as the extension's reader keeps it.
          }
          return { ok: true as const, value };
        } catch (error: any) {
          return {
            ok: false as const,
            code: codes[error?.name] ?? `native ${error?.name}`,
            message: String(error?.message),
            name: error?.name,
          };
        }
      },
      { name: corpusCase.tool, args: corpusCase.args, codes: NATIVE_ERROR_CODES },
    );
    const difference = corpusCase.difference
      ? PROVIDED_NATIVE_DIFFERENCES[corpusCase.difference]
      : undefined;
    if (corpusCase.difference) seen.add(corpusCase.difference);
    if (corpusCase.difference === 'a throw names its error') {
      // Same code; the message is the difference.
      expect(plain(native), label).toEqual(corpusCase.toolwire);
      expect(native.ok ? '' : native.message, `${label}: ${difference}`).not.toMatch(
        corpusCase.toolwireMessage as RegExp,
      );
    } else if (difference) {
      expect(
        plain(native),
        `${label}: listed difference no longer differs: ${difference}`,
      ).not.toEqual(corpusCase.toolwire);
      expect(plain(native), label).toEqual(corpusCase.native);
    } else {
      expect(plain(native), label).toEqual(corpusCase.toolwire);
    }
    if (corpusCase.navigates) await expect(page).toHaveURL(/results\.html\?q=boots$/);
    await page.close();
  }
  // Every listed difference is shown by some case.
  expect([...seen].sort()).toEqual(Object.keys(PROVIDED_NATIVE_DIFFERENCES).sort());
});

test('where the browser has its own WebMCP the panel says providing is not needed, and a chosen site keeps the native one', async () => {
  browser = await launchWithExtension({ native: true });
  const { page, panel } = await openWithPanel(corpus(A, 'flights.html'));
  // The panel reads the browser's own tools, as before.
  await expect(panel.locator('article.tool h3')).toHaveText(
    ['bookFlight', 'getBaggagePolicy', 'searchFlights'].sort(),
    { timeout: 15_000 },
  );
  await expect(panel.locator('article.tool[data-tool="searchFlights"] .badges')).toContainText(
    'native',
  );
  await expect(panel.locator('.provide-status')).toHaveText(/^Not needed:/);
  await expect(panel.locator('#provide-toggle')).toBeDisabled();
  await expect(panel.locator('#provide-toggle')).not.toBeChecked();

  // Even a site chosen (as on a browser without WebMCP, then the flag turned on): the provider
  // leaves the browser's own modelContext alone and installs nothing.
  await (browser as ExtensionBrowser).worker.evaluate(async (origin) => {
    const chrome = (globalThis as any).chrome;
    await chrome.storage.local.set({ 'provide.origins': [origin] });
    await chrome.scripting.registerContentScripts([
      {
        id: `provide:${origin}`,
        js: ['content/provide.js'],
        matches: [`${origin}/*`],
        world: 'MAIN',
        runAt: 'document_start',
        allFrames: true,
        persistAcrossSessions: true,
      },
    ]);
  }, A);
  await page.reload();
  await expect(panel.locator('#provide-toggle')).toBeChecked();
  await expect(panel.locator('.provide-status')).toHaveText(/providing is not needed/);
  await expect(panel.locator('article.tool h3')).toHaveCount(3, { timeout: 15_000 });
  expect(await page.evaluate(() => 'tools' in window || 'toolManager' in window)).toBe(false);
  await expect(panel.locator('article.tool[data-tool="searchFlights"] .badges')).toContainText(
    'native',
  );
  // It can be turned off.
  await expect(panel.locator('#provide-toggle')).toBeEnabled();
  await panel.locator('#provide-toggle').uncheck();
  await expect(panel.locator('.provide-status')).toHaveText(
    /^Not needed: .* The tab was reloaded to apply it\.$/,
  );
  await expect(panel.locator('#provide-toggle')).not.toBeChecked();
  await expect(panel.locator('#provide-toggle')).toBeDisabled();
  await expect
    .poll(() =>
      (browser as ExtensionBrowser).worker.evaluate(
        async () =>
          (await (globalThis as any).chrome.scripting.getRegisteredContentScripts()).length,
      ),
    )
    .toBe(0);
});

test('the choice survives a browser restart, and turning it off forgets it', async () => {
  const profile = mkdtempSync(join(tmpdir(), 'toolwire-provide-profile-'));
  try {
    browser = await launchWithExtension({ userDataDir: profile });
    const before = await openWithPanel(corpus(A, 'todos.html'));
    expect(await hasModelContext(before.page)).toBe(false);
    await before.panel.locator('#provide-toggle').check();
    await expect(before.panel.locator('article.tool h3')).toHaveText(
      ['addTodo', 'listTodos', 'removeTodo'],
      { timeout: 15_000 },
    );
    await browser.close();

    // The same profile, a new browser process: the site is still chosen, its page is provided
    // from its first load, and the panel lists its tools without another choice.
    browser = await launchWithExtension({ userDataDir: profile });
    // Launched with --load-extension, this Chromium starts the extension without its dynamic
    // registrations; the worker's reconcile restores them from storage as it starts. Wait for
    // that, then load the page.
    const worker = (browser as ExtensionBrowser).worker;
    await expect
      .poll(
        () =>
          worker.evaluate(
            async () =>
              (await (globalThis as any).chrome.scripting.getRegisteredContentScripts()).length,
          ),
        {
          timeout: 15_000,
        },
      )
      .toBe(1);
    const after = await openWithPanel(corpus(A, 'todos.html'));
    expect(await hasModelContext(after.page)).toBe(true);
    await expect(after.panel.locator('#provide-toggle')).toBeChecked();
    await expect(after.panel.locator('article.tool h3')).toHaveText(
      ['addTodo', 'listTodos', 'removeTodo'],
      { timeout: 15_000 },
    );

    // Off: unregistered, forgotten, the tab reloaded without WebMCP; still so after a restart.
    await after.panel.locator('#provide-toggle').uncheck();
    await expect(after.panel.locator('.provide-status')).toHaveText(
      /^Off: .* The tab was reloaded to apply it\.$/,
    );
    await expect(after.panel.locator('#status')).toHaveText('This tab has no tools.');
    expect(await hasModelContext(after.page)).toBe(false);
    await browser.close();
    browser = await launchWithExtension({ userDataDir: profile });
    const again = await openWithPanel(corpus(A, 'todos.html'));
    expect(await hasModelContext(again.page)).toBe(false);
    await expect(again.panel.locator('#provide-toggle')).not.toBeChecked();
    expect(
      await browser.worker.evaluate(async () => {
        const chrome = (globalThis as any).chrome;
        return {
          scripts: await chrome.scripting.getRegisteredContentScripts(),
          stored: await chrome.storage.local.get('provide.origins'),
        };
      }),
    ).toEqual({ scripts: [], stored: { 'provide.origins': [] } });
  } finally {
    await browser?.close();
    browser = undefined;
    rmSync(profile, { recursive: true, force: true });
  }
});

test('when the service worker starts, registrations are made to match the chosen sites', async () => {
  browser = await launchWithExtension();
  const current = browser;
  const { page, panel } = await openWithPanel(corpus(A, 'flights.html'));
  await panel.locator('#provide-toggle').check();
  await expect(panel.locator('article.tool h3')).toHaveCount(3, { timeout: 15_000 });
  const registrations = async () => {
    // The newest worker: a stopped one's handle is gone.
    const worker = current.context.serviceWorkers().at(-1);
    return (await worker?.evaluate(async () =>
      (
        await (globalThis as any).chrome.scripting.getRegisteredContentScripts()
      )
        .map((script: { id: string }) => script.id)
        .sort(),
    )) as string[];
  };
  expect(await registrations()).toEqual([`provide:${A}`]);

  // Out of step: the chosen site's registration lost, one for a site nobody chose added.
  await current.worker.evaluate(async (other) => {
    const chrome = (globalThis as any).chrome;
    await chrome.scripting.unregisterContentScripts();
    await chrome.scripting.registerContentScripts([
      {
        id: `provide:${other}`,
        js: ['content/provide.js'],
        matches: [`${other}/*`],
        world: 'MAIN',
        runAt: 'document_start',
        allFrames: true,
        persistAcrossSessions: true,
      },
    ]);
  }, B);
  expect(await registrations()).toEqual([`provide:${B}`]);

  // Chromium stops the idle worker; the panel wakes it, and it reconciles as it starts.
  const cdp = await current.context.newCDPSession(panel);
  const statuses: string[] = [];
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const version of versions) statuses.push(version.runningStatus);
  });
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  await expect.poll(() => statuses.join(' ')).toMatch(/stopped.* running/);
  await expect
    .poll(() => registrations().catch(() => []), { timeout: 15_000 })
    .toEqual([`provide:${A}`]);
  await page.reload();
  expect(await hasModelContext(page)).toBe(true);
  const other = await current.context.newPage();
  await other.goto(corpus(B, 'flights.html'));
  expect(await hasModelContext(other)).toBe(false);
});

test("a chosen page cannot steer the provided polyfill into fetching code, nor reach the extension's files", async () => {
  browser = await launchWithExtension();
  const { page, panel } = await openWithPanel(`${A}/e2e/pages/extension/provide-hostile.html`);
  await panel.locator('#provide-toggle').check();
  await expect(panel.locator('article.tool h3')).toHaveText(['echo', 'subscribe'], {
    timeout: 15_000,
  });
  // Every request the page makes from here on.
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  // Honest first: the tools answer, checked by the validator and run by the form tools'
  // code, both of which a split page script would have fetched by URL on first use.
  expect(await panelCall(panel, 'echo', { word: 'hello' })).toEqual({
    ok: true,
    value: { word: 'hello' },
  });
  expect(await panelCall(panel, 'echo', { word: 'Hello!' })).toEqual({
    ok: false,
    code: 'tool_arguments_schema_invalid',
  });
  expect(await panelCall(panel, 'subscribe', { email: 'ada@example.com' })).toEqual({
    ok: true,
    value: { subscribed: true },
  });
  // The page's switches and <base> steered nothing: no script was fetched, from anywhere.
  expect(requests.filter((url) => !url.startsWith('data:'))).toEqual([]);
  expect(
    await page.evaluate(() => (window as any).__TOOLWIRE_IIFE__),
    'the page did set its switch',
  ).toBe('split');
  // The extension lists no web-accessible resources: the page cannot load its files.
  expect(
    await page.evaluate(
      (id) => (window as any).probe(id),
      (browser as ExtensionBrowser).extensionId,
    ),
  ).toMatch(/^refused: /);
});
