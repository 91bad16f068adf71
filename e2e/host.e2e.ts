import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, type Page, test } from '@playwright/test';
import type { Host, HostOptions, HostSession } from '../packages/host/src/index.js';
import { createHost } from '../packages/host/src/index.js';
import { E2E_PORT } from '../playwright.config.js';
import { launchMcp } from './support/mcp.js';
import { openPaired, withConnectUrl } from './support/pairing.js';

// The toolwire host against real pages: @toolwire/host in Node, the endpoint in Debian's
// Chromium, on the two origins the e2e server offers (localhost and 127.0.0.1, same port).

const ORIGIN = `http://localhost:${E2E_PORT}`;
const OTHER_ORIGIN = `http://127.0.0.1:${E2E_PORT}`;
const PAGE = '/e2e/pages/host/page.html';

let host: Host | undefined;

test.afterEach(async () => {
  await host?.close();
  host = undefined;
});

async function open(
  page: Page,
  options: HostOptions = {},
  query = '',
): Promise<{ host: Host; session: HostSession }> {
  host ??= await createHost({ origins: [ORIGIN], ...options });
  const connected = host.waitForSession({ timeoutMs: 10_000 });
  await page.goto(withConnectUrl(host, `${ORIGIN}${PAGE}${query}`));
  return { host, session: await connected };
}

const requests = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).requests);
const ids = (session: HostSession) => session.tools().map((tool) => tool.id);

test('a page connects: session.open, origin, and its catalog in two queries', async ({ page }) => {
  const { session } = await open(page);
  await expect.poll(() => session.info?.page.title).toBe('toolwire host e2e');
  expect(session.origin).toBe(ORIGIN);
  expect(session.info).toMatchObject({ sdk: { name: 'toolwire-web' }, page: { origin: ORIGIN } });
  expect(ids(session)).toEqual([
    'demo.big',
    'demo.echo',
    'demo.slow',
    'notes.add',
    'notes.delete',
    'ui.get_screenshot',
    'ui.get_visual_tree',
    'ui.perform_action',
    'ui.query_nodes',
  ]);
  expect(session.catalog.get('demo.echo')).toMatchObject({
    name: 'Echo',
    policy: 'read',
    argumentsSchema: { type: 'object', properties: { text: { type: 'string' } } },
  });
  expect(session.catalog.get('notes.delete')?.policy).toBe('critical');
  // The index, then the definitions of every tool; nothing else.
  expect(await requests(page)).toEqual(['tool.query', 'tool.query']);
});

test('calls: results, the grant refusing before the page is asked, 1 MiB as it is on loopback', async ({
  page,
  context,
}) => {
  const { session } = await open(page);
  expect(session.grant).toBe('read');
  const echo = await session.call('demo.echo', { text: 'hi' });
  expect(echo).toMatchObject({ toolId: 'demo.echo', success: true, result: { text: 'hi' } });
  for (const id of ['notes.add', 'notes.delete']) {
    await expect(session.call(id)).rejects.toMatchObject({
      code: 'tool_execution_denied',
      retryable: false,
      details: { deniedBy: 'host-grant', maxToolPolicy: 'read' },
    });
  }
  expect(await page.evaluate(() => (window as any).calls)).toEqual(['demo.echo']);
  expect((await requests(page)).filter((r) => r.startsWith('tool.call'))).toEqual([
    'tool.call demo.echo',
  ]);
  const big = await session.call('demo.big');
  expect((big.result as any).text).toHaveLength(1_080_000);
  // On loopback the welcome asks for no gzip (docs/wire.md "Large payloads")...
  expect(session.stats.encodedResponses).toBe(0);
  // ...and with --compress on the page gzips it.
  await host?.close();
  host = undefined;
  const gzipped = await open(await context.newPage(), { compress: 'on' });
  await expect.poll(() => gzipped.session.catalog.get('demo.big')).toBeDefined();
  expect(((await gzipped.session.call('demo.big')).result as any).text).toHaveLength(1_080_000);
  expect(gzipped.session.stats.encodedResponses).toBe(1);
  expect(gzipped.session.stats.originalBytes).toBeGreaterThan(1_080_000);
  expect(gzipped.session.stats.compressedBytes).toBeLessThan(100_000);
});

