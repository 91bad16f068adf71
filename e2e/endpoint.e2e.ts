import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { clickConnect } from './support/pairing.js';
import { type HostConnection, TestHost, waitForMessage } from './support/ws-host.js';

// The page as a remote-tool endpoint, end to end: a real `ws` server in Node, the real
// endpoint in Debian's Chromium, docs/wire.md's sourced behaviours over the socket.

let host: TestHost;
const ENDPOINT_VERSION = JSON.parse(
  readFileSync(new URL('../packages/endpoint/package.json', import.meta.url), 'utf8'),
).version;

test.beforeEach(async () => {
  host = await new TestHost().start();
});

test.afterEach(async () => {
  await host.stop();
});

async function openPage(page: Page, query = ''): Promise<HostConnection> {
  const connection = host.nextConnection();
  await page.goto(`/e2e/pages/endpoint/page.html${query}#${encodeURIComponent(host.url)}`);
  const conn = await connection;
  await waitForMessage(conn.messages, (m) => m?.type === 'session.open');
  return conn;
}

const ids = (listing: any) => listing.tools.map((tool: { id: string }) => tool.id);

test('session.open, then index listing, conditional query and definitions', async ({ page }) => {
  const { client, messages } = await openPage(page);
  const open = messages.find((m) => m.type === 'session.open');
  expect(open.payload).toMatchObject({
    sdk: { name: 'toolwire-web', version: ENDPOINT_VERSION },
    page: { origin: `http://localhost:${E2E_PORT}`, title: 'toolwire endpoint e2e' },
  });
  const index: any = await client.query({ detail: 'index' });
  expect(ids(index)).toEqual([
    'demo.big',
    'demo.echo',
    'demo.fail',
    'demo.when',
    'map.capture',
    'notes.add',
    'notes.delete',
    'ui.get_screenshot',
    'ui.get_visual_tree',
    'ui.perform_action',
    'ui.query_nodes',
  ]);
  const echo = index.tools.find((t: { id: string }) => t.id === 'demo.echo');
  expect(echo).toMatchObject({ name: 'Echo', category: 'demo', policy: 'read' });
  expect(echo).not.toHaveProperty('argumentsSchema');
  expect(index.tools.find((t: { id: string }) => t.id === 'notes.delete').policy).toBe('critical');
  expect(
    index.tools.find((t: { id: string }) => t.id === 'map.capture').prerequisiteToolIds,
  ).toEqual(['demo.echo']);
  const unchanged = await client.query({
    detail: 'index',
    ifRevision: index.revision,
    ifAvailabilityRevision: index.availabilityRevision,
  });
  expect(unchanged).toEqual({
    schema: 'ansight.tool-catalog.v3',
    revision: index.revision,
    unchanged: true,
  });
  const definitions: any = await client.query({ detail: 'definitions', ids: ['demo.when'] });
  expect(definitions.tools[0].argumentsSchema).toEqual({
    type: 'object',
    properties: { at: { type: 'string', format: 'date-time' } },
    required: ['at'],
  });
});

test('calls: lifting and lowering, errors mapped to wire codes, evidence', async ({ page }) => {
  const { client } = await openPage(page);
  expect((await client.call({ toolId: 'demo.echo', arguments: { text: 'hi' } })).result).toEqual({
    text: 'hi',
  });
  expect(
    (await client.call({ toolId: 'demo.when', arguments: { at: '2026-11-30T10:00:00Z' } })).result,
  ).toEqual({
    year: 2026,
    isDate: true,
  });
  const schema = await client
    .call({ toolId: 'demo.when', arguments: { at: 'soon' } })
    .catch((e) => e);
  expect(schema.code).toBe('tool_arguments_schema_invalid');
  const thrown = await client.call({ toolId: 'demo.fail' }).catch((e) => e);
  expect(thrown.code).toBe('tool_execution_exception');
  expect(thrown.details).toMatchObject({ name: 'RangeError', message: 'on purpose' });
  const withEvidence = await client.call({
    toolId: 'demo.echo',
    arguments: {},
    after: { include: ['visualTree'] },
  });
  expect(withEvidence.evidence?.visualTree).toMatchObject({
    toolId: 'ui.get_visual_tree',
    success: true,
  });
});

