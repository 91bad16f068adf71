import { expect, type Page, test } from '@playwright/test';
import type { Host, HostOptions, HostSession } from '../packages/host/src/index.js';
import { createHost } from '../packages/host/src/index.js';
import { pairingPhrase } from '../packages/protocol/src/index.js';
import { E2E_PORT } from '../playwright.config.js';
import { HostProcess, toolwire } from './support/cli.js';
import { clickConnect, openPaired } from './support/pairing.js';

// The page's pairing prompt, in real Chromium against a real @toolwire/host in this process:
// it shows the link's pairing phrase (the words the host printed beside the link), Connect
// ignores activation for the prompt's first half second, and a new link opened in a tab whose
// pairing works is tried beside that pairing: the old session serves until the new one is
// welcomed, and a refused new code (spent, or made for another origin) deletes nothing and
// closes nothing. Every hostile case first shows the honest path working in the same test.

const ORIGIN = `http://localhost:${E2E_PORT}`;
const OTHER_ORIGIN = `http://127.0.0.1:${E2E_PORT}`;
/** endpoint.iife.js, read-only; notes.list counts its runs in `window.ran`. */
const TOOLS = `${ORIGIN}/e2e/pages/hostile-host/tools.html`;
const PROMPT = 'Connect this tab to toolwire?';

const hosts: Host[] = [];
test.afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

async function startHost(options: HostOptions = {}): Promise<Host> {
  const host = await createHost({ origins: [ORIGIN], log: () => {}, ...options });
  hosts.push(host);
  return host;
}

const dialog = (page: Page) => page.getByRole('dialog', { name: PROMPT });
const connectButton = (page: Page) => dialog(page).getByRole('button', { name: 'Connect' });

/** The ws address a page link carries in its fragment, and its code. */
function wsOf(link: string): URL {
  return new URL(new URLSearchParams(new URL(link).hash.slice(1)).get('toolwire') as string);
}
const codeOf = (link: string) => wsOf(link).searchParams.get('pair') as string;

/** Every session `host` opens from now on, in order. */
function sessionsOf(host: Host): HostSession[] {
  const seen: HostSession[] = [];
  host.on('session', (session) => seen.push(session));
  return seen;
}

/** What the tab keeps of its pairing (sessionStorage), as text. */
const kept = (page: Page): Promise<string | null> =>
  page.evaluate(() => sessionStorage.getItem('toolwire.pairing'));
const ran = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).ran);

/** The `toolwire:` console lines of `page`. */
function consoleLines(page: Page): string[] {
  const lines: string[] = [];
  page.on('console', (message) => {
    if (message.text().startsWith('toolwire:')) lines.push(message.text());
  });
  return lines;
}

/** Opens `link` in the tab's current document (only the fragment changes: no reload). */
async function openInSameDocument(page: Page, link: string): Promise<void> {
  await page.evaluate((hash) => {
    location.hash = hash;
  }, new URL(link).hash);
}

/** A tab paired from a fresh link, and its session on the host. */
async function pairTab(page: Page, host: Host): Promise<HostSession> {
  const before = new Set(host.sessions);
  const connected = host.waitForSession({ timeoutMs: 5000, filter: (s) => !before.has(s) });
  await openPaired(page, host, TOOLS);
  return connected;
}

/** Whether `session` is still open on the host (its `closed` has not settled). */
async function isOpen(session: HostSession): Promise<boolean> {
  const marker = Symbol('open');
  return (await Promise.race([session.closed, Promise.resolve(marker)])) === marker;
}