test('a write grant calls write tools; the page guard still wins over a critical grant', async ({
  page,
  context,
}) => {
  const { session } = await open(page, { maxToolPolicy: 'write' });
  expect((await session.call('notes.add')).result).toEqual({ added: true });
  await expect(session.call('notes.delete')).rejects.toMatchObject({
    code: 'tool_execution_denied',
    details: { deniedBy: 'host-grant', policy: 'critical', maxToolPolicy: 'write' },
  });
  await host?.close();
  host = undefined;
  const second = await context.newPage();
  const guarded = await open(second, { maxToolPolicy: 'critical' }, '?guard=read-only');
  expect(ids(guarded.session)).not.toContain('notes.add');
  // Not "not found": the page lists it, its own guard keeps it off the wire.
  await expect(guarded.session.call('notes.add')).rejects.toMatchObject({
    code: 'tool_execution_denied',
    message: expect.stringContaining("hidden by the page's guard (read-only)"),
    details: { deniedBy: 'page-guard', policy: 'write', guard: 'read-only' },
  });
  expect(await second.evaluate(() => (window as any).calls)).toEqual([]);
});

test('the origin allow-list and the token decide who gets a session', async ({ page }) => {
  const log: string[] = [];
  host = await createHost({ origins: [ORIGIN], log: (line) => log.push(line) });
  const sessions: string[] = [];
  host.on('session', (session) => sessions.push(session.origin ?? ''));
  const refusals = (status: number) => log.filter((line) => line.includes(`: ${status} (`));
  // A foreign origin (same server, other host name) and a wrong token: refused, retried,
  // refused (the log says so once per origin per interval).
  await page.goto(withConnectUrl(host, `${OTHER_ORIGIN}${PAGE}`));
  await expect.poll(() => refusals(403).length).toBe(1);
  const wrong = host.url.replace(/token=[^&]+/, 'token=wrong');
  await page.goto(`${ORIGIN}${PAGE}#toolwire=${encodeURIComponent(wrong)}`);
  await expect.poll(() => refusals(401).length).toBe(1);
  expect(sessions).toEqual([]);
  expect(await page.locator('#status').textContent()).toBe('connecting');
  // (A new query string: a change of fragment alone would not load the page again.)
  const { session } = await open(page, {}, '?again=1');
  expect(session.origin).toBe(ORIGIN);
  expect(sessions).toEqual([ORIGIN]);
});

test('default deny: with no origin allowed, a real page is refused with 403', async ({ page }) => {
  const log: string[] = [];
  host = await createHost({ log: (line) => log.push(line) });
  const sessions: string[] = [];
  host.on('session', (session) => sessions.push(session.id));
  await page.goto(withConnectUrl(host, `${ORIGIN}${PAGE}`));
  await expect
    .poll(() => log.filter((line) => line.includes(`origin ${ORIGIN} not allowed`)).length)
    .toBeGreaterThanOrEqual(1);
  expect(sessions).toEqual([]);
  expect(log.join('\n')).toContain('no origin is allowed');
});

test('a tool registered later: the push refreshes the catalog, definitions for it alone', async ({
  page,
}) => {
  const { host: h, session } = await open(page);
  const before = (await requests(page)).length;
  const changed = new Promise((resolve) => h.on('catalog', resolve));
  await page.evaluate(() =>
    (window as any).toolManager.register({
      name: 'late.tool',
      naturalLanguageProperties: {
        description: 'Came later.',
        annotations: { readOnlyHint: true },
        inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
      },
      execute: ({ n }: { n: number }) => n * 2,
    }),
  );
  await changed;
  expect(session.catalog.get('late.tool')?.argumentsSchema).toMatchObject({
    properties: { n: { type: 'integer' } },
  });
  expect((await requests(page)).slice(before)).toEqual(['tool.query', 'tool.query']);
  expect((await session.call('late.tool', { n: 21 })).result).toBe(42);
});

test('a tool gone before the push: tool_not_found, one refresh, no second call', async ({
  page,
}) => {
  // The page pushes changes an hour late (never within this test), so the host still lists
  // the tool: the window is held open for the whole test, not for a few seconds.
  const { session } = await open(page, {}, '?changedDelay=3600000');
  await page.evaluate(() => (window as any).toolManager.unregister('demo.echo'));
  const before = (await requests(page)).length;
  const error = await session.call('demo.echo').catch((e) => e);
  expect(error.code).toBe('tool_not_found');
  expect((await requests(page)).slice(before)).toEqual(['tool.call demo.echo', 'tool.query']);
  expect(session.catalog.get('demo.echo')).toBeUndefined();
});

