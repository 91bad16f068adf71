import { createHmac } from 'node:crypto';
import { expect, type Page, test } from '@playwright/test';
import { WebSocket as NodeWebSocket } from 'ws';
import { createNonce, pairingPhrase, secretId } from '../packages/protocol/src/index.js';
import { E2E_PORT } from '../playwright.config.js';
import { HostProcess, toolwire } from './support/cli.js';
import type { ExtensionBrowser } from './support/extension.js';
import { launchWithExtension } from './support/extension.js';

// The extension's side panel, built, in Chromium, with the built `toolwire host` and CLI as
// processes: a pasted pairing address shows the phrase `toolwire pair --extension` printed
// beside it; Connect ignores activation for half a second after the address changes; and a
// pasted address for a tab whose connection works is tried beside it: the old session ends only
// once the new one is welcomed, and a refused new code (spent, or another extension's) leaves
// the old session serving and the extension's pairing kept. Each hostile case follows the
// honest one.

const PAGE = `http://localhost:${E2E_PORT}/e2e/pages/connect/page.html`;
const OTHER_ID = 'ponmlkjihgfedcbaponmlkjihgfedcba';

let browser: ExtensionBrowser | undefined;
let host: HostProcess | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
  await browser?.close();
  browser = undefined;
});

async function start() {
  browser = await launchWithExtension();
  host = new HostProcess([]);
  await host.url();
  const page = await browser.context.newPage();
  await page.goto(PAGE);
  await expect(page.locator('#status')).toHaveText('ready');
  const tabId = await browser.tabIdOf(page);
  const panel = await browser.openPanel(tabId);
  await expect(panel.locator('#connect h2')).toHaveText('Connect this tab to toolwire');
  return { browser, env: host.env, page, panel };
}

/** `toolwire pair --extension ID`: the address (stdout) and the phrase line (stderr). */
async function pairAddress(env: Record<string, string>, id: string) {
  const paired = await toolwire(['pair', '--extension', id], env);
  expect(paired.code, paired.err).toBe(0);
  const phrase = /^phrase: (\S+)$/m.exec(paired.err)?.[1];
  return { address: paired.out.trim(), phrase };
}

async function sessions(env: Record<string, string>): Promise<any[]> {
  return JSON.parse((await toolwire(['sessions', '--json'], env)).out).sessions;
}

/** What the extension keeps of its pairing (chrome.storage.session). */
const keptPairing = (current: ExtensionBrowser) =>
  current.worker.evaluate(async () => {
    const chrome = (globalThis as any).chrome;
    return (await chrome.storage.session.get('toolwire.pairing'))['toolwire.pairing'] ?? null;
  });

const statusOf = (panel: Page) => panel.locator('.connect-status');

/** Pastes `address` and clicks Connect once it answers; the tab is connected after. */
async function connectWith(panel: Page, address: string): Promise<void> {
  await panel.locator('#connect-pairing').fill(address);
  await panel.locator('#connect-button').click();
}

async function search(env: Record<string, string>): Promise<unknown> {
  const called = await toolwire(['call', 'shop.search', '--args', '{"query":"a"}', '--json'], env);
  expect(called.code, called.err).toBe(0);
  return JSON.parse(called.out).result.result;
}

test('the panel shows the phrase the CLI printed; Connect ignores a click in its first half second', async () => {
  const { browser: current, env, panel } = await start();
  const { address, phrase } = await pairAddress(env, current.extensionId);
  const code = new URL(address).searchParams.get('pair') as string;
  expect(phrase).toBe(pairingPhrase(code));
  // Time is the subject: the panel's clock is Playwright's, paused before the paste.
  await panel.clock.install();
  await panel.clock.pauseAt(await panel.evaluate(() => Date.now() + 1000));
  await panel.locator('#connect-pairing').fill(address);
  await expect(panel.locator('#connect-phrase')).toHaveText(
    `Check that your terminal shows: ${phrase}`,
  );
  const button = panel.locator('#connect-button');
  await expect(button).toBeDisabled(); // aria-disabled, for half a second
  await panel.evaluate(() => {
    (window as any).clicks = 0;
    document
      .querySelector('#connect-button')
      ?.addEventListener('click', () => (window as any).clicks++);
  });
  await button.click({ force: true }); // a real click, at once
  await expect(button).toBeFocused();
  await panel.keyboard.press('Enter');
  await panel.keyboard.press('Space');
  await panel.clock.runFor(499);
  await button.click({ force: true });
  expect(await panel.evaluate(() => (window as any).clicks)).toBe(4);
  expect(await sessions(env)).toEqual([]);
  // The same click half a second after the paste connects.
  await panel.clock.runFor(1);
  await expect(button).toBeEnabled();
  await button.click();
  await panel.clock.resume();
  await expect(statusOf(panel)).toHaveText(/^Connected to ws:\/\/127\.0\.0\.1:/);
  await expect.poll(async () => (await sessions(env)).length).toBe(1);
  expect(await search(env)).toEqual({ query: 'a', results: ['a (blue)', 'a (red)'] });
});