test.describe('the prompt', () => {
  test('shows the pairing phrase the host printed for this link', async ({ page }) => {
    const host = await startHost();
    const link = host.pairingUrl(TOOLS);
    await page.goto(link);
    const phrase = pairingPhrase(codeOf(link));
    await expect(dialog(page)).toContainText(`Check that your terminal shows: ${phrase}`);
    await expect(dialog(page)).toHaveAccessibleDescription(new RegExp(`shows: ${phrase}$`));
    // Another link, other words.
    const other = host.pairingUrl(TOOLS);
    expect(pairingPhrase(codeOf(other))).not.toBe(phrase);
  });

  test('the phrase `toolwire host --page` printed (a real CLI process) is the one the prompt shows', async ({
    page,
  }) => {
    const cli = new HostProcess(['--page', TOOLS]);
    try {
      const link = await cli.pairingLink();
      const printed = /^phrase: (\S+)$/m.exec(cli.stderr)?.[1];
      expect(printed).toBe(pairingPhrase(codeOf(link)));
      await page.goto(link);
      await expect(dialog(page)).toContainText(`Check that your terminal shows: ${printed}`);
      await clickConnect(page);
      await expect(dialog(page)).toHaveCount(0);
      await expect
        .poll(
          async () => JSON.parse((await toolwire(['sessions', '--json'], cli.env)).out).sessions,
        )
        .toHaveLength(1);
    } finally {
      await cli.stop();
    }
  });

  test('Connect ignores a click and a key press in its first half second; a click after it connects', async ({
    page,
  }) => {
    const host = await startHost();
    const seen = sessionsOf(host);
    // Time is the subject: the page's clock is Playwright's, paused before the prompt shows, so
    // "at once" is exactly at once however loaded this machine is.
    await page.clock.install();
    await page.goto(TOOLS);
    await page.clock.pauseAt(await page.evaluate(() => Date.now() + 1000));
    await openInSameDocument(page, host.pairingUrl(TOOLS));
    await expect(dialog(page)).toBeVisible();
    await expect(connectButton(page)).toBeDisabled(); // aria-disabled: not armed yet
    // Count what reaches the button, so an ignored click is known to have landed.
    await page.evaluate(() => {
      const root = document.querySelector('toolwire-pairing')?.shadowRoot as ShadowRoot;
      (window as any).clicks = 0;
      root.querySelector('button.connect')?.addEventListener('click', () => {
        (window as any).clicks++;
      });
    });
    // A real mouse click at once (force: past Playwright's wait for an enabled button).
    await connectButton(page).click({ force: true });
    // The keyboard: the click left Connect focused; Enter and Space activate it.
    await expect(connectButton(page)).toBeFocused();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Space');
    await page.clock.runFor(499);
    await connectButton(page).click({ force: true });
    expect(await page.evaluate(() => (window as any).clicks)).toBe(4);
    await expect(dialog(page)).toBeVisible();
    expect(seen).toEqual([]);
    expect(await kept(page)).toBeNull();
    // Half a second after it showed: armed, and the same click connects.
    await page.clock.runFor(1);
    await expect(connectButton(page)).toBeEnabled();
    await connectButton(page).click();
    await expect(dialog(page)).toHaveCount(0);
    await page.clock.resume();
    await expect.poll(() => seen.length).toBe(1);
    expect(await page.evaluate(() => (window as any).clicks)).toBe(5);
    expect((await (seen[0] as HostSession).call('notes.list')).result).toEqual({
      ran: 'notes.list',
    });
  });
});