test('the page goes away: pending calls fail at once, the session ends', async ({ page }) => {
  const { host: h, session } = await open(page);
  const pending = [session.call('demo.slow'), session.call('demo.slow')].map((call) =>
    call.catch((e) => e),
  );
  await expect.poll(() => session.pendingCount).toBe(2);
  const started = Date.now();
  await page.goto('about:blank');
  const errors = await Promise.all(pending);
  // A bound, not a measure: "at once" as against the calls' own timeout, far longer.
  expect(Date.now() - started).toBeLessThan(5000);
  expect(errors.map((e) => e.code)).toEqual(['tool_transport_closed', 'tool_transport_closed']);
  expect(h.sessions).toEqual([]);
});

test("a cancel and a deadline reach the page's tool; the host hears at once, or from the page", async ({
  page,
}) => {
  const { session } = await open(page);
  const slow = () => page.evaluate(() => (window as any).slow as number);
  const aborted = () => page.evaluate(() => (window as any).aborted as string[]);
  // Cancelled by the caller: rejected at once, and the page's tool is told to stop.
  const controller = new AbortController();
  const cancelled = session
    .call('demo.slow', {}, { signal: controller.signal })
    .catch((error) => error);
  await expect.poll(slow).toBe(1);
  expect(await aborted()).toEqual([]);
  controller.abort();
  expect(await cancelled).toMatchObject({ code: 'tool_call_cancelled', retryable: false });
  await expect.poll(aborted).toEqual(['AbortError']);
  // A deadline of its own: the page gives up at it and says so (the host's own give-up, 2 s
  // later, would be tool_timeout).
  const timedOut = await session.call('demo.slow', {}, { timeoutMs: 300 }).catch((error) => error);
  expect(timedOut).toMatchObject({ code: 'tool_execution_timeout', retryable: true });
  await expect.poll(aborted).toEqual(['AbortError', 'AbortError']);
  expect(session.pendingCount).toBe(0);
  expect(session.isOpen).toBe(true);
});

test('a page with only endpoint.iife.js pairs from the link pairingUrl makes', async ({ page }) => {
  host = await createHost({ origins: [ORIGIN] });
  const connected = host.waitForSession({ timeoutMs: 10_000 });
  await openPaired(page, host, `${ORIGIN}/e2e/pages/host/iife.html`);
  const session = await connected;
  await expect.poll(() => session.info?.page.title).toBe('toolwire host e2e: one script tag');
  // The code left the address bar once read.
  expect(await page.evaluate(() => location.hash)).toBe('');
  // The IIFE's default guard is read-only: the read built-ins.
  expect(ids(session)).toEqual(['ui.get_screenshot', 'ui.get_visual_tree', 'ui.query_nodes']);
  const found = await session.call('ui.query_nodes', { automationId: 'hello' });
  expect((found.result as any).count).toBe(1);
});

// ---- the built `toolwire` bin as an MCP server -------------------------------------------

const CLI = fileURLToPath(new URL('../packages/host/dist/cli.js', import.meta.url));
const stateDir = mkdtempSync(join(tmpdir(), 'toolwire-host-e2e-'));
let states = 0;
const freshState = () => join(stateDir, `state-${++states}.json`);

class McpProcess {
  readonly child: ChildProcessWithoutNullStreams;
  messages: any[] = [];
  stderr = '';
  #id = 0;

  constructor(args: string[]) {
    // A state file of its own: `toolwire mcp` attaches to (or publishes) the host it names.
    this.child = spawn(process.execPath, [CLI, 'mcp', ...args], {
      stdio: 'pipe',
      env: { ...process.env, TOOLWIRE_STATE: freshState() },
    });
    this.child.stderr.on('data', (chunk) => {
      this.stderr += chunk;
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.messages.push(JSON.parse(line));
    });
  }