test('availability change reaches the host as `changes`', async ({ page }) => {
  const { client } = await openPage(page);
  const index: any = await client.query({ detail: 'index' });
  await page.evaluate(() => {
    (window as any).mapLoaded = false;
  });
  const changed: any = await client.query({
    detail: 'index',
    ifRevision: index.revision,
    ifAvailabilityRevision: index.availabilityRevision,
  });
  expect(changed.unchanged).toBe(true);
  expect(changed.changes).toEqual({
    'map.capture': {
      available: false,
      code: 'map_not_loaded',
      reason: 'Load a map first.',
      retryable: true,
    },
    // No capture provider on this page: the screenshot built-in is unavailable all along.
    'ui.get_screenshot': expect.objectContaining({
      available: false,
      code: 'screenshot_unavailable',
    }),
  });
  const call = await client.call({ toolId: 'map.capture' }).catch((e) => e);
  expect(call).toMatchObject({ code: 'map_not_loaded', retryable: true });
});

test('a batch stops at the first failure; a 1 MiB result arrives compressed', async ({ page }) => {
  const { client } = await openPage(page);
  const batch = await client.batch({
    calls: [
      { toolId: 'demo.echo', arguments: {} },
      { toolId: 'demo.fail' },
      { toolId: 'demo.echo' },
    ],
  });
  expect(batch).toMatchObject({ success: false, completed: 2, requested: 3, stoppedEarly: true });
  expect(await page.evaluate(() => (window as any).calls)).toEqual(['demo.echo']);
  const response = await client.request('tool.call', { toolId: 'demo.big' });
  expect(response.type).toBe('tool.result');
  expect(response.encoding?.originalByteCount).toBeGreaterThan(1_000_000);
  expect(response.encoding?.compressedByteCount).toBeLessThan(100_000);
  expect((response.payload as any).result.text.length).toBe(1_080_000);
});

test('guard presets decide what the host sees and may call', async ({ page }) => {
  const { client } = await openPage(page, '?guard=read-only');
  const index: any = await client.query({ detail: 'index' });
  expect(ids(index)).not.toContain('notes.add');
  expect(ids(index)).not.toContain('ui.perform_action');
  const denied = await client.call({ toolId: 'notes.add' }).catch((e) => e);
  expect(denied.code).toBe('tool_execution_denied');
});

test('a new tool pushes tool.catalog.changed; non-agent tools never appear', async ({ page }) => {
  const { client, messages } = await openPage(page);
  const index: any = await client.query({ detail: 'index' });
  expect(ids(index)).not.toContain('internal.only');
  await page.evaluate(() =>
    (window as any).toolManager.register({
      name: 'late.tool',
      naturalLanguageProperties: { description: 'Came later.' },
      execute: () => 'late',
    }),
  );
  const changed = await waitForMessage(messages, (m) => m?.type === 'tool.catalog.changed');
  expect(changed.payload.revision).not.toBe(index.revision);
  expect(ids(await client.query({ detail: 'index' }))).toContain('late.tool');
});

test('tools from a cross-origin iframe with allow="tools" are in the catalog and callable', async ({
  page,
}) => {
  const { client } = await openPage(page, '?frame=allow');
  await expect
    .poll(async () => ids(await client.query({ detail: 'index' })))
    .toContain('frame.greet');
  const result = await client.call({ toolId: 'frame.greet', arguments: { hello: 1 } });
  expect(result.result).toMatchObject({ from: 'child', tool: 'frame.greet', echo: { hello: 1 } });
});

test('without allow="tools" the iframe tools stay out of the catalog', async ({ page }) => {
  const { client } = await openPage(page, '?frame=deny');
  await page.waitForFunction(() => document.querySelector('iframe') !== null);
  // The barrier: the frame is up and linked (the top reads what it exposes to the top directly),
  // so a coalesced catalog would hold its tool by now had the frame been allowed.
  await expect
    .poll(() =>
      page.evaluate(async () =>
        (await (window as any).tools.of(document.querySelector('iframe')).getTools()).map(
          (tool: { name: string }) => tool.name,
        ),
      ),
    )
    .toEqual(['frame.greet']);
  expect(ids(await client.query({ detail: 'index' }))).not.toContain('frame.greet');
  expect((await client.call({ toolId: 'frame.greet' }).catch((e) => e)).code).toBe(
    'tool_not_found',
  );
});

test('the built-in ui tools drive a real form', async ({ page }) => {
  const { client } = await openPage(page);
  const found = await client.call({
    toolId: 'ui.query_nodes',
    arguments: { automationId: 'name-input' },
  });
  const reference = (found.result as any).nodes[0].reference;
  await client.call({
    toolId: 'ui.perform_action',
    arguments: { reference, action: 'setText', text: 'Ada' },
  });
  const button = await client.call({
    toolId: 'ui.query_nodes',
    arguments: { role: 'button', text: 'save' },
  });
  await client.call({
    toolId: 'ui.perform_action',
    arguments: { reference: (button.result as any).nodes[0].reference, action: 'tap' },
  });
  await expect(page.locator('#saved')).toHaveText('saved Ada');
});