test.describe('a new link beside a working pairing', () => {
  test('honest: a second valid link replaces the pairing, and the old session ends once the new one is welcomed', async ({
    page,
  }) => {
    const host = await startHost();
    const first = await pairTab(page, host);
    const before = await kept(page);
    expect(before).not.toBeNull();
    const next = host.waitForSession({ timeoutMs: 5000, filter: (s) => s !== first });
    await openInSameDocument(page, host.pairingUrl(TOOLS));
    await expect(dialog(page)).toBeVisible();
    // While the prompt shows, the old session serves.
    expect((await first.call('notes.list')).result).toEqual({ ran: 'notes.list' });
    await clickConnect(page);
    const second = await next;
    expect((await first.closed).code).toBe(1000);
    expect((await second.call('notes.list')).result).toEqual({ ran: 'notes.list' });
    await expect.poll(() => kept(page)).not.toBe(before);
    expect(await ran(page)).toEqual(['notes.list', 'notes.list']);
  });

  for (const kind of ['spent', 'foreign'] as const) {
    test(`hostile (${kind} code, same document): refused, the old session still serves and the tab keeps its pairing`, async ({
      page,
      context,
    }) => {
      const host = await startHost({ origins: [ORIGIN, OTHER_ORIGIN] });
      const lines = consoleLines(page);
      // The honest path first: this tab pairs, and its session serves.
      const first = await pairTab(page, host);
      expect((await first.call('notes.list')).result).toEqual({ ran: 'notes.list' });
      const before = await kept(page);
      expect(before).not.toBeNull();
      // The bad link: a code already spent by another tab (which shows the code itself was
      // good), or one made for another origin's page.
      let bad: string;
      if (kind === 'spent') {
        bad = host.pairingUrl(TOOLS);
        const other = await context.newPage();
        const spender = host.waitForSession({ timeoutMs: 5000, filter: (s) => s !== first });
        await other.goto(bad);
        await clickConnect(other);
        await spender;
        await other.close();
      } else {
        const foreign = host.pairingUrl(`${OTHER_ORIGIN}/e2e/pages/hostile-host/tools.html`);
        bad = `${TOOLS}#toolwire=${encodeURIComponent(wsOf(foreign).toString())}`;
      }
      const refused = new Promise<void>((resolve) => {
        page.on('console', (message) => {
          if (message.text().includes('refused this tab')) resolve();
        });
      });
      await openInSameDocument(page, bad);
      await clickConnect(page);
      await refused;
      // Nothing was deleted or closed: the old session serves, the tab keeps its pairing.
      await expect.poll(() => lines.some((line) => line.includes('keeps its pairing'))).toBe(true);
      expect(await isOpen(first)).toBe(true);
      expect(host.sessions).toContain(first);
      expect((await first.call('notes.list')).result).toEqual({ ran: 'notes.list' });
      expect(await kept(page)).toBe(before);
      expect(lines).toContainEqual(
        expect.stringMatching(
          kind === 'spent' ? /refused this tab's pairing: .*already used/ : /not for pages of/,
        ),
      );
      // And a reload still reconnects with the kept pairing, no prompt.
      const resumed = host.waitForSession({ timeoutMs: 5000, filter: (s) => s !== first });
      await page.reload();
      const again = await resumed;
      await expect(dialog(page)).toHaveCount(0);
      expect((await again.call('notes.list')).result).toEqual({ ran: 'notes.list' });
    });
  }

  test('a link that comes with a load of the page: a refused code reconnects the kept pairing, a good one replaces it', async ({
    page,
    context,
  }) => {
    const host = await startHost();
    const first = await pairTab(page, host);
    const before = await kept(page);
    // Hostile: a spent code in a full load of the same tab (its sessionStorage stays).
    const spent = host.pairingUrl(TOOLS);
    const other = await context.newPage();
    await other.goto(spent);
    await clickConnect(other);
    await expect.poll(() => host.sessions.length).toBe(2);
    await other.close();
    const existing = new Set(host.sessions);
    const resumed = host.waitForSession({
      timeoutMs: 5000,
      filter: (s) => !existing.has(s) && !s.paired,
    });
    // Another query: a load of the page, not just a fragment change.
    await page.goto(`${TOOLS}?load=1${new URL(spent).hash}`);
    expect((await first.closed).code).toBe(1001); // the last document's session went with it
    await clickConnect(page);
    // Refused: the tab reconnects with the pairing it kept, which serves.
    const old = await resumed;
    expect((await old.call('notes.list')).result).toEqual({ ran: 'notes.list' });
    expect(await kept(page)).toBe(before);
    await expect
      .poll(() => page.evaluate(async () => (await (window as any).toolwire.paired)?.status))
      .toBe('open');
    // Honest: a good code the same way replaces it, once welcomed.
    const fresh = host.waitForSession({
      timeoutMs: 5000,
      filter: (s) => !existing.has(s) && s.paired,
    });
    await page.goto(`${TOOLS}?load=2${new URL(host.pairingUrl(TOOLS)).hash}`);
    await clickConnect(page);
    const replaced = await fresh;
    expect((await replaced.call('notes.list')).result).toEqual({ ran: 'notes.list' });
    await expect.poll(() => kept(page)).not.toBe(before);
  });
});
