import { createHmac } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { createServer as createNetServer, connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, expect, type Page, test } from '@playwright/test';
import { WebSocketServer } from 'ws';
import type { Host, HostOptions, HostSession } from '../packages/host/src/index.js';
import { createHost, MemoryPairingStore } from '../packages/host/src/index.js';
import { createNonce, SESSION_CLOSE, sessionWelcome } from '../packages/protocol/src/index.js';
import { E2E_PORT } from '../playwright.config.js';
import { CHROMIUM_ARGS, findChromium } from '../scripts/find-chromium.mjs';
import type { ExtensionBrowser } from './support/extension.js';
import { launchWithExtension } from './support/extension.js';
import { clickConnect, withConnectUrl } from './support/pairing.js';
import { serveFolder } from './support/static-server.js';

// The page verifies its host (docs/wire.md "The handshake"), in real Chromium against the real
// host in this process: once the host is gone, a plain `ws` server bound to its port (a
// squatter) records everything the tab sends it, welcomes it without a proof and then with a
// wrong one, and asks it to run a tool. The tab must answer nothing, run nothing, and never send
// its pairing code or credential, only their ids. Each test first shows the honest path with
// the same tab and the same tool.

const ORIGIN = `http://localhost:${E2E_PORT}`;
/** endpoint.iife.js (read-only); `window.ran` lists every tool run. */
const TOOLS = `${ORIGIN}/e2e/pages/hostile-host/tools.html`;
/** A page whose own code connects with the token (`window.calls` lists every tool run). */
const OWN_CODE = `${ORIGIN}/e2e/pages/host/page.html`;
/** The extension's page: only the polyfill; `window.calls` lists every tool run. */
const EXTENSION_PAGE = `${ORIGIN}/e2e/pages/connect/page.html`;

const hosts: Host[] = [];
const closers: (() => Promise<unknown>)[] = [];

test.afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
  for (const close of closers.splice(0).reverse()) await close();
});

async function startHost(options: HostOptions = {}): Promise<Host> {
  const host = await createHost({ origins: [ORIGIN], heartbeatIntervalMs: 0, ...options });
  hosts.push(host);
  return host;
}

async function stopHost(host: Host): Promise<void> {
  hosts.splice(hosts.indexOf(host), 1);
  await host.close();
}

interface Squatted {
  url: string;
  /** Every frame the tab sent. */
  frames: string[];
  /** The close, as the squatter saw it. */
  close?: { code: number; reason: string };
}

/**
 * A plain `ws` server on `port` that is not the host: it records each connection, welcomes it
 * (the first without a proof, later ones with a wrong proof), then sends a tool.call of `toolId`.
 */
