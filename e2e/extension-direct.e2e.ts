import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { toolwire } from './support/cli.js';
import { extensionWithHost } from './support/extension-host.js';

// The direct path of the BUILT extension in Chromium: once a tab is connected, its relay hands
// the service worker a MessagePort through the extension's hidden link frame (with a nonce the
// worker gave it), and calls skip the browser's extension messaging. A page's script hunting
// for that frame, or embedding the link page itself, posts its own handoffs and is neither
// served nor told anything; handoffs that do reach the link page are refused by the worker. A
// page that removes the frame leaves the tab on the chrome.runtime path, still served. (A host's
// calls to a connected tab now run in the tab's own session, e2e/extension-tab-session.e2e.ts;
// the worker's requests to the tab, its listings and the panel's calls, take this port.)

const PAGE = `http://localhost:${E2E_PORT}/e2e/pages/direct/page.html`;

const setup = extensionWithHost();
const { start } = setup;
const openTab = (hash = '') => setup.openTab(`${PAGE}${hash}`);

/** `toolwire pair --extension ID` pasted in the tab's panel, Connect clicked, the panel closed. */
async function connectTab(tabId: number): Promise<void> {
  const panel = await setup.connectTab(tabId);
  await panel.close();
}

/** How the worker reaches the tab's top document, and the handoffs it refused so far. */
const relayPath = (tabId: number) =>
  setup.browser.worker.evaluate(
    (id) => (globalThis as any).toolwireRelayPath(id) as { path?: string; refused: number },
    tabId,
  );

async function callEcho(text: string): Promise<unknown> {
  const called = await toolwire(
    ['call', 'echo', '--args', JSON.stringify({ text }), '--json'],
    setup.host.env,
  );
  expect(called.code, called.err).toBe(0);
  return JSON.parse(called.out).result.result;
}

test("a connected tab's worker link is the direct port; a page's own handoffs are refused", async () => {
  const { browser: current } = await start();
  // Honest: a plain page, connected; the worker reaches it on the direct port (the host's calls
  // run in the tab's own session and must keep answering whatever the page posts).
  const honest = await openTab();
  await connectTab(honest.tabId);
  await expect.poll(async () => (await relayPath(honest.tabId)).path).toBe('direct');
  expect(await callEcho('first')).toEqual({ text: 'first' });
  expect(await honest.page.evaluate(() => (window as any).calls)).toEqual(['first']);
  // The link frame is gone once the port was handed over.
  expect(honest.page.frames()).toHaveLength(1);
  const refusedBefore = (await relayPath(honest.tabId)).refused;
  await honest.page.close();

  // Hostile: while the relay hands over its port, the page looks for the link frame among its
  // frames to post made-up handoffs (its own ports) to it, and embeds the link page itself at
  // the extension's static address to post such handoffs there too.
  const link = `chrome-extension://${current.extensionId}/link.html`;
  const hostile = await openTab(`#embed=${encodeURIComponent(link)}`);
  await expect.poll(() => hostile.page.evaluate(() => (window as any).embedded)).toBe(true);
  await connectTab(hostile.tabId);
  await expect.poll(async () => (await relayPath(hostile.tabId)).path).toBe('direct');
  // The page did post, and heard nothing back; none of its handoffs even reached the worker
  // (the link frame sits in a closed shadow root, outside window.frames, and the link page is
  // only served at the per-session address, not at the one the page embedded).
  expect(await hostile.page.evaluate(() => (window as any).posted)).toBeGreaterThan(0);
  expect(await hostile.page.evaluate(() => (window as any).heard)).toEqual([]);
  expect((await relayPath(hostile.tabId)).refused).toBe(refusedBefore);
  expect(await callEcho('second')).toEqual({ text: 'second' });
  expect(await hostile.page.evaluate(() => (window as any).calls)).toEqual(['second']);

  // Had a page reached the link page anyway: handoffs posted to it (the page's own ports, nonces
  // of the right shape) are passed to the worker, which refuses each, and nothing answers.
  const linkPage = await current.context.newPage();
  await linkPage.goto(link);
  const guesses = 5;
  const heard = await linkPage.evaluate(async (count) => {
    const got: unknown[] = [];
    for (let n = 0; n < count; n++) {
      const channel = new MessageChannel();
      channel.port1.onmessage = (event) => got.push(event.data);
      const nonce = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
        byte.toString(16).padStart(2, '0'),
      ).join('');
      window.postMessage({ toolwire: 'toolwire-extension-direct', nonce }, '*', [channel.port2]);
    }
    return got;
  }, guesses);
  await expect
    .poll(async () => (await relayPath(hostile.tabId)).refused)
    .toBe(refusedBefore + guesses);
  expect(heard).toEqual([]);
  // The tab's own port is untouched by all this.
  expect((await relayPath(hostile.tabId)).path).toBe('direct');
  expect(await callEcho('third')).toEqual({ text: 'third' });
  expect(await hostile.page.evaluate(() => (window as any).calls)).toEqual(['second', 'third']);
});

test('a page that removes the link frame stays connected through chrome.runtime', async () => {
  await start();
  const honest = await openTab();
  await connectTab(honest.tabId);
  await expect.poll(async () => (await relayPath(honest.tabId)).path).toBe('direct');
  expect(await callEcho('first')).toEqual({ text: 'first' });
  await honest.page.close();

  const removing = await openTab('#remove');
  await connectTab(removing.tabId);
  // The page removed the frame before it could take the port: the tab is served the old way.
  await expect.poll(() => removing.page.evaluate(() => (window as any).removed)).toBeGreaterThan(0);
  expect((await relayPath(removing.tabId)).path).toBe('runtime');
  expect(await callEcho('second')).toEqual({ text: 'second' });
  expect(await removing.page.evaluate(() => (window as any).calls)).toEqual(['second']);
  expect((await relayPath(removing.tabId)).path).toBe('runtime');
});