test('a new valid address replaces the connection once welcomed; the old session ends', async () => {
  const { browser: current, env, panel } = await start();
  await connectWith(panel, (await pairAddress(env, current.extensionId)).address);
  await expect(statusOf(panel)).toHaveText(/^Connected to /);
  await expect.poll(async () => (await sessions(env)).length).toBe(1);
  const [first] = await sessions(env);
  const before = await keptPairing(current);
  expect(before).not.toBeNull();

  await panel.locator('#connect-guard').selectOption('read-write');
  await connectWith(panel, (await pairAddress(env, current.extensionId)).address);
  // The new pairing's tab session took over too.
  await expect(statusOf(panel)).toHaveText(/\(read-write, served from the tab\)\.$/);
  await expect.poll(async () => (await sessions(env)).map((s) => s.id)).not.toContain(first.id);
  expect(await sessions(env)).toHaveLength(1);
  expect((await sessions(env))[0].guard).toBe('read-write');
  expect(await keptPairing(current)).not.toEqual(before);
  expect(await search(env)).toMatchObject({ query: 'a' });
});

const nodeHmac = (key: string, message: string): Uint8Array =>
  new Uint8Array(createHmac('sha256', key).update(message).digest());

for (const kind of ['spent', 'foreign'] as const) {
  test(`a refused new address (${kind} code) keeps the old session serving and the pairing kept`, async () => {
    const { browser: current, env, page, panel } = await start();
    // The honest path first: the tab connects and serves.
    await connectWith(panel, (await pairAddress(env, current.extensionId)).address);
    await expect(statusOf(panel)).toHaveText(/^Connected to /);
    await expect.poll(async () => (await sessions(env)).length).toBe(1);
    const [first] = await sessions(env);
    expect(await search(env)).toMatchObject({ query: 'a' });
    const before = await keptPairing(current);

    let bad: string;
    if (kind === 'spent') {
      bad = (await pairAddress(env, current.extensionId)).address;
      // Spent by a socket of the extension's origin: the code itself was good.
      const welcomed = await new Promise<boolean>((resolve) => {
        // Named by its id, as every client of this host names a code.
        const spent = new URL(bad);
        const code = spent.searchParams.get('pair') as string;
        spent.searchParams.delete('pair');
        spent.searchParams.set('pair-id', secretId(nodeHmac, code));
        spent.searchParams.set('nonce', createNonce());
        const socket = new NodeWebSocket(spent.toString(), {
          origin: `chrome-extension://${current.extensionId}`,
        });
        socket.on('message', (data) => {
          if (String(data).includes('session.welcome')) {
            socket.close();
            resolve(true);
          }
        });
        socket.on('close', () => resolve(false));
      });
      expect(welcomed).toBe(true);
      await expect.poll(async () => (await sessions(env)).length).toBe(1);
    } else {
      bad = (await pairAddress(env, OTHER_ID)).address;
    }
    await panel.locator('#connect-guard').selectOption('full-access');
    await connectWith(panel, bad);
    await expect(statusOf(panel)).toHaveText(
      kind === 'spent'
        ? /^The new address did not connect: .*already used.*This tab keeps its connection to ws:\/\/127\.0\.0\.1:\d+\/toolwire\. \(pairing_refused\)$/
        : /^The new address did not connect: .*not for .*This tab keeps its connection to .* \(pairing_refused\)$/,
    );
    // Nothing closed, nothing forgotten: the same session serves, the pairing is kept.
    const now = await sessions(env);
    expect(now.map((s) => s.id)).toEqual([first.id]);
    expect(now[0].guard).toBe('read-only');
    expect(await search(env)).toMatchObject({ query: 'a' });
    expect(await keptPairing(current)).toEqual(before);
    expect(await page.evaluate(() => (window as any).calls)).toEqual([
      'shop.search',
      'shop.search',
    ]);
    await expect(panel.locator('#disconnect-button')).toBeEnabled();
  });
}