async function squat(port: number, toolId: string): Promise<Squatted[]> {
  const server = new WebSocketServer({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  closers.push(async () => {
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => server.close(resolve));
  });
  const seen: Squatted[] = [];
  server.on('connection', (socket, request) => {
    const entry: Squatted = { url: request.url ?? '', frames: [] };
    seen.push(entry);
    socket.on('message', (data) => entry.frames.push(String(data)));
    socket.on('close', (code, reason) => {
      entry.close = { code, reason: reason.toString() };
    });
    const n = seen.length;
    socket.send(
      JSON.stringify(
        sessionWelcome({
          sessionId: `squat-${n}`,
          hostRun: 'squat',
          maxToolPolicy: 'critical',
          heartbeatIntervalMs: 0,
          ...(n === 1 ? {} : { proof: { nonce: createNonce(), mac: 'A'.repeat(43) } }),
        }),
      ),
    );
    socket.send(
      JSON.stringify({
        type: 'tool.call',
        id: `squat-call-${n}`,
        sentAt: new Date().toISOString(),
        sessionId: `squat-${n}`,
        capability: 'tool.exec',
        payload: { toolId, arguments: {} },
      }),
    );
  });
  return seen;
}

/** The squatter's two tries (no proof, a wrong proof) have both been closed by the tab. */
async function bothRefused(seen: Squatted[]): Promise<void> {
  await expect
    .poll(() => seen.filter((entry) => entry.close).length, { timeout: 15_000 })
    .toBeGreaterThanOrEqual(2);
  for (const entry of seen.filter((e) => e.close)) {
    expect(entry.close?.code).toBe(SESSION_CLOSE.hostUnproven);
    // Not even session.open: the tab said nothing to it.
    expect(entry.frames).toEqual([]);
  }
}

/** Nothing the squatter recorded holds any of `secrets`; every URL names `id` (it looked). */
function leaksNothing(
  seen: Squatted[],
  secrets: string[],
  id: { name: string | string[]; value: string },
) {
  const recorded = seen.flatMap((entry) => [entry.url, ...entry.frames]).join('\n');
  for (const secret of secrets) {
    expect(secret.length).toBeGreaterThan(10);
    expect(recorded).not.toContain(secret);
    expect(recorded).not.toContain(encodeURIComponent(secret));
  }
  // `name` may list the parameters that can name it (a tab's own session names its parent).
  const names = Array.isArray(id.name) ? id.name : [id.name];
  for (const entry of seen) {
    const query = new URL(entry.url, 'ws://x').searchParams;
    const named = names.map((name) => query.get(name)).find((value) => value !== null);
    expect(named).toBe(id.value);
  }
}

/** The credential's secret this tab keeps (sessionStorage), and its id as the host keeps it. */
async function keptPairing(page: Page, session: HostSession) {
  const stored = await page.evaluate(() => sessionStorage.getItem('toolwire.pairing'));
  const credential = JSON.parse(stored as string).credential as string;
  return { credential, id: session.pairingId as string };
}

const ran = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).ran);

async function pairTab(page: Page, host: Host): Promise<{ session: HostSession; code: string }> {
  const link = host.pairingLink(TOOLS);
  const connected = host.waitForSession({ timeoutMs: 10_000 });
  await page.goto(link.url);
  await clickConnect(page);
  const session = await connected;
  return { session, code: link.code };
}

test('honest: a tab paired from a link connects, proves, and serves a call through the real host', async ({
  page,
}) => {
  const store = new MemoryPairingStore();
  const host = await startHost({ pairingStore: store });
  const { session, code } = await pairTab(page, host);
  expect(session.paired).toBe(true);
  expect((await session.call('notes.list')).result).toEqual({ ran: 'notes.list' });
  expect(await ran(page)).toEqual(['notes.list']);
  // Both sides derived the same credential; neither the code nor it is the id.
  const { credential, id } = await keptPairing(page, session);
  expect(store.get(id)?.secret).toBe(credential);
  expect(credential).not.toBe(code);
  expect(id).not.toBe(credential);
});

test('a squatter on the port of a stopped host gets nothing: no answer, no run, no secret', async ({
  page,
}) => {
  const host = await startHost();
  const port = host.port;
  const { session, code } = await pairTab(page, host);
  // Honest first: the same tool, served to the real host.
  expect((await session.call('notes.list')).result).toEqual({ ran: 'notes.list' });
  const { credential, id } = await keptPairing(page, session);
  await stopHost(host);
  const seen = await squat(port, 'notes.list');
  await bothRefused(seen);
  expect(await ran(page)).toEqual(['notes.list']);
  leaksNothing(seen, [code, credential], { name: 'credential-id', value: id });
  // The tab keeps its pairing and keeps trying (the real host may come back).
  expect(await page.evaluate(() => sessionStorage.getItem('toolwire.pairing'))).not.toBeNull();
  expect(await page.evaluate(() => (window as any).toolwire.session?.status)).toBe('connecting');
});

