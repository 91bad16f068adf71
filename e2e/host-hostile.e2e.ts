import { createHmac } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type BrowserContext,
  expect,
  type Frame,
  type Page,
  test,
  type WebSocketRoute,
} from '@playwright/test';
import { WebSocketServer } from 'ws';
import type { Host, HostOptions, HostSession } from '../packages/host/src/index.js';
import { createHost } from '../packages/host/src/index.js';
import {
  createNonce,
  hostProof,
  pairingPhrase,
  SESSION_CLOSE,
  secretId,
  sessionWelcome,
} from '../packages/protocol/src/index.js';
import { E2E_PORT } from '../playwright.config.js';
import { clickConnect, openPaired, withConnectUrl } from './support/pairing.js';

// Pairing and trust, tried as an attacker would (issue 13 "Tests"): real Chromium, a real
// @toolwire/host in this process, an evil WebSocket server where one is needed, and crafted
// links. Links to other machines go through Playwright's WebSocket routing, so no traffic
// leaves this one. Every attack test first proves that the honest path works in the same test
// (the same page pairs, the same host answers), so none passes merely because nothing connected.

const ORIGIN = `http://localhost:${E2E_PORT}`;
const OTHER_ORIGIN = `http://127.0.0.1:${E2E_PORT}`;
/** endpoint.iife.js with data-toolwire-guard="read-only"; notes.list (read), notes.add (write), notes.delete (critical). */
const TOOLS = `${ORIGIN}/e2e/pages/hostile-host/tools.html`;
/** The same tools under data-toolwire-guard="full-access". */
const FULL = `${ORIGIN}/e2e/pages/hostile-host/full.html`;
/** endpoint.iife.js with data-toolwire-hosts="evil.example". */
const HOSTS = `${ORIGIN}/e2e/pages/hostile-host/hosts.html`;
const PLAIN = `${ORIGIN}/e2e/pages/host/iife.html`;
/** A page whose own code connects (guard full-access; ?changedDelay= sets the push debounce). */
const OWN_CODE = `${ORIGIN}/e2e/pages/host/page.html`;
/** A top page whose own code connects, pushing late, with a child frame offering child.swap. */
const FRAME_TOP = `${ORIGIN}/e2e/pages/hostile-host/frame-top.html`;
/** A page of the other origin that frames the address in its fragment. */
const FRAMER = `${OTHER_ORIGIN}/e2e/pages/hostile-host/framer.html`;
const PROMPT = 'Connect this tab to toolwire?';

const nodeHmac = (key: string, message: string): Uint8Array =>
  createHmac('sha256', key).update(message).digest();
const idOf = (secret: string) => secretId(nodeHmac, secret);

/** A welcome proving its sender holds `key`, for a socket the page dialed at `url` (port `port`). */
function provenWelcome(url: string, key: string, port: number | string, sessionId: string) {
  const pageNonce = new URL(url, 'ws://x').searchParams.get('nonce') ?? '';
  const hostNonce = createNonce();
  return sessionWelcome({
    sessionId,
    hostRun: 'evil',
    maxToolPolicy: 'read',
    heartbeatIntervalMs: 200,
    proof: { nonce: hostNonce, mac: hostProof(nodeHmac, key, { pageNonce, hostNonce, port }) },
  });
}

const hosts: Host[] = [];
const servers: WebSocketServer[] = [];
let hostLog: string[] = [];

test.afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
  for (const server of servers.splice(0)) {
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => server.close(resolve));
  }
  hostLog = [];
});

async function startHost(options: HostOptions = {}): Promise<Host> {
  const host = await createHost({
    origins: [ORIGIN],
    log: (line) => hostLog.push(line),
    ...options,
  });
  hosts.push(host);
  return host;
}

/** Every session a host opens, in order. */
function sessionsOf(host: Host): HostSession[] {
  const seen: HostSession[] = [];
  host.on('session', (session) => seen.push(session));
  return seen;
}

/** The `toolwire:` console lines of `page` (what a person at the page is told). */
function consoleLines(page: Page): string[] {
  const lines: string[] = [];
  page.on('console', (message) => {
    if (message.text().startsWith('toolwire:')) lines.push(message.text());
  });
  return lines;
}

/**
 * The `toolwire:` lines `where` logged before now, once it decided whether to pair: a line of
 * our own is logged after that decision, and console messages are reported in order, so every
 * line the decision produced is before it. (Taken out of `lines` again.)
 */
async function linesByNow(where: Page | Frame, lines: string[]): Promise<string[]> {
  const mark = `toolwire: barrier ${Math.random()}`;
  await where.evaluate(async (text) => {
    await (window as any).toolwire?.paired;
    console.warn(text);
  }, mark);
  await expect.poll(() => lines.includes(mark)).toBe(true);
  const before = lines.slice(0, lines.indexOf(mark));
  lines.splice(lines.indexOf(mark), 1);
  return before;
}

/** The status of the session endpoint.iife.js paired (`closed`: gone, and no retry to come). */
const statusOf = (page: Page): Promise<string | undefined> =>
  page.evaluate(() => (window as any).toolwire.session?.status);

/** Whether endpoint.iife.js paired this tab (resolves once it decided). */
function paired(page: Page): Promise<boolean> {
  return page.evaluate(async () => (await (window as any).toolwire.paired) !== undefined);
}

const ran = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).ran);
const ids = (session: HostSession) => session.tools().map((tool) => tool.id);
const linkTo = (page: string, ws: string) => `${page}#toolwire=${encodeURIComponent(ws)}`;
const dialog = (page: Page) => page.getByRole('dialog', { name: PROMPT });

