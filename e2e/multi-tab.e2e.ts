import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { toolwire } from './support/cli.js';
import { launchMcp } from './support/mcp.js';

// Issue 17 part 3, end to end: two real tabs of two origins register the same tool id with one
// `toolwire mcp` (the built bin, the SDK's MCP client over stdio). Both are callable under their
// own names, each tool names its tab, the names stay put as a tab closes and comes back, and
// `toolwire_sessions` / `toolwire_call` reach either tab. The second tab reports a title of its
// choosing (ConnectOptions.page), as an extension connecting for a tab would.

const ORIGIN_A = `http://localhost:${E2E_PORT}`;
const ORIGIN_B = `http://127.0.0.1:${E2E_PORT}`;
const PAGE = '/e2e/pages/host/tab.html';

type Client = Awaited<ReturnType<typeof launchMcp>>['client'];

const whoamiTools = async (client: Client) =>
  (await client.listTools()).tools.filter((tool) => tool.name.startsWith('demo_whoami'));

async function open(page: Page, origin: string, query: string, hostUrl: string): Promise<void> {
  await page.goto(`${origin}${PAGE}?${query}#toolwire=${encodeURIComponent(hostUrl)}`);
  await expect(page.locator('#status')).toHaveText('open');
}

test('two tabs with one tool id: both callable over MCP, by name and through toolwire_call', async ({
  page,
  context,
}) => {
  // The whole test's bound, not a wait: more work than the default 30 s allows a busy machine.
  test.setTimeout(60_000);
  const env = { TOOLWIRE_STATE: join(mkdtempSync(join(tmpdir(), 'toolwire-multitab-')), 's.json') };
  const mcp = await launchMcp(
    ['--port', '0', '--allow-origin', ORIGIN_A, '--allow-origin', ORIGIN_B],
    env,
  );
  const { client } = mcp;
  try {
    const url = await mcp.hostUrl();
    await open(page, ORIGIN_A, 'title=Inbox', url);
    await expect.poll(async () => (await whoamiTools(client)).length).toBe(1);
    const other = await context.newPage();
    // The document says "Worker"; connect() reports "Drafts" for it.
    await open(other, ORIGIN_B, 'title=Worker&reportTitle=Drafts', url);
    await expect.poll(async () => (await whoamiTools(client)).length).toBe(2);

    const { sessions } = (await client.callTool({ name: 'toolwire_sessions', arguments: {} }))
      .structuredContent as { sessions: any[] };
    expect(sessions).toHaveLength(2);
    const [inbox, drafts] = sessions;
    expect(inbox).toMatchObject({
      tab: { title: 'Inbox', origin: ORIGIN_A, url: expect.stringContaining(`${ORIGIN_A}${PAGE}`) },
      connectedFrom: ORIGIN_A,
      // The built-ins (ui.*) are both tabs' too: the same naming applies to them.
      tools: expect.arrayContaining([
        expect.objectContaining({ id: 'demo.whoami', name: 'demo_whoami', policy: 'read' }),
        expect.objectContaining({ id: 'ui.query_nodes', name: 'ui_query_nodes' }),
      ]),
    });
    const label = drafts.label as string;
    expect(drafts).toMatchObject({
      tab: { title: 'Drafts', origin: ORIGIN_B },
      connectedFrom: ORIGIN_B,
      tools: expect.arrayContaining([
        expect.objectContaining({ id: 'demo.whoami', name: `demo_whoami__${label}` }),
        expect.objectContaining({ id: 'ui.query_nodes', name: `ui_query_nodes__${label}` }),
      ]),
    });
    expect(label).toMatch(/^[0-9a-f]{8}$/);

    // Each tool says its tab; each name reaches its own tab.
    const [mine, theirs] = await whoamiTools(client);
    expect(mine?.name).toBe('demo_whoami');
    expect(mine?.description).toContain(`[tab "Inbox" at ${ORIGIN_A}, session ${inbox.label}]`);
    expect(theirs?.name).toBe(`demo_whoami__${label}`);
    expect(theirs?.description).toContain(`[tab "Drafts" at ${ORIGIN_B}, session ${label}]`);
    expect(theirs?._meta?.['toolwire/tab']).toMatchObject({ title: 'Drafts', origin: ORIGIN_B });
    const whoami = async (name: string) =>
      (await client.callTool({ name, arguments: {} })).structuredContent;
    expect(await whoami('demo_whoami')).toEqual({ origin: ORIGIN_A, title: 'Inbox' });
    expect(await whoami(`demo_whoami__${label}`)).toEqual({ origin: ORIGIN_B, title: 'Worker' });

    // The fallback call, by session and tool id.
    const called = await client.callTool({
      name: 'toolwire_call',
      arguments: { session: drafts.id, tool: 'demo.whoami', arguments: {} },
    });
    expect(called).toMatchObject({
      isError: false,
      structuredContent: { origin: ORIGIN_B, title: 'Worker' },
    });
    expect(await page.evaluate(() => (window as any).calls)).toBe(1);
    expect(await other.evaluate(() => (window as any).calls)).toBe(2);

    // The terminal sees the same tabs (the reported title, escaped as any page text).
    const listed = await toolwire(['sessions', '--json'], env);
    expect(
      JSON.parse(listed.out)
        .sessions.map((s: any) => [s.origin, s.page.title])
        .sort(),
    ).toEqual(
      [
        [ORIGIN_B, 'Drafts'],
        [ORIGIN_A, 'Inbox'],
      ].sort(),
    );

    // The first tab closes: the other keeps its name. It comes back: it takes the plain name
    // again, and the other's still does not move.
    await page.close();
    await expect
      .poll(async () => (await whoamiTools(client)).map((tool) => tool.name))
      .toEqual([`demo_whoami__${label}`]);
    const back = await context.newPage();
    await open(back, ORIGIN_A, 'title=Inbox', url);
    await expect
      .poll(async () => (await whoamiTools(client)).map((tool) => tool.name))
      .toEqual(['demo_whoami', `demo_whoami__${label}`]);
    expect(await whoami('demo_whoami')).toEqual({ origin: ORIGIN_A, title: 'Inbox' });
    expect(await whoami(`demo_whoami__${label}`)).toEqual({ origin: ORIGIN_B, title: 'Worker' });
  } finally {
    await client.close();
  }
});