test('after a reload, the pairing kept in sessionStorage does not serve the squatter either', async ({
  page,
}) => {
  const store = new MemoryPairingStore();
  const host = await startHost({ pairingStore: store });
  const port = host.port;
  const { session, code } = await pairTab(page, host);
  const { credential, id } = await keptPairing(page, session);
  // Honest first: the reload reconnects to the real host, with no prompt, and serves.
  const reconnected = host.waitForSession({
    timeoutMs: 10_000,
    filter: (other) => other !== session,
  });
  await page.reload();
  const again = await reconnected;
  expect(again.pairingId).toBe(id);
  expect((await again.call('notes.list')).result).toEqual({ ran: 'notes.list' });
  await stopHost(host);
  const seen = await squat(port, 'notes.list');
  await page.reload();
  await bothRefused(seen);
  expect(await ran(page)).toEqual([]);
  leaksNothing(seen, [code, credential], { name: 'credential-id', value: id });
  // The real host back on its port, with its pairings: the same tab resumes without a click.
  await closers.pop()?.();
  const back = await startHost({ port, pairingStore: store });
  const resumed = await back.waitForSession({ timeoutMs: 20_000 });
  expect(resumed.pairingId).toBe(id);
  expect((await resumed.call('notes.list')).result).toEqual({ ran: 'notes.list' });
});

test('the token path: a page whose own code connected serves the squatter nothing', async ({
  page,
}) => {
  const host = await startHost({ maxToolPolicy: 'write' });
  const port = host.port;
  const connected = host.waitForSession({ timeoutMs: 10_000 });
  await page.goto(withConnectUrl(host, OWN_CODE));
  const session = await connected;
  // Honest first: the host proved itself with the token, and the page serves it.
  expect((await session.call('demo.echo', { text: 'hi' })).result).toEqual({ text: 'hi' });
  expect(await page.evaluate(() => (window as any).calls)).toEqual(['demo.echo']);
  await stopHost(host);
  const seen = await squat(port, 'demo.echo');
  await bothRefused(seen);
  expect(await page.evaluate(() => (window as any).calls)).toEqual(['demo.echo']);
  // The token travels as it is (other hosts of the protocol read it there), with a fresh nonce.
  for (const entry of seen) {
    const query = new URL(entry.url, 'ws://x').searchParams;
    expect(query.get('token')).toBe(host.token);
    expect(query.get('nonce')).toMatch(/^[\w-]{22}$/);
  }
});