/** The ws address a pairing link carries. */
function wsOf(link: string): URL {
  return new URL(new URLSearchParams(new URL(link).hash.slice(1)).get('toolwire') as string);
}

/** A tab that pairs with `host` from a fresh link and reaches its first catalog. */
async function pairTab(page: Page, host: Host, url = TOOLS): Promise<HostSession> {
  const before = new Set(host.sessions);
  const connected = host.waitForSession({
    timeoutMs: 5000,
    filter: (session) => !before.has(session),
  });
  await openPaired(page, host, url);
  return connected;
}

// ---- 1. where a link may connect -------------------------------------------------------------

test.describe('where a link may connect', () => {
  /** Routed (fake) sockets by URL: nothing goes to the network. */
  async function routeSockets(context: BrowserContext, names: string[], code?: string) {
    const routed: { url: string; frames: string[] }[] = [];
    await context.routeWebSocket(
      (url) => names.includes(url.hostname),
      (ws: WebSocketRoute) => {
        const entry = { url: ws.url(), frames: [] as string[] };
        routed.push(entry);
        ws.onMessage((message) => entry.frames.push(String(message)));
        // Standing in for the host the link names: it holds the link's code, so it proves.
        if (code) {
          const url = new URL(ws.url());
          ws.send(JSON.stringify(provenWelcome(ws.url(), code, url.port || '80', 'routed')));
        }
      },
    );
    return routed;
  }

  /** The socket address with its nonce left out (every socket has a fresh one). */
  const withoutNonce = (url: string | undefined) => {
    const parsed = new URL(url ?? '');
    parsed.searchParams.delete('nonce');
    return parsed.toString();
  };

  test('a link to another machine never connects; the page allowing that host does, after the click', async ({
    page,
    context,
  }) => {
    const routed = await routeSockets(context, ['evil.example'], 'abc');
    const evil = '#toolwire=ws%3A%2F%2Fevil.example%2Fx%3Fpair%3Dabc';
    // The honest path: a page whose own markup allows evil.example pairs with it once asked.
    const allowing = await context.newPage();
    await allowing.goto(`${HOSTS}${evil}`);
    await expect(dialog(allowing)).toContainText('ws://evil.example/x');
    expect(routed).toEqual([]);
    await clickConnect(allowing);
    await expect.poll(() => routed.length).toBe(1);
    expect(withoutNonce(routed[0]?.url)).toBe(`ws://evil.example/x?pair-id=${idOf('abc')}`);
    await expect.poll(() => routed[0]?.frames.some((f) => f.includes('"session.open"'))).toBe(true);
    await allowing.close();
    // The attack: the same link on a page that allows no other host.
    const lines = consoleLines(page);
    await page.goto(`${PLAIN}${evil}`);
    await expect
      .poll(() => lines)
      .toEqual([
        'toolwire: not connecting to evil.example: a link pairs only with this machine (localhost, 127.0.0.1, [::1]) unless the page allows the host (data-toolwire-hosts).',
      ]);
    await expect(dialog(page)).toHaveCount(0);
    expect(await paired(page)).toBe(false);
    // The link left the address bar all the same.
    expect(await page.evaluate(() => location.href)).toBe(PLAIN);
    expect(await linesByNow(page, lines)).toHaveLength(1); // still one line
    expect(routed).toHaveLength(1);
  });

  test('loopback names pair: localhost and 127.0.0.1 with a real host, [::1] routed', async ({
    page,
    context,
  }) => {
    const host = await startHost();
    const seen = sessionsOf(host);
    for (const name of ['127.0.0.1', 'localhost']) {
      const link = new URL(host.pairingUrl(TOOLS));
      const ws = wsOf(link.toString());
      ws.hostname = name;
      await page.goto(linkTo(`${TOOLS}?via=${name}`, ws.toString()));
      await expect(dialog(page)).toContainText(`ws://${name}:${host.port}/toolwire`);
      await clickConnect(page);
      await expect.poll(() => seen.length, name).toBe(name === 'localhost' ? 2 : 1);
    }
    expect(seen.map((session) => session.origin)).toEqual([ORIGIN, ORIGIN]);
    const routed = await routeSockets(context, ['[::1]']);
    await page.goto(linkTo(`${PLAIN}?via=ipv6`, 'ws://[::1]:9/toolwire?pair=abc'));
    await clickConnect(page);
    await expect
      .poll(() => routed.map((r) => withoutNonce(r.url)))
      .toEqual([`ws://[::1]:9/toolwire?pair-id=${idOf('abc')}`]);
  });
});

test.describe('a link inside a frame', () => {
  test('another site framing the page with a pairing link gets no prompt to click, and no session', async ({
    page,
    context,
  }) => {
    const host = await startHost();
    const seen = sessionsOf(host);
    // The honest path: the same kind of link, opened in its own tab, pairs.
    const honest = await context.newPage();
    await pairTab(honest, host);
    await honest.close();
    // The attack: a page of another origin frames it with a fresh link (clickjacking the prompt).
    const lines = consoleLines(page); // a frame's console included
    await page.goto(`${FRAMER}#${encodeURIComponent(host.pairingUrl(TOOLS))}`);
    await expect.poll(() => page.frames().length).toBe(2);
    const victim = page.frames()[1] as Frame;
    await victim.waitForFunction(() => (window as any).toolwire !== undefined);
    expect(
      await victim.evaluate(async () => (await (window as any).toolwire.paired) !== undefined),
    ).toBe(false);
    await expect(page.frameLocator('#victim').getByRole('dialog', { name: PROMPT })).toHaveCount(0);
    await expect
      .poll(() => lines)
      .toEqual([
        'toolwire: not pairing from a link inside a frame (another page could cover the prompt); open the link in its own tab.',
      ]);
    expect(await linesByNow(victim, lines)).toHaveLength(1); // still one line
    expect(seen).toHaveLength(1);
  });
});

