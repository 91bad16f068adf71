import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { HostProcess, toolwire } from './support/cli.js';
import { launchMcp } from './support/mcp.js';

// Issue 16 part 7, Done-when 2: no listing cap. A page with 5,000 tools of its own (plus the 4
// built-in ui.* tools) in real Chromium, connected to the built `toolwire host` process, is
// listed whole by `toolwire tools --json` (a process) and by an MCP client (the SDK's Client over
// stdio, `toolwire mcp --attach`), and by an MCP client of `toolwire mcp` with a host of its own.
// Before paging, all three stopped at 1,000.

const ORIGIN = `http://localhost:${E2E_PORT}`;
const COUNT = 5000;
const TOTAL = COUNT + 4;
const bulk = (i: number) => `bulk.t${String(i).padStart(5, '0')}`;
const PAGE = `${ORIGIN}/e2e/pages/many/page.html`;
const dir = mkdtempSync(join(tmpdir(), 'toolwire-paging-e2e-'));

let host: HostProcess | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

test('a 5,000-tool page lists completely through toolwire tools and MCP', async ({ page }) => {
  // The whole test's bound, not a wait: more work than the default 30 s allows a busy machine.
  test.setTimeout(120_000);
  host = new HostProcess(['--allow-origin', ORIGIN]);
  const url = await host.url();
  const timings: Record<string, number> = {};

  let started = Date.now();
  await page.goto(`${PAGE}#toolwire=${encodeURIComponent(url)}`);
  await expect
    .poll(() => host?.stderr, { timeout: 60_000 })
    .toMatch(new RegExp(`catalog tools, ${TOTAL} tools\\n`));
  timings['page load to the host holding every tool'] = Date.now() - started;
  timings['registering 5,000 tools in the page'] = Math.round(
    await page.evaluate(() => (window as any).registeredMs),
  );
  expect(host.stderr).not.toMatch(/did not list the others/);

  // `toolwire tools --json`, as a process.
  started = Date.now();
  const run = await toolwire(['tools', '--json'], host.env);
  timings['toolwire tools --json (process)'] = Date.now() - started;
  expect(run.code, run.err).toBe(0);
  const listed = JSON.parse(run.out).tools as { id: string; granted: boolean }[];
  expect(listed).toHaveLength(TOTAL);
  const ids = new Set(listed.map((tool) => tool.id));
  for (let i = 0; i < COUNT; i++) expect(ids.has(bulk(i)), bulk(i)).toBe(true);
  expect(listed.filter((tool) => tool.id.startsWith('bulk.') && tool.granted)).toHaveLength(COUNT);
  const granted = listed.filter((tool) => tool.granted).length;
  // The human table too: a header, then one line per tool.
  const table = await toolwire(['tools'], host.env);
  expect(table.code, table.err).toBe(0);
  expect(table.out.split('\n').filter((line) => line.startsWith('bulk.t'))).toHaveLength(COUNT);

  // An MCP client: one tools/list holds every tool; a tool far past the old cap runs.
  const { client } = await launchMcp(['--attach'], host.env);
  try {
    started = Date.now();
    const answer = await client.listTools();
    timings['MCP tools/list (toolwire mcp --attach)'] = Date.now() - started;
    expect(answer.nextCursor).toBeUndefined();
    const names = new Set(answer.tools.map((tool) => tool.name));
    // The bridge's own three and every granted tool: the page's 5,000 and the read-only built-ins.
    expect(names.size).toBe(granted + 3);
    for (let i = 0; i < COUNT; i++) {
      const name = bulk(i).replace('.', '_');
      expect(names.has(name), name).toBe(true);
    }
    const last = await client.callTool({ name: 'bulk_t04999', arguments: { n: 7 } });
    expect(last).toMatchObject({ isError: false, content: [{ type: 'text' }] });
    expect(JSON.parse((last.content as { text: string }[])[0]?.text ?? '')).toEqual({
      tool: 4999,
      n: 7,
    });
  } finally {
    await client.close();
  }
  console.log(`5,000-tool listing timings (ms): ${JSON.stringify(timings)}`);
});

test('`toolwire mcp` with a host of its own lists a 5,000-tool page whole to the SDK client', async ({
  page,
}) => {
  // The whole test's bound, not a wait: more work than the default 30 s allows a busy machine.
  test.setTimeout(120_000);
  const mcp = await launchMcp(['--port', '0', '--allow-origin', ORIGIN], {
    TOOLWIRE_STATE: join(dir, 'own-host.json'),
  });
  const { client } = mcp;
  try {
    const url = await mcp.hostUrl();
    await page.goto(`${PAGE}#toolwire=${encodeURIComponent(url)}`);
    await expect
      .poll(() => mcp.stderr(), { timeout: 60_000 })
      .toMatch(new RegExp(`catalog tools, ${TOTAL} tools\\n`));
    const started = Date.now();
    const answer = await client.listTools();
    const ms = Date.now() - started;
    expect(answer.nextCursor).toBeUndefined();
    const names = new Set(answer.tools.map((tool) => tool.name));
    for (let i = 0; i < COUNT; i++) {
      const name = bulk(i).replace('.', '_');
      expect(names.has(name), name).toBe(true);
    }
    const last = await client.callTool({ name: 'bulk_t04999', arguments: { n: 1 } });
    expect(last.isError).toBe(false);
    console.log(`5,000-tool MCP tools/list, own host (ms): ${ms}`);
  } finally {
    await client.close();
  }
});