test('a relay on the old port to the real host on a new port fails the port binding (4010)', async ({
  page,
}) => {
  const store = new MemoryPairingStore();
  const first = await startHost({ pairingStore: store });
  const oldPort = first.port;
  // Honest first: the tab paired on this port serves the host there.
  const { session } = await pairTab(page, first);
  expect((await session.call('notes.list')).result).toEqual({ ran: 'notes.list' });
  const id = session.pairingId as string;
  await stopHost(first);
  // The real host, with the same pairings, on another port; a relay takes the old one.
  const moved = await startHost({ pairingStore: store });
  const opened: HostSession[] = [];
  const closes: number[] = [];
  moved.on('session', (s) => {
    s.on('open', () => opened.push(s));
    void s.closed.then((info) => closes.push(info.code ?? 0));
  });
  const relay = await tcpRelay(oldPort, moved.port);
  closers.push(() => relay.close());
  // The tab reaches the real host through the relay, which proves over its own port: refused.
  await expect.poll(() => closes.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
  expect(new Set(closes)).toEqual(new Set([SESSION_CLOSE.hostUnproven]));
  expect(opened).toEqual([]);
  expect(await ran(page)).toEqual(['notes.list']);
  expect(store.get(id)).toBeDefined();
});

test('a tab connected through the extension does not serve the squatter', async () => {
  const browser: ExtensionBrowser = await launchWithExtension();
  closers.push(() => browser.close());
  const host = await createHost({ heartbeatIntervalMs: 0 });
  hosts.push(host);
  const port = host.port;
  const page = await browser.context.newPage();
  await page.goto(EXTENSION_PAGE);
  await expect(page.locator('#status')).toHaveText('ready');
  const tabId = await browser.tabIdOf(page);
  const panel = await browser.openPanel(tabId);
  const pairing = host.extensionPairing(browser.extensionId);
  // The tab's own session, once it took over from the worker's (which spent the code).
  const connected = host.waitForSession({
    timeoutMs: 15_000,
    filter: (one) => one.delegated && one.catalog.get('shop.search') !== undefined,
  });
  await panel.locator('#connect-pairing').fill(pairing.url);
  await panel.locator('#connect-button').click();
  const session = await connected;
  // Honest first: the real host calls the tab's tool.
  expect((await session.call('shop.search', { query: 'shoe' })).result).toMatchObject({
    query: 'shoe',
  });
  expect(await page.evaluate(() => (window as any).calls)).toEqual(['shop.search']);
  const stored = await browser.worker.evaluate(
    async () =>
      (await (globalThis as any).chrome.storage.session.get('toolwire.pairing'))[
        'toolwire.pairing'
      ],
  );
  expect(stored.credential).toEqual(expect.any(String));
  await stopHost(host);
  const seen = await squat(port, 'shop.search');
  await bothRefused(seen);
  expect(await page.evaluate(() => (window as any).calls)).toEqual(['shop.search']);
  // The tab's own session names the extension's pairing as the parent of its delegate; neither
  // the credential nor the delegate derived from it for the page's origin leaks.
  const delegate = createHmac('sha256', stored.credential)
    .update(`toolwire delegate\n${ORIGIN}`)
    .digest('base64url');
  leaksNothing(seen, [pairing.code, stored.credential, delegate], {
    name: ['credential-id', 'delegate-of'],
    value: session.pairingId as string,
  });
});

/** A TCP relay from 127.0.0.1:`from` to 127.0.0.1:`to`. */
async function tcpRelay(from: number, to: number): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: NetServer = createNetServer((client) => {
    const upstream = netConnect(to, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(from, '127.0.0.1', () => resolve());
  });
  expect((server.address() as AddressInfo).port).toBe(from);
  return {
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

test('a page that is not a secure context pairs through the @noble/hashes fallback, and refuses a squatter', async () => {
  // A page of its own server, reached by a name Chromium does not count as this machine
  // (mapped to 127.0.0.1, so no traffic leaves it): not a secure context, no crypto.subtle.
  const folder = mkdtempSync(join(tmpdir(), 'toolwire-insecure-'));
  const dist = fileURLToPath(new URL('../packages/endpoint/dist/', import.meta.url));
  for (const file of readdirSync(dist)) {
    if (file.endsWith('.js')) copyFileSync(join(dist, file), join(folder, file));
  }
  writeFileSync(
    join(folder, 'page.html'),
    `<!doctype html><html><head><meta charset="utf-8"><title>insecure</title>
<script src="/endpoint.iife.js"></script>
<script>
  window.ran = [];
  window.toolManager.register({
    name: 'notes.list',
    naturalLanguageProperties: { description: 'Lists.', annotations: { readOnlyHint: true } },
    execute: () => { window.ran.push('notes.list'); return { ran: 'notes.list' }; },
  });
</script></head><body>insecure</body></html>`,
  );
  const server = await serveFolder(folder);
  closers.push(() => server.close());
  const port = new URL(server.origin).port;
  const browser = await chromium.launch({
    executablePath: findChromium(),
    args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP insecure.test 127.0.0.1'],
  });
  closers.push(() => browser.close());
  const page = await browser.newPage();
  const address = `http://insecure.test:${port}/page.html`;
  const host = await startHost();
  const hostPort = host.port;
  const proven: HostSession[] = [];
  host.on('session', (session) => session.on('open', () => proven.push(session)));
  const link = host.pairingLink(address);
  await page.goto(link.url);
  expect(await page.evaluate(() => [isSecureContext, typeof crypto.subtle])).toEqual([
    false,
    'undefined',
  ]);
  await clickConnect(page);
  // Honest first: both proofs checked out, through the fallback the page fetched.
  await expect.poll(() => proven.length, { timeout: 15_000 }).toBe(1);
  expect(server.requested).toContain('/polyfill-hmac.js');
  expect(proven[0]?.pairingId).toEqual(expect.any(String));
  await stopHost(host);
  const seen = await squat(hostPort, 'notes.list');
  await bothRefused(seen);
  expect(await page.evaluate(() => (window as any).ran)).toEqual([]);
  leaksNothing(seen, [link.code], { name: 'credential-id', value: proven[0]?.pairingId as string });
});
