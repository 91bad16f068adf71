import { createHmac } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { toolwire } from './support/cli.js';
import { extensionWithHost } from './support/extension-host.js';

// A tab connected through the BUILT extension serves itself: the extension runs the tab's host
// session inside the tab (its isolated world) with a delegate of its pairing, bound to the
// page's origin, so a call goes host -> tab -> host as with the page's own endpoint. The host
// sees one session, labelled with the page's origin, marked as from the extension; calls and
// error codes are the ones the service worker's path gives. The delegate's key never reaches
// the page's own scripts; revoking the extension's pairing ends the tab's session.

const ORIGIN = `http://localhost:${E2E_PORT}`;
const PAGE = `${ORIGIN}/e2e/pages/tab-session/page.html`;
const CSP_PAGE = `${ORIGIN}/e2e/pages/tab-session/csp.html`;

const setup = extensionWithHost();
const { start, connectTab } = setup;
const openTab = (url = PAGE) => setup.openTab(url);

async function sessions(): Promise<{ origin: string; auth: string; tools: number | null }[]> {
  const listed = await toolwire(['sessions', '--json'], setup.host.env);
  expect(listed.code, listed.err).toBe(0);
  return JSON.parse(listed.out).sessions;
}

async function call(name: string, args: unknown): Promise<any> {
  const called = await toolwire(
    ['call', name, '--args', JSON.stringify(args), '--json'],
    setup.host.env,
  );
  const parsed = JSON.parse(called.out);
  return called.code === 0
    ? { ok: true, result: parsed.result.result }
    : { ok: false, code: parsed.error.code, retryable: parsed.error.retryable };
}

/** The extension's credential, as its worker keeps it (chrome.storage.session). */
async function credential(): Promise<string> {
  return setup.browser.worker.evaluate(async () => {
    const stored = await (globalThis as any).chrome.storage.session.get('toolwire.pairing');
    return stored['toolwire.pairing'].credential as string;
  });
}

const delegateOf = (secret: string, origin: string) =>
  createHmac('sha256', secret).update(`toolwire delegate\n${origin}`).digest('base64url');

test("a connected tab serves itself: one session of the page's origin, the same answers", async () => {
  await start();
  const { page, tabId } = await openTab();
  const panel = await connectTab(tabId);
  // The worker spent the code; the tab's own session then took over: one session, the page's.
  await expect
    .poll(async () =>
      (await sessions()).map(({ origin, auth, tools }) => ({ origin, auth, tools })),
    )
    .toEqual([{ origin: ORIGIN, auth: 'extension', tools: 2 }]);
  await expect(panel.locator('.connect-status')).toContainText('served from the tab');
  expect(await call('echo', { text: 'hi' })).toEqual({ ok: true, result: { text: 'hi' } });
  expect(await page.evaluate(() => (window as any).calls)).toEqual(['hi']);
  // The codes the worker's path gives (e2e/contract-roads.e2e.ts runs the whole table).
  expect(await call('fail', {})).toEqual({
    ok: false,
    code: 'tool_execution_exception',
    retryable: false,
  });
  expect(await call('echo', { text: 5 })).toMatchObject({
    ok: false,
    code: 'tool_arguments_schema_invalid',
  });
  expect(await call('nope', {})).toMatchObject({ ok: false, code: 'tool_not_found' });

  // The page's MAIN world never saw the delegate's key, nor the credential it comes from. The
  // recorder does catch what the page can see: a marker posted on its window.
  const secret = await credential();
  const key = delegateOf(secret, ORIGIN);
  await page.evaluate(() => window.postMessage({ marker: 'recorder-works' }, '*'));
  await expect.poll(() => page.evaluate(() => (window as any).seen())).toContain('recorder-works');
  const seen: string = await page.evaluate(() => (window as any).seen());
  expect(seen).not.toContain(key);
  expect(seen).not.toContain(secret);

  // A navigation ends the tab's session with its document.
  await page.goto(`${PAGE}#again`);
  await page.reload();
  await expect.poll(async () => (await sessions()).length).toBe(0);
});

test('a page that may open no socket itself is still served from inside it', async () => {
  await start();
  const { page, tabId } = await openTab(CSP_PAGE);
  // Honest check of the policy: the page's own script cannot open a socket.
  const own = await page.evaluate(
    (url) =>
      new Promise<string>((resolve) => {
        try {
          const socket = new WebSocket(url);
          socket.onopen = () => resolve('open');
          socket.onerror = () => resolve('error');
        } catch (error) {
          resolve(String(error));
        }
      }),
    (await setup.host.url()).replace(/\?.*$/, ''),
  );
  expect(own).not.toBe('open');
  await connectTab(tabId);
  // The extension's socket in the tab is not the page's: the page's policy does not apply.
  await expect
    .poll(async () => (await sessions()).map(({ origin, auth }) => ({ origin, auth })))
    .toEqual([{ origin: ORIGIN, auth: 'extension' }]);
  expect(await call('echo', { text: 'csp' })).toEqual({ ok: true, result: { text: 'csp' } });
});

test("revoking the extension's pairing ends the tab's session", async () => {
  await start();
  const { page, tabId } = await openTab();
  const panel = await connectTab(tabId);
  await expect.poll(async () => (await sessions()).map(({ auth }) => auth)).toEqual(['extension']);
  expect(await call('echo', { text: 'before' })).toEqual({ ok: true, result: { text: 'before' } });
  const pairings = JSON.parse(
    (await toolwire(['pairings', '--json'], setup.host.env)).out,
  ).pairings;
  // The extension's pairing holds the tab's session (earlier tests' pairings may be kept too).
  const mine = pairings.filter((pairing: { connected: boolean }) => pairing.connected);
  expect(mine).toMatchObject([{ kind: 'extension', sessions: [expect.any(String)] }]);
  const revoked = await toolwire(['revoke', '--pairing', mine[0].id], setup.host.env);
  expect(revoked.code, revoked.err).toBe(0);
  await expect.poll(async () => (await sessions()).length).toBe(0);
  await expect(panel.locator('.connect-status')).not.toHaveText(/^Connected/);
  // The worker forgot the revoked credential: Connect asks for a new pairing address.
  await panel.locator('#connect-button').click();
  await expect(panel.locator('.connect-status')).not.toHaveText(/^Connected/);
  expect(await sessions()).toEqual([]);
  expect(await call('echo', { text: 'after' })).toMatchObject({ ok: false });
  expect(await page.evaluate(() => (window as any).calls)).toEqual(['before']);
});