// ---- 2. what a link cannot carry ---------------------------------------------------------------

test.describe('what a link cannot carry', () => {
  test('a link with the long-lived token is refused with one console line; the token itself is good', async ({
    page,
    context,
  }) => {
    const host = await startHost({ maxToolPolicy: 'critical' });
    const seen = sessionsOf(host);
    // The honest path: this page pairs with this host from a pairing link.
    const honest = await context.newPage();
    await pairTab(honest, host);
    // And the token works, for a page whose own code connects with it.
    const own = await context.newPage();
    await own.goto(withConnectUrl(host, OWN_CODE));
    await expect.poll(() => seen.length).toBe(2);
    await own.close();
    await honest.close();
    // The attack: the same token in a link.
    const lines = consoleLines(page);
    await page.goto(linkTo(TOOLS, host.url));
    await expect
      .poll(() => lines)
      .toEqual([
        'toolwire: this link carries no pairing code (a long-lived token in a link is refused); ask the host for a new link (toolwire pair).',
      ]);
    await expect(dialog(page)).toHaveCount(0);
    expect(await paired(page)).toBe(false);
    expect(await linesByNow(page, lines)).toHaveLength(1); // still one line
    expect(seen).toHaveLength(2);
    expect(hostLog.filter((line) => line.startsWith('refused'))).toEqual([]);
    expect(await page.evaluate(() => location.hash)).toBe('');
  });

  test('toolwire-guard=full-access in a link changes nothing: the script tag says read-only', async ({
    page,
  }) => {
    const host = await startHost({ maxToolPolicy: 'critical' });
    await page.goto(`${host.pairingUrl(TOOLS)}&toolwire-guard=full-access`);
    // The prompt names the page's guard, not the link's.
    await expect(dialog(page)).toContainText('read-only tools');
    await expect(dialog(page)).not.toContainText('critical');
    const connected = host.waitForSession({ timeoutMs: 5000 });
    await clickConnect(page);
    const session = await connected;
    await expect.poll(() => session.pageGuard?.preset).toBe('read-only');
    expect(await page.evaluate(() => location.hash)).toBe('');
    // The honest path: the page's read tool runs.
    expect((await session.call('notes.list')).result).toEqual({ ran: 'notes.list' });
    // The write and critical tools stay hidden, and a call to them does not run.
    expect(ids(session)).not.toContain('notes.add');
    expect(session.pageGuard).toMatchObject({
      maxPolicy: 'read',
      hidden: expect.arrayContaining([
        { id: 'notes.add', policy: 'write' },
        { id: 'notes.delete', policy: 'critical' },
      ]),
    });
    // The host refuses them before sending, and the page refuses a request that skips that
    // check: the same code, the same `deniedBy`, on both.
    for (const id of ['notes.add', 'notes.delete']) {
      await expect(session.call(id)).rejects.toMatchObject({
        code: 'tool_execution_denied',
        retryable: false,
        details: { deniedBy: 'page-guard', toolId: id, guard: 'read-only' },
      });
      const raw = await session.request('tool.call', { toolId: id });
      expect(raw.payload).toMatchObject({
        code: 'tool_execution_denied',
        retryable: false,
        details: { deniedBy: 'page-guard', maxPolicy: 'read' },
      });
    }
    expect(await ran(page)).toEqual(['notes.list']);
  });
});

// ---- 3. the prompt ----------------------------------------------------------------------------

