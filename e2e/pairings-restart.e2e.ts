import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { CLI, HostProcess, toolwire } from './support/cli.js';
import { launchWithExtension } from './support/extension.js';
import { launchMcp } from './support/mcp.js';
import { clickConnect } from './support/pairing.js';

// Pairings that outlast the host: two tabs of two origins pair from links (the built
// `toolwire` bin as real processes, real Chromium, one-script-tag pages), the host stops
// (SIGTERM) and starts again on the port it had with the same pairings directory, and both
// tabs are back with no new link and no click. Then `toolwire pairings` shows them and
// `toolwire revoke --pairing/--all` ends them. The same for `toolwire mcp` running a host of its
// own, which its MCP client restarts, and for a tab the extension connected. A tab waits out
// its reconnect backoff (up to 15 s), so these tests get more time than most.

const PAGE = '/e2e/pages/host/iife.html';
const A = `http://localhost:${E2E_PORT}`;
const B = `http://127.0.0.1:${E2E_PORT}`;

/** A pairings directory and a state file of this test's own. */
function environment(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-restart-e2e-'));
  return { TOOLWIRE_HOME: join(dir, 'home'), TOOLWIRE_STATE: join(dir, 'host.json') };
}

const portOf = (address: string) => Number(new URL(address).port);

interface SessionRow {
  id: string;
  origin: string;
  tools: number | null;
}

async function sessions(env: Record<string, string>): Promise<SessionRow[]> {
  const run = await toolwire(['sessions', '--json'], env);
  return run.code === 0 ? JSON.parse(run.out).sessions : [];
}

/** The tool ids `toolwire tools` lists for each connected origin. */
async function toolsByOrigin(env: Record<string, string>): Promise<Record<string, string[]>> {
  const byOrigin: Record<string, string[]> = {};
  for (const session of await sessions(env)) {
    const run = await toolwire(['tools', '--session', session.id, '--json'], env);
    if (run.code !== 0) continue;
    byOrigin[session.origin] = JSON.parse(run.out)
      .tools.map((tool: { id: string }) => tool.id)
      .sort();
  }
  return byOrigin;
}

/** Opens `link` in `page` and clicks Connect, as the person there would. */
async function openLink(page: Page, link: string): Promise<void> {
  await page.goto(link);
  await clickConnect(page);
}

const bothTabs = expect.objectContaining({
  [A]: expect.arrayContaining(['ui.query_nodes']),
  [B]: expect.arrayContaining(['ui.query_nodes']),
});

let hosts: HostProcess[] = [];
test.afterEach(async () => {
  for (const host of hosts) await host.stop();
  hosts = [];
});