test('the host restarts: the page reconnects, opens a new session, serves the catalog again', async ({
  page,
}) => {
  const first = await openPage(page);
  await first.client.query({ detail: 'index' });
  const port = host.port;
  await host.stop();
  await first.closed;
  host = await new TestHost().start(port);
  const second = await host.nextConnection(0);
  await waitForMessage(second.messages, (m) => m?.type === 'session.open');
  expect(ids(await second.client.query({ detail: 'index' }))).toContain('demo.echo');
  expect(await page.evaluate(() => (window as any).statuses)).toContain('connecting');
});

test('a hostile host: junk, unknown types, other capabilities, a 20 MiB frame, a flood of queries', async ({
  page,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const conn = await openPage(page);
  const raw: any[] = [];
  conn.socket.on('message', (data) => raw.push(JSON.parse(data.toString())));
  conn.socket.send('not json at all');
  conn.socket.send(Buffer.from([0, 1, 2, 3, 255]));
  conn.socket.send(JSON.stringify({ type: 'tool.cancel', id: 'x1', payload: {} }));
  conn.socket.send(
    JSON.stringify({ type: 'tool.call', id: 'x2', capability: 'screen.stream', payload: {} }),
  );
  conn.socket.send('{"type":"tool.query","id":');
  await expect.poll(() => raw.length).toBe(2);
  expect(raw.map((m) => [m.type, m.payload.code])).toEqual([
    ['tool.error', 'tool_protocol_unknown_type'],
    ['tool.error', 'tool_protocol_invalid_request'],
  ]);
  // A flood of 10,000 queries: every one answered.
  const replies = await Promise.all(
    Array.from({ length: 10_000 }, () => conn.client.query({ detail: 'index', limit: 1 })),
  );
  expect(replies).toHaveLength(10_000);
  expect(await page.evaluate(() => 1 + 1)).toBe(2);
  // 20 MiB: over the 16 MiB default, the page closes (4009: pages may not send 1009) and comes back.
  const next = host.nextConnection();
  conn.socket.send(
    JSON.stringify({
      type: 'tool.query',
      id: 'big',
      payload: { pad: 'x'.repeat(20 * 1024 * 1024) },
    }),
  );
  expect(await conn.closed).toEqual({ code: 4009, reason: 'message too big' });
  const again = await next;
  await waitForMessage(again.messages, (m) => m?.type === 'session.open');
  expect(ids(await again.client.query({ detail: 'index' }))).toContain('demo.echo');
  expect(errors).toEqual([]);
});

test('a page with only <script src=endpoint.iife.js> and a pairing link connects to a host', async ({
  page,
}) => {
  const connection = host.nextConnection();
  host.secrets.push('abc-pairing-code');
  await page.goto(
    `/e2e/pages/endpoint/iife.html#toolwire=${encodeURIComponent(`${host.url}?pair=abc-pairing-code`)}`,
  );
  await clickConnect(page);
  const conn = await connection;
  // The code never travels, only its id; the page serves once the welcome proved the host.
  expect(conn.url.searchParams.has('pair-id')).toBe(true);
  expect(conn.url.toString()).not.toContain('abc-pairing-code');
  conn.welcome();
  const open = await waitForMessage(conn.messages, (m) => m?.type === 'session.open');
  expect(open.payload.page.title).toBe('only the endpoint script');
  // The token is gone from the address bar once read.
  expect(await page.evaluate(() => location.hash)).toBe('');
  const index: any = await conn.client.query({ detail: 'index' });
  // Default guard: read-only, so the read built-ins only.
  expect(ids(index)).toEqual(['ui.get_screenshot', 'ui.get_visual_tree', 'ui.query_nodes']);
  const tree: any = await conn.client.call({
    toolId: 'ui.query_nodes',
    arguments: { automationId: 'hello' },
  });
  expect(tree.result.count).toBe(1);
  // And the page can register tools on the installed globals afterwards.
  await page.evaluate(() =>
    (window as any).toolManager.register({
      name: 'late.hi',
      naturalLanguageProperties: { description: 'Says hi.', annotations: { readOnlyHint: true } },
      execute: () => 'hi',
    }),
  );
  await expect
    .poll(async () => ids(await conn.client.query({ detail: 'index' })))
    .toContain('late.hi');
  expect((await conn.client.call({ toolId: 'late.hi' })).result).toBe('hi');
});