  async url(): Promise<string> {
    await expect.poll(() => /url: '([^']+)'/.exec(this.stderr)?.[1]).toBeTruthy();
    return /url: '([^']+)'/.exec(this.stderr)?.[1] as string;
  }

  async rpc(method: string, params?: object): Promise<any> {
    const id = ++this.#id;
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    await expect.poll(() => this.messages.some((m) => m.id === id)).toBe(true);
    return this.messages.find((m) => m.id === id);
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  exit(): Promise<number | null> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) resolve(this.child.exitCode);
      else this.child.once('exit', (code) => resolve(code));
    });
  }
}

test('`toolwire mcp` (the built bin) serves a real page to an MCP client over stdio', async ({
  page,
}) => {
  const mcp = new McpProcess([
    '--port',
    '0',
    '--max-tool-policy',
    'write',
    '--allow-origin',
    ORIGIN,
  ]);
  try {
    const url = await mcp.url();
    const init = await mcp.rpc('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'e2e', version: '0' },
    });
    expect(init.result.capabilities).toEqual({ tools: { listChanged: true } });
    mcp.notify('notifications/initialized');
    await page.goto(`${ORIGIN}${PAGE}#toolwire=${encodeURIComponent(url)}`);
    await expect.poll(() => mcp.stderr).toMatch(/catalog tools, 9 tools/);
    const listed = await mcp.rpc('tools/list');
    const names = listed.result.tools.map((tool: any) => tool.name);
    expect(names).toContain('demo_echo');
    expect(names).toContain('notes_add');
    expect(names).not.toContain('notes_delete');
    const echo = await mcp.rpc('tools/call', { name: 'demo_echo', arguments: { text: 'hi' } });
    expect(echo.result).toMatchObject({ isError: false, structuredContent: { text: 'hi' } });
    const added = await mcp.rpc('tools/call', { name: 'notes_add', arguments: {} });
    expect(added.result.content).toEqual([{ type: 'text', text: '{"added":true}' }]);
    const before = mcp.messages.length;
    await page.evaluate(() =>
      (window as any).toolManager.register({
        name: 'late.tool',
        naturalLanguageProperties: { description: 'Came later.' },
        execute: () => 'late',
      }),
    );
    await expect
      .poll(() =>
        mcp.messages.slice(before).some((m) => m.method === 'notifications/tools/list_changed'),
      )
      .toBe(true);
    expect((await mcp.rpc('tools/list')).result.tools.map((t: any) => t.name)).toContain(
      'late_tool',
    );
    // The token is printed once (the connect line) and never in a log line.
    const token = new URL(url).searchParams.get('token') as string;
    expect(mcp.stderr.split('\n').filter((line) => line.includes(token))).toHaveLength(1);
    mcp.child.stdin.end();
    expect(await mcp.exit()).toBe(0);
  } finally {
    mcp.child.kill();
  }
});

test('the SDK client over stdio: tools/list shows the page tools, tools/call runs one in the page', async ({
  page,
}) => {
  const { ToolListChangedNotificationSchema } = await import('../packages/host/test/mcp-client.js');
  let changed = 0;
  const mcp = await launchMcp(
    ['--port', '0', '--allow-origin', ORIGIN],
    { TOOLWIRE_STATE: freshState() },
    {
      beforeConnect: (client) =>
        client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
          changed++;
        }),
    },
  );
  const { client } = mcp;
  try {
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true } });
    expect(client.getServerVersion()).toMatchObject({ name: 'toolwire' });
    // Only the bridge's own tools before a page connects.
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'toolwire_pair',
      'toolwire_sessions',
      'toolwire_call',
    ]);
    const url = await mcp.hostUrl();
    await page.goto(`${ORIGIN}${PAGE}#toolwire=${encodeURIComponent(url)}`);
    await expect.poll(() => changed).toBeGreaterThanOrEqual(1);
    const { tools } = await client.listTools();
    // The read grant (the default): read tools only, ids made MCP-safe.
    expect(tools.map((tool) => tool.name)).toEqual([
      'toolwire_pair',
      'toolwire_sessions',
      'toolwire_call',
      'demo_big',
      'demo_echo',
      'demo_slow',
      'ui_get_screenshot',
      'ui_get_visual_tree',
      'ui_query_nodes',
    ]);
    const echoTool = tools.find((tool) => tool.name === 'demo_echo');
    expect(echoTool).toMatchObject({
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      outputSchema: { type: 'object' },
      annotations: { readOnlyHint: true, destructiveHint: false },
    });
    const echo = await client.callTool({ name: 'demo_echo', arguments: { text: 'via MCP' } });
    expect(echo).toMatchObject({
      isError: false,
      structuredContent: { text: 'via MCP' },
      content: [{ type: 'text', text: '{"text":"via MCP"}' }],
    });
    expect(await page.evaluate(() => (window as any).calls)).toEqual(['demo.echo']);
    const found = await client.callTool({ name: 'ui_query_nodes', arguments: { selector: 'h1' } });
    expect(found.isError).toBe(false);
  } finally {
    await client.close();
  }
});