test.describe('a link never connects without the click', () => {
  test('no session until Connect; the prompt is a labelled dialog naming the host and the guard, usable by keyboard', async ({
    page,
  }) => {
    const host = await startHost();
    const seen = sessionsOf(host);
    const link = host.pairingUrl(TOOLS);
    await page.goto(link);
    const prompt = dialog(page);
    await expect(prompt).toBeVisible();
    await expect(prompt).toHaveAccessibleName(PROMPT);
    const phrase = pairingPhrase(wsOf(link).searchParams.get('pair') as string);
    await expect(prompt).toHaveAccessibleDescription(
      `A link asks to connect this page to the toolwire host at ${host.address}. It could then use read-only tools: they read the page, and change nothing. Connect only if you started that host. Check that your terminal shows: ${phrase}`,
    );
    await expect(prompt).toBeFocused();
    // A key press meant for the page connects nothing: no button has focus yet.
    // (The keyboard path below is the barrier: had a key connected, the prompt would be gone and
    // its buttons could not take focus; the one session at the end is the click's.)
    await page.keyboard.press('Enter');
    await page.keyboard.press('Space');
    await expect(prompt).toBeVisible();
    expect(seen).toEqual([]);
    expect(hostLog.filter((line) => line.includes('connected'))).toEqual([]);
    // Keyboard only: Tab reaches Not now, then Connect; Enter connects.
    await page.keyboard.press('Tab');
    await expect(prompt.getByRole('button', { name: 'Not now' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(prompt.getByRole('button', { name: 'Connect' })).toBeFocused();
    // Connect is armed half a second after the prompt showed (prompt-guards.e2e.ts).
    await expect(prompt.getByRole('button', { name: 'Connect' })).toBeEnabled();
    await page.keyboard.press('Enter');
    await expect.poll(() => seen.length).toBe(1);
    await expect(prompt).toHaveCount(0);
    expect(await paired(page)).toBe(true);
  });

  for (const how of ['Not now (Space)', 'Escape', 'Not now (click)']) {
    test(`${how} dismisses: nothing connects, one console line`, async ({ page }) => {
      const host = await startHost();
      const seen = sessionsOf(host);
      // The honest path first: the same page pairs after Connect.
      const honest = await page.context().newPage();
      await pairTab(honest, host);
      await honest.close();
      const lines = consoleLines(page);
      await page.goto(host.pairingUrl(TOOLS));
      const prompt = dialog(page);
      await expect(prompt).toBeFocused();
      if (how === 'Escape') await page.keyboard.press('Escape');
      else if (how === 'Not now (click)')
        await prompt.getByRole('button', { name: 'Not now' }).click();
      else {
        await page.keyboard.press('Tab');
        await expect(prompt.getByRole('button', { name: 'Not now' })).toBeFocused();
        await page.keyboard.press('Space');
      }
      expect(await paired(page)).toBe(false);
      await expect(prompt).toHaveCount(0);
      await expect
        .poll(() => lines)
        .toEqual([`toolwire: pairing with 127.0.0.1:${host.port} dismissed.`]);
      expect(await linesByNow(page, lines)).toHaveLength(1); // still one line
      expect(seen).toHaveLength(1);
    });
  }
});

// ---- 4. spent, expired and foreign codes --------------------------------------------------------

test.describe('a code pairs once, in time, for its origin', () => {
  test('after pairing, nothing in location, history or performance entries connects', async ({
    page,
    context,
  }) => {
    const host = await startHost();
    const seen = sessionsOf(host);
    await pairTab(page, host);
    const leaks = await page.evaluate(() => ({
      navigation: (performance.getEntriesByType('navigation')[0] as PerformanceEntry).name,
      href: location.href,
      state: JSON.stringify(history.state),
    }));
    expect(leaks.href).toBe(TOOLS);
    expect(leaks.state ?? '').not.toContain('pair');
    // The browser's navigation entry still holds the link: its code must be spent.
    expect(leaks.navigation).toContain('#toolwire=');
    const leaked = wsOf(leaks.navigation);
    const code = leaked.searchParams.get('pair') as string;
    expect(code).toMatch(/^[\w-]{22}$/);
    // A raw socket naming the leaked code, from the page itself: closed with 4401, "already
    // used"; one sending the code itself, the old way, is refused before any lookup.
    const rawClose = (url: string) =>
      page.evaluate(
        (address) =>
          new Promise<{ code: number; reason: string }>((resolve) => {
            const socket = new WebSocket(address);
            socket.onclose = (event) => resolve({ code: event.code, reason: event.reason });
          }),
        url,
      );
    const named = new URL(leaked);
    named.searchParams.delete('pair');
    named.searchParams.set('pair-id', idOf(code));
    named.searchParams.set('nonce', createNonce());
    expect(await rawClose(named.toString())).toEqual({
      code: SESSION_CLOSE.pairingRefused,
      reason: 'this pairing code was already used; ask for a new link (toolwire pair)',
    });
    expect((await rawClose(leaked.toString())).reason).toContain(
      "this page's toolwire is too old for this host",
    );
    // Another tab opening the leaked link: the prompt, the click, then a refusal it explains.
    const thief = await context.newPage();
    const lines = consoleLines(thief);
    await thief.goto(leaks.navigation);
    await clickConnect(thief);
    await expect
      .poll(() => lines)
      .toEqual([
        `toolwire: the host at ${host.address} refused this tab's pairing: this pairing code was already used; ask for a new link (toolwire pair).`,
      ]);
    expect(await thief.evaluate(() => sessionStorage.getItem('toolwire.pairing'))).toBeNull();
    expect(seen).toHaveLength(1);
    expect(host.sessions).toHaveLength(1);
  });

  test('an expired code is refused, and the page says why in one line', async ({
    page,
    context,
  }) => {
    const host = await startHost({ pairingCodeTtlMs: 50 });
    const seen = sessionsOf(host);
    // The honest path: a code given a longer life pairs.
    const honest = await context.newPage();
    await honest.goto(host.pairingUrl(TOOLS, { ttlMs: 30_000 }));
    await clickConnect(honest);
    await expect.poll(() => seen.length).toBe(1);
    // The default 50 ms code, clicked later.
    const lines = consoleLines(page);
    const link = host.pairingLink(TOOLS);
    await page.goto(link.url);
    await expect(dialog(page)).toBeVisible();
    // Until the code has expired by the host's clock (this process's: it expires at expiresAt).
    await expect.poll(() => Date.now() >= link.expiresAt).toBe(true);
    await clickConnect(page);
    await expect
      .poll(() => lines)
      .toEqual([
        `toolwire: the host at ${host.address} refused this tab's pairing: this pairing code expired; ask for a new link (toolwire pair).`,
      ]);
    expect(seen).toHaveLength(1);
  });

  test('a code for origin A is refused to origin B and not spent: A pairs with it afterwards', async ({
    page,
    context,
  }) => {
    // Both origins allowed: only the code's binding to A stands in B's way.
    const host = await startHost({ origins: [ORIGIN, OTHER_ORIGIN] });
    const seen = sessionsOf(host);
    const link = host.pairingUrl(TOOLS);
    const lines = consoleLines(page);
    await page.goto(link.replace(ORIGIN, OTHER_ORIGIN));
    expect(await page.evaluate(() => location.origin)).toBe(OTHER_ORIGIN);
    await clickConnect(page);
    await expect
      .poll(() => lines)
      .toEqual([
        `toolwire: the host at ${host.address} refused this tab's pairing: this pairing code is not for pages of ${OTHER_ORIGIN}.`,
      ]);
    expect(seen).toEqual([]);
    // The honest path, with the very same code.
    const owner = await context.newPage();
    await owner.goto(link);
    await clickConnect(owner);
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]?.origin).toBe(ORIGIN);
    expect(seen[0]?.paired).toBe(true);
  });
});

// ---- 5. the tab's credential --------------------------------------------------------------------

test.describe("the tab's credential", () => {
  test('a reload reconnects without a prompt; a new tab does not; revoke ends it for good', async ({
    page,
    context,
  }) => {
    const host = await startHost();
    const first = await pairTab(page, host);
    expect(first.paired).toBe(true);
    await expect.poll(() => first.info?.page.url).toBe(TOOLS);
    // The reload: the same tab, its sessionStorage credential, no prompt.
    const reconnected = host.waitForSession({
      timeoutMs: 5000,
      filter: (session) => session !== first,
    });
    await page.reload();
    const second = await reconnected;
    await expect(dialog(page)).toHaveCount(0);
    expect(second.paired).toBe(false);
    expect(second.pairingId).toBe(first.pairingId);
    expect(second.origin).toBe(ORIGIN);
    await expect.poll(() => second.info?.page.url).toBe(TOOLS);
    expect((await second.call('notes.list')).result).toEqual({ ran: 'notes.list' });
    // A new tab has its own (empty) sessionStorage: not connected.
    const fresh = await context.newPage();
    await fresh.goto(TOOLS);
    expect(await paired(fresh)).toBe(false);
    await expect(dialog(fresh)).toHaveCount(0);
    await expect.poll(() => host.sessions).toEqual([second]);
    // Revoked: closed with 4403, one line, no reconnect, and the credential is forgotten.
    const lines = consoleLines(page);
    const seen = sessionsOf(host);
    expect(host.revoke(second.id)).toBe(true);
    expect((await second.closed).code).toBe(SESSION_CLOSE.revoked);
    await expect
      .poll(() => lines)
      .toEqual([
        `toolwire: the host at ${host.address} revoked this tab's pairing: revoked by the host.`,
      ]);
    expect(await page.evaluate(() => sessionStorage.getItem('toolwire.pairing'))).toBeNull();
    // The page's own word that no retry is scheduled (a drop it retries leaves it 'connecting').
    expect(await statusOf(page)).toBe('closed');
    await page.reload();
    expect(await paired(page)).toBe(false);
    expect(await linesByNow(page, lines)).toHaveLength(1); // still one line
    expect(seen).toEqual([]);
    expect(host.sessions).toEqual([]);
  });

  test('a second link opened in the same tab (only the fragment changes) asks, then replaces the pairing', async ({
    page,
  }) => {
    const host = await startHost();
    const first = await pairTab(page, host);
    expect(first.paired).toBe(true);
    const next = host.waitForSession({ timeoutMs: 5000, filter: (s) => s !== first });
    // Same document: a fragment change fires hashchange, not a load.
    await page.evaluate((link) => {
      location.hash = new URL(link).hash;
    }, host.pairingUrl(TOOLS));
    await expect(dialog(page)).toBeVisible();
    await clickConnect(page);
    const second = await next;
    expect(second.paired).toBe(true);
    expect(second.pairingId).not.toBe(first.pairingId);
    expect((await first.closed).code).toBe(1000);
    expect(await page.evaluate(() => location.hash)).toBe('');
    expect((await second.call('notes.list')).result).toEqual({ ran: 'notes.list' });
  });

  test('revoke ends the pairing in every tab holding its credential (a window the page opened)', async ({
    page,
    context,
  }) => {
    const host = await startHost();
    const first = await pairTab(page, host);
    // A window the page opens gets a copy of its sessionStorage, the credential included.
    const [popup] = await Promise.all([
      context.waitForEvent('page'),
      page.evaluate((url) => void window.open(url, '_blank'), `${TOOLS}?popup=1`),
    ]);
    const popupLines = consoleLines(popup);
    const twin = await host.waitForSession({ timeoutMs: 5000, filter: (s) => s !== first });
    await expect(dialog(popup)).toHaveCount(0);
    expect(twin.pairingId).toBe(first.pairingId);
    expect((await twin.call('notes.list')).result).toEqual({ ran: 'notes.list' });
    const lines = consoleLines(page);
    expect(host.revoke(first.id)).toBe(true);
    expect((await first.closed).code).toBe(SESSION_CLOSE.revoked);
    expect((await twin.closed).code).toBe(SESSION_CLOSE.revoked);
    for (const tab of [lines, popupLines]) {
      await expect
        .poll(() => tab)
        .toEqual([
          `toolwire: the host at ${host.address} revoked this tab's pairing: revoked by the host.`,
        ]);
    }
    // Both tabs' own word that no retry is scheduled (a drop they retry leaves them 'connecting').
    expect(await statusOf(page)).toBe('closed');
    expect(await statusOf(popup)).toBe('closed');
    expect(host.sessions).toEqual([]);
  });

  test('a host restarted on the same port refuses the old credential, with a readable reason', async ({
    page,
  }) => {
    const first = await startHost();
    const port = first.port;
    await pairTab(page, first);
    const lines = consoleLines(page);
    await first.close();
    hosts.splice(hosts.indexOf(first), 1);
    const restarted = await startHost({ port });
    const seen = sessionsOf(restarted);
    // The page retries on its own, with the credential the old run gave it.
    await expect
      .poll(() => lines, { timeout: 8000 })
      .toEqual([
        `toolwire: the host at ${restarted.address} refused this tab's pairing: this tab's pairing is not known to the host (revoked, or made with another host or run); open a new pairing link.`,
      ]);
    expect(seen).toEqual([]);
    expect(await page.evaluate(() => sessionStorage.getItem('toolwire.pairing'))).toBeNull();
    // The new run answers: a new link pairs the same tab. (A new query: a change of fragment
    // alone would not load the page again.)
    await pairTab(page, restarted, `${TOOLS}?again=1`);
    expect(seen).toHaveLength(1);
  });
});

// ---- 6. the host's grant, enforced in the page --------------------------------------------------

test.describe("the host's grant is enforced in the page", () => {
  test('a raw tool.call above a read grant is refused by the page itself; the tool does not run', async ({
    page,
  }) => {
    const host = await startHost({ maxToolPolicy: 'read' });
    const connected = host.waitForSession({ timeoutMs: 5000 });
    // The page's guard is full-access: only the grant stands between the host and its tools.
    await page.goto(withConnectUrl(host, OWN_CODE));
    const session = await connected;
    expect(session.catalog.get('notes.add')?.policy).toBe('write');
    // The honest path: a read tool runs.
    expect((await session.call('demo.echo', { text: 'hi' })).result).toEqual({ text: 'hi' });
    for (const [id, policy] of [
      ['notes.add', 'write'],
      ['notes.delete', 'critical'],
    ] as const) {
      // The host's own check refuses first...
      await expect(session.call(id)).rejects.toMatchObject({
        code: 'tool_execution_denied',
        retryable: false,
        details: { deniedBy: 'host-grant', policy, maxToolPolicy: 'read' },
      });
      // ...and a request that skips it is refused by the page, with the same code and details.
      const response = await session.request('tool.call', { toolId: id });
      expect(response.type).toBe('tool.error');
      expect(response.payload).toMatchObject({
        code: 'tool_execution_denied',
        retryable: false,
        details: { deniedBy: 'host-grant', policy, maxToolPolicy: 'read' },
      });
    }
    expect(await page.evaluate(() => (window as any).calls)).toEqual(['demo.echo']);
  });

  /**
   * `swap()` in the page replaces the read tool `swap.tool` by one of the same name above the
   * grant; `when` runs it before the host's call, or as the call arrives (from the session's
   * `request` event, after the page has started serving it).
   */
  for (const how of ['toolManager', 'document.modelContext'] as const) {
    for (const when of ['before the call', 'as the call arrives'] as const) {
      test(`a read tool swapped for a ${how === 'toolManager' ? 'critical' : 'write'} one within the push debounce never runs under a read grant (${how}, ${when})`, async ({
        page,
      }) => {
        const host = await startHost({ maxToolPolicy: 'read' });
        const connected = host.waitForSession({ timeoutMs: 5000 });
        // The page pushes catalog changes an hour late (never within this test): the host
        // keeps its old view of the tool.
        await page.goto(withConnectUrl(host, `${OWN_CODE}?changedDelay=3600000`));
        const session = await connected;
        await page.evaluate(async (how) => {
          const w = window as any;
          const signal = new AbortController();
          const ran = (kind: string) => () => {
            w.calls.push(`swap.${kind}`);
            return kind;
          };
          if (how === 'toolManager') {
            const register = (annotations: object, kind: string) =>
              w.toolManager.register({
                name: 'swap.tool',
                naturalLanguageProperties: { description: kind, annotations },
                execute: ran(kind),
              });
            await register({ readOnlyHint: true }, 'read');
            w.swap = () => {
              w.toolManager.unregister('swap.tool');
              return register({ destructiveHint: true }, 'above');
            };
          } else {
            const context = (document as any).modelContext;
            await context.registerTool(
              {
                name: 'swap.tool',
                description: 'read',
                annotations: { readOnlyHint: true },
                execute: ran('read'),
              },
              { signal: signal.signal },
            );
            w.swap = () => {
              signal.abort();
              return context.registerTool({
                name: 'swap.tool',
                description: 'above',
                execute: ran('above'),
              });
            };
          }
          w.session.addEventListener('request', (event: CustomEvent) => {
            if (w.armed && event.detail.toolId === 'swap.tool') {
              w.armed = false;
              w.swap();
            }
          });
        }, how);
        await session.refresh({ force: true });
        expect(session.catalog.get('swap.tool')?.policy).toBe('read');
        // The honest path: the read tool runs.
        expect((await session.call('swap.tool')).result).toBe('read');
        // The swap: the same name, now above the grant.
        if (when === 'before the call') await page.evaluate(() => (window as any).swap());
        else await page.evaluate(() => ((window as any).armed = true));
        // Still within the debounce: the host believes the tool is read.
        expect(session.catalog.get('swap.tool')?.policy).toBe('read');
        const error = await session.call('swap.tool').catch((e) => e);
        expect(await page.evaluate(() => (window as any).calls)).toEqual(['swap.read']);
        expect(await page.evaluate(() => (window as any).armed ?? false)).toBe(false);
        // Before the call, the page knows the new policy and its grant check refuses it. As the
        // call arrives, the page's handle to the old tool is stale (not found), so the host reads
        // the catalog again and refuses the new policy itself. Either way the same answer.
        expect(error).toMatchObject({
          code: 'tool_execution_denied',
          retryable: false,
          details: {
            deniedBy: 'host-grant',
            policy: how === 'toolManager' ? 'critical' : 'write',
            maxToolPolicy: 'read',
          },
        });
        // Who said it: the host's own refusal names the session, the page's does not.
        if (when === 'before the call') expect(error.details).not.toHaveProperty('sessionId');
        else expect(error.details).toMatchObject({ sessionId: session.id });
      });
    }
  }
});

test.describe('the grant through a child frame', () => {
  for (const when of ['before the call', 'as the call arrives'] as const) {
    test(`a child frame's read tool swapped for a critical one within the push debounce never runs under a read grant (${when})`, async ({
      page,
    }) => {
      const host = await startHost({ maxToolPolicy: 'read' });
      const connected = host.waitForSession({ timeoutMs: 5000 });
      await page.goto(withConnectUrl(host, FRAME_TOP));
      const session = await connected;
      await expect.poll(() => page.frames().length).toBe(2);
      const child = page.frames()[1] as Frame;
      await child.waitForFunction(() => (window as any).childReady === true);
      await expect
        .poll(async () => {
          await session.refresh({ force: true });
          return session.catalog.get('child.swap')?.policy;
        })
        .toBe('read');
      // The honest path: the child's read tool runs.
      expect((await session.call('child.swap')).result).toBe('read');
      if (when === 'before the call') await child.evaluate(() => (window as any).swap());
      else {
        await page.evaluate(() => {
          const w = window as any;
          const child = (document.getElementById('child') as HTMLIFrameElement)
            .contentWindow as any;
          w.session.addEventListener('request', (event: CustomEvent) => {
            if (event.detail.toolId === 'child.swap' && !w.swapped) {
              w.swapped = true;
              child.swap();
            }
          });
        });
      }
      expect(session.catalog.get('child.swap')?.policy).toBe('read');
      const error = await session.call('child.swap').catch((e) => e);
      expect(await child.evaluate(() => (window as any).calls)).toEqual(['read']);
      if (when === 'as the call arrives') {
        expect(await page.evaluate(() => (window as any).swapped)).toBe(true);
      }
      // As the call arrives, the page's handle to the old tool is stale: not found, so the host
      // reads the catalog again and refuses the critical tool itself. Before the call, the top
      // usually knows the new policy and refuses it; it may still be learning it from the child.
      // Whichever refuses, the answer is the same.
      expect(error).toMatchObject({
        code: 'tool_execution_denied',
        retryable: false,
        details: { deniedBy: 'host-grant', policy: 'critical', maxToolPolicy: 'read' },
      });
      if (when === 'as the call arrives') {
        expect(error.details).toMatchObject({ sessionId: session.id });
      }
    });
  }
});

// ---- 7. heartbeats -----------------------------------------------------------------------------

test.describe('heartbeats', () => {
  test('a host that goes silent after its welcome is dropped within ~3 intervals; the page reconnects', async ({
    page,
  }) => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    servers.push(server);
    await new Promise((resolve) => server.once('listening', resolve));
    const port = (server.address() as AddressInfo).port;
    type Seen = {
      url: string;
      frames: string[];
      close?: { code: number; reason: string };
    };
    const connections: Seen[] = [];
    server.on('connection', (socket, request) => {
      const seen: Seen = { url: request.url ?? '', frames: [] };
      connections.push(seen);
      // It holds the link's code (it proves itself), then falls silent.
      socket.send(
        JSON.stringify(provenWelcome(seen.url, 'abc', port, `evil-${connections.length}`)),
      );
      // ...and then nothing, ever.
      socket.on('message', (data) => seen.frames.push(String(data)));
      socket.on('close', (code, reason) => {
        seen.close = { code, reason: reason.toString() };
      });
    });
    // Time is what this test is about: the page's clock is Playwright's, paused before the
    // page connects, so its watchdog starts at a known instant and moves only when told.
    await page.clock.install();
    await page.goto(linkTo(TOOLS, `ws://127.0.0.1:${port}/toolwire?pair=abc`));
    await page.clock.pauseAt(await page.evaluate(() => Date.now() + 1000));
    await page.clock.runFor(500); // Connect is armed half a second after the prompt shows
    await clickConnect(page);
    // The page did connect, and spoke: its session.open and answers reached the server.
    await expect
      .poll(() => connections[0]?.frames.some((f) => f.includes('"session.open"')))
      .toBe(true);
    // Just short of three silent intervals: still open, in the page's own word.
    await page.clock.runFor(599);
    expect(await statusOf(page)).toBe('open');
    // The third interval: dropped, and a retry is on its way.
    await page.clock.runFor(1);
    await expect.poll(() => connections[0]?.close).toBeDefined();
    expect(connections[0]?.close).toEqual({
      code: SESSION_CLOSE.silent,
      reason: 'the host stopped answering',
    });
    expect(await statusOf(page)).toBe('connecting');
    expect(connections).toHaveLength(1);
    // The first retry comes within the initial backoff (250 ms, jittered downwards).
    await page.clock.runFor(250);
    await expect.poll(() => connections.length).toBe(2);
    // The code was spent for a credential on the first socket: the retry names the credential.
    expect(connections[1]?.url).toContain('credential-id=');
    expect(connections[1]?.url).not.toContain('pair');
  });

  test('a page whose main thread is blocked is closed by the host; its pending call fails', async ({
    page,
  }) => {
    // The whole test's bound, not a wait: more work than the default 30 s allows a busy machine.
    test.setTimeout(60_000);
    // One-second heartbeats: the page is closed after three silent seconds, a margin that a
    // busy machine's own stalls (of this process or of Chromium) stay well inside.
    const host = await startHost({ heartbeatIntervalMs: 1000 });
    const connected = host.waitForSession({ timeoutMs: 5000 });
    // The latch that blocks the page: a synchronous request this server answers only when the
    // test opens it, so the page's main thread stays blocked until the host has closed it.
    let open = false;
    const held: ServerResponse[] = [];
    const answer = (res: ServerResponse) => {
      res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'text/plain' });
      res.end('released');
    };
    const latch = createServer((_req, res) => {
      if (open) answer(res);
      else held.push(res);
    });
    await new Promise<void>((resolve) => latch.listen(0, '127.0.0.1', resolve));
    const latchUrl = `http://127.0.0.1:${(latch.address() as AddressInfo).port}/hold`;
    try {
      // The pongs the page sends, as they leave it.
      let pongs = 0;
      page.on('websocket', (socket) =>
        socket.on('framesent', ({ payload }) => {
          if (String(payload).includes('"session.pong"')) pongs++;
        }),
      );
      await page.goto(withConnectUrl(host, OWN_CODE));
      const session = await connected;
      // The honest path: an idle page answers pings, and outlives many intervals (four pings
      // answered span more than the three silent intervals that would close it). The bound is
      // generous, never the thing tested.
      await expect.poll(() => pongs, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
      expect(session.isOpen).toBe(true);
      expect((await session.call('demo.echo', { text: 'alive' })).result).toEqual({
        text: 'alive',
      });
      const pending = session.call('demo.slow').catch((error) => error);
      await expect.poll(() => session.pendingCount).toBe(1);
      // Blocked: no ping is answered until the latch opens.
      const blocked = page.evaluate((url) => {
        const request = new XMLHttpRequest();
        request.open('GET', url, false);
        request.send();
        return request.responseText;
      }, latchUrl);
      expect(await pending).toMatchObject({ code: 'tool_transport_closed' });
      const closed = await session.closed;
      expect(closed).toEqual({
        code: SESSION_CLOSE.silent,
        reason: 'the page stopped answering for 3000 ms',
      });
      // Unblocked, the page comes back by itself.
      const back = host.waitForSession({ timeoutMs: 15_000, filter: (s) => s !== session });
      open = true;
      for (const res of held.splice(0)) answer(res);
      expect(await blocked).toBe('released');
      expect((await (await back).call('demo.echo', { text: 'back' })).result).toEqual({
        text: 'back',
      });
    } finally {
      open = true;
      for (const res of held.splice(0)) answer(res);
      await new Promise((resolve) => latch.close(resolve));
    }
  });
});