test('toolwire host restarted on its port: both paired tabs are back with no link and no click; pairings, revoke', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  const env = environment();
  const first = new HostProcess(['--page', `${A}${PAGE}`], CLI, env);
  hosts.push(first);
  const port = portOf(await first.url());
  await openLink(page, await first.pairingLink());
  const made = await toolwire(['pair', '--page', `${B}${PAGE}`], env);
  expect(made.code, made.err).toBe(0);
  const other = await context.newPage();
  await openLink(other, made.out.trim());
  await expect.poll(() => toolsByOrigin(env)).toEqual(bothTabs);
  const before = (await sessions(env)).map((session) => session.id);

  // The host stops; another process starts on the same port, the same pairings directory, and
  // prints no link.
  expect(await first.stop()).toBe(0);
  expect((await toolwire(['sessions'], env)).code).toBe(3);
  const second = new HostProcess(['--port', String(port)], CLI, env);
  hosts.push(second);
  await second.url();
  expect(second.stderr).toContain('(2 pairings; toolwire pairings lists them)');
  expect(second.stderr).not.toContain('or open:');
  await expect.poll(() => toolsByOrigin(env), { timeout: 60_000 }).toEqual(bothTabs);
  // New sessions (a new process), and neither tab asked its person again.
  const after = await sessions(env);
  expect(after.map((session) => session.id)).not.toContain(before[0]);
  for (const tab of [page, other]) await expect(tab.getByRole('dialog')).toHaveCount(0);
  const called = await toolwire(
    [
      'call',
      'ui.query_nodes',
      '--session',
      after.find((s) => s.origin === B)?.id ?? '',
      '--args',
      '{"automationId":"hello"}',
    ],
    env,
  );
  expect(called.code, called.err).toBe(0);
  expect(JSON.parse(called.out).count).toBe(1);

  // What is kept: both pairings, made from links, the guard the pages reported, connected.
  const listed = JSON.parse((await toolwire(['pairings', '--json'], env)).out);
  expect(listed.pairings).toHaveLength(2);
  expect(listed.pairings).toEqual(
    expect.arrayContaining(
      [A, B].map((origin) =>
        expect.objectContaining({ origin, kind: 'link', guard: 'read-only', connected: true }),
      ),
    ),
  );
  const table = await toolwire(['pairings'], env);
  expect(table.code).toBe(0);
  for (const origin of [A, B]) {
    expect(table.out).toMatch(
      new RegExp(
        `\\n[\\w-]{8}\\s+link\\s+${origin.replaceAll('.', '\\.')}\\s+read-only\\s+yes\\s+now \\(`,
      ),
    );
  }

  // Revoking A's pairing ends that tab (4403: it stops, and forgets its pairing); B stays.
  const stopped = page.waitForEvent('console', (message) =>
    message.text().includes("revoked this tab's pairing"),
  );
  const pairingA = listed.pairings.find((p: { origin: string }) => p.origin === A);
  const revoked = await toolwire(['revoke', `--pairing=${pairingA.id.slice(0, 8)}`], env);
  expect(revoked.code, revoked.err).toBe(0);
  await stopped;
  await expect
    .poll(async () => (await sessions(env)).map((session) => session.origin))
    .toEqual([B]);
  expect(await page.evaluate(() => sessionStorage.getItem('toolwire.pairing'))).toBeNull();
  expect(await other.evaluate(() => sessionStorage.getItem('toolwire.pairing'))).not.toBeNull();
  // --all forgets the rest.
  const all = await toolwire(['revoke', '--all'], env);
  expect(all.code, all.err).toBe(0);
  expect(all.out).toContain('revoked 1 pairing');
  await expect.poll(() => sessions(env)).toEqual([]);
  expect(JSON.parse((await toolwire(['pairings', '--json'], env)).out).pairings).toEqual([]);
  expect(await other.evaluate(() => sessionStorage.getItem('toolwire.pairing'))).toBeNull();
});

test('toolwire mcp with a host of its own, restarted by its client: both tabs are back, no new link', async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  const env = environment();
  const names = async (mcp: Awaited<ReturnType<typeof launchMcp>>) =>
    (await mcp.client.listTools()).tools.map((tool) => tool.name);
  let mcp = await launchMcp(['--port', '0'], env);
  try {
    const port = portOf(await mcp.hostUrl());
    for (const [tab, origin] of [
      [page, A],
      [await context.newPage(), B],
    ] as const) {
      const paired = await mcp.client.callTool({
        name: 'toolwire_pair',
        arguments: { page: `${origin}${PAGE}` },
      });
      expect(paired.isError).toBe(false);
      await openLink(tab, (paired.structuredContent as { link: string }).link);
    }
    // Two tabs, each with its ui.query_nodes: the second one's name carries its tab's label.
    await expect
      .poll(async () => (await names(mcp)).filter((name) => name.startsWith('ui_query_nodes')))
      .toHaveLength(2);
    await mcp.close();
    // Gone once nothing answers at its control API.
    await expect.poll(async () => (await toolwire(['sessions'], env)).code).toBe(3);

    mcp = await launchMcp(['--port', String(port)], env);
    expect(portOf(await mcp.hostUrl())).toBe(port);
    await expect
      .poll(async () => (await names(mcp)).filter((name) => name.startsWith('ui_query_nodes')), {
        timeout: 60_000,
      })
      .toHaveLength(2);
    expect(mcp.stderr()).toContain('(2 pairings; toolwire pairings lists them)');
    await expect.poll(() => toolsByOrigin(env)).toEqual(bothTabs);
    const found = await mcp.client.callTool({
      name: 'ui_query_nodes',
      arguments: { automationId: 'hello' },
    });
    expect(found.isError).toBe(false);
    for (const tab of context.pages()) await expect(tab.getByRole('dialog')).toHaveCount(0);
    const listed = JSON.parse((await toolwire(['pairings', '--json'], env)).out);
    expect(listed.pairings.map((p: { origin: string }) => p.origin).sort()).toEqual([B, A].sort());
  } finally {
    await mcp.close();
  }
});