// Issue 13, part 8: four widget frames of the other origin, 250 agent tools each (under the cap
// per frame), named to sort before the page's tools. With the page's 5 and the 4 built-ins that is
// 1,009 tools for a listing page of at most 1,000, sorted by id: the widgets' used to take the
// whole listing. The page's own always make the first page, the frames share the rest of it, and
// every tool carries its origin to the host. Since issue 16 part 7 nothing is left out: the host
// pages past the first 1,000 and holds all 1,009.
test("frames' tools reach the host with their origin, and never crowd out the page's own", async ({
  page,
}) => {
  // The whole test's bound, not a wait: more work than the default 30 s allows a busy machine.
  test.setTimeout(120_000);
  const warnings: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'warning') warnings.push(message.text());
  });
  const { session } = await open(page);
  const own = ids(session);
  expect(own).toHaveLength(9);
  const widgets = await page.evaluate(
    ({ other, origin }) => {
      for (let f = 0; f < 4; f++) {
        const tools = Array.from({ length: 250 }, (_, i) => ({
          name: `calendar.w${f}.t${String(i).padStart(3, '0')}`,
          agent: true,
          exposedTo: [origin],
        }));
        const iframe = document.createElement('iframe');
        iframe.setAttribute('allow', 'tools');
        iframe.src = `${other}/e2e/pages/frames/frame.html#${encodeURIComponent(JSON.stringify({ id: `w${f}`, tools }))}`;
        document.body.append(iframe);
      }
      return 4;
    },
    { other: OTHER_ORIGIN, origin: ORIGIN },
  );
  await expect
    .poll(
      async () => {
        const frames = page.frames().filter((frame) => frame.url().includes('/frames/frame.html'));
        const ready = await Promise.all(
          frames.map((frame) => frame.evaluate(() => (window as any).frameReady === true)),
        );
        return ready.filter(Boolean).length;
      },
      { timeout: 60_000 },
    )
    .toBe(widgets);
  // Every registration is in: the host's copy converges on the full listing.
  await expect
    .poll(
      async () => {
        await session.refresh().catch(() => undefined);
        return session.tools().filter((tool) => tool.id.startsWith('calendar.')).length;
      },
      { timeout: 60_000 },
    )
    .toBe(1000);
  expect(session.catalog.totalCount).toBe(1009);
  expect(ids(session)).toHaveLength(1009);
  // A host that does not page reads the first 1,000: the page's own all in, and one origin's
  // share taken in listing order (by name), so the last widget's last tools wait for page two.
  const first = (await session.query({ detail: 'index' })) as { tools: { id: string }[] };
  const listed = first.tools.map((tool) => tool.id);
  expect(listed).toHaveLength(1000);
  for (const id of own) expect(listed).toContain(id);
  const perWidget = [0, 1, 2, 3].map(
    (f) => listed.filter((id) => id.startsWith(`calendar.w${f}.`)).length,
  );
  expect(perWidget).toEqual([250, 250, 250, 241]);
  // Origins: the widgets' tools are the widgets', the page's its own; built-ins claim none.
  const origins = new Set(
    session
      .tools()
      .filter((tool) => tool.id.startsWith('calendar.'))
      .map((tool) => tool.origin),
  );
  expect([...origins]).toEqual([OTHER_ORIGIN]);
  expect(session.catalog.get('demo.echo')?.origin).toBe(ORIGIN);
  expect(session.catalog.get('ui.query_nodes')?.origin).toBeUndefined();
  // Nothing is dropped, so nothing is warned about.
  expect(warnings.filter((text) => text.includes('left out'))).toEqual([]);
});