// ---- 8. the page's guard reaches the host -------------------------------------------------------

test.describe("the page's guard reaches the host", () => {
  test('session.open reports the guard and its hidden tools; a later write tool joins them', async ({
    page,
    context,
  }) => {
    const host = await startHost({ maxToolPolicy: 'critical' });
    // The honest path: a page whose tag says full-access serves its write tool to this host.
    const full = await context.newPage();
    const open = await pairTab(full, host, FULL);
    expect(ids(open)).toEqual(expect.arrayContaining(['notes.add', 'notes.delete', 'notes.list']));
    expect((await open.call('notes.add')).result).toEqual({ ran: 'notes.add' });
    await expect.poll(() => open.pageGuard?.preset).toBe('full-access');
    expect(open.pageGuard?.hidden).toEqual([]);
    // The read-only page: the host is told what its guard hides, and says so.
    const session = await pairTab(page, host, TOOLS);
    await expect.poll(() => session.info?.guard).not.toBeNull();
    expect(session.info?.guard).toEqual({
      discoveryEnabled: true,
      executionEnabled: true,
      maxPolicy: 'read',
      preset: 'read-only',
      hidden: [
        { id: 'notes.add', policy: 'write' },
        { id: 'notes.delete', policy: 'critical' },
        { id: 'ui.perform_action', policy: 'write' },
      ],
    });
    expect(session.pageGuard).toEqual(session.info?.guard);
    expect((await session.call('notes.list')).result).toEqual({ ran: 'notes.list' });
    await expect(session.call('notes.add')).rejects.toMatchObject({
      code: 'tool_execution_denied',
      message: expect.stringContaining("hidden by the page's guard (read-only)"),
      details: { deniedBy: 'page-guard', toolId: 'notes.add', policy: 'write', guard: 'read-only' },
    });
    // A tool that is nowhere is still not found.
    await expect(session.call('notes.nowhere')).rejects.toMatchObject({ code: 'tool_not_found' });
    // A write tool registered later: the catalog push carries the new hidden list.
    await page.evaluate(() => (window as any).addWriteTool('notes.edit'));
    await expect
      .poll(() => session.pageGuard?.hidden.map((entry) => entry.id))
      .toEqual(['notes.add', 'notes.delete', 'notes.edit', 'ui.perform_action']);
    await expect(session.call('notes.edit')).rejects.toMatchObject({
      code: 'tool_execution_denied',
      details: { deniedBy: 'page-guard' },
    });
    expect(ids(session)).not.toContain('notes.edit');
    expect(await ran(page)).toEqual(['notes.list']);
  });
});