test('a tab connected through the extension is back after a restart of toolwire host', async () => {
  test.setTimeout(120_000);
  const env = environment();
  const browser = await launchWithExtension();
  try {
    const first = new HostProcess([], CLI, env);
    hosts.push(first);
    const port = portOf(await first.url());
    const page = await browser.context.newPage();
    await page.goto(`${A}/e2e/pages/connect/page.html`);
    await expect(page.locator('#status')).toHaveText('ready');
    const panel = await browser.openPanel(await browser.tabIdOf(page));
    const made = await toolwire(['pair', '--extension', browser.extensionId], env);
    expect(made.code, made.err).toBe(0);
    await panel.locator('#connect-pairing').fill(made.out.trim());
    await panel.locator('#connect-button').click();
    await expect(panel.locator('.connect-status')).toHaveText(/^Connected to ws:\/\/127\.0\.0\.1:/);
    const extension = `chrome-extension://${browser.extensionId}`;
    // The tab serves itself (a delegate of the extension's pairing): its tools have its origin.
    await expect.poll(async () => Object.keys(await toolsByOrigin(env))).toEqual([A]);
    const tools = (await toolsByOrigin(env))[A];
    expect(tools?.length).toBeGreaterThan(0);

    expect(await first.stop()).toBe(0);
    const second = new HostProcess(['--port', String(port)], CLI, env);
    hosts.push(second);
    await second.url();
    expect(second.stderr).toContain('(1 pairing; toolwire pairings lists them)');
    await expect
      .poll(async () => (await toolsByOrigin(env))[A], { timeout: 60_000 })
      .toEqual(tools);
    const listed = JSON.parse((await toolwire(['pairings', '--json'], env)).out);
    expect(listed.pairings).toMatchObject([
      { origin: extension, kind: 'extension', connected: true },
    ]);
  } finally {
    await browser.close();
  }
});

test('with --no-keep-pairings a restarted host does not know the tab: it is refused and asks for a new link', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const env = environment();
  const first = new HostProcess(['--no-keep-pairings', '--page', `${A}${PAGE}`], CLI, env);
  hosts.push(first);
  const port = portOf(await first.url());
  expect(first.stderr).toContain('pairings last this run only (--no-keep-pairings)');
  await openLink(page, await first.pairingLink());
  await expect.poll(async () => Object.keys(await toolsByOrigin(env))).toEqual([A]);
  expect(await first.stop()).toBe(0);
  const refused = page.waitForEvent('console', (message) =>
    message.text().includes("refused this tab's pairing"),
  );
  const second = new HostProcess(['--no-keep-pairings', '--port', String(port)], CLI, env);
  hosts.push(second);
  await second.url();
  expect((await refused).text()).toContain('not known to the host');
  expect(await page.evaluate(() => sessionStorage.getItem('toolwire.pairing'))).toBeNull();
  expect(await sessions(env)).toEqual([]);
  expect(JSON.parse((await toolwire(['pairings', '--json'], env)).out).pairings).toEqual([]);
});
