import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { type DemoServers, startDemoServers } from '../demo/serve.js';
import { CLI, toolwire } from './support/cli.js';
import { clickConnect } from './support/pairing.js';

// The full chain, every link real: the built `toolwire` CLI (a process) -> its host (another
// process) -> the demo app in Chromium -> the app's cross-origin calendar frame -> the frame's
// tool -> the lowering -> back to the CLI's stdout. The frame's tools take Dates and return a
// Map keyed by Dates, so both directions of the lowering are on the path.

// Free ports of its own (0): other suites and checkouts may be serving the demo at once.
const PORTS = { a: 0, b: 0 };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const env = {
  TOOLWIRE_STATE: join(mkdtempSync(join(tmpdir(), 'toolwire-chain-')), 'state.json'),
};

/** `toolwire ARGS` against this file's host. */
const run = (args: string[]) => toolwire(args, env);

let servers: DemoServers;
let host: ChildProcess | undefined;
let hostLog = '';

test.beforeAll(async () => {
  servers = await startDemoServers({ ports: PORTS, watch: false });
});

test.afterAll(async () => {
  if (host && host.exitCode === null) {
    const exited = new Promise((resolve) => host?.once('exit', resolve));
    host.kill('SIGTERM');
    await exited;
  }
  await servers?.close();
});

test('toolwire call reaches a tool in the cross-origin frame, lowered both ways', async ({
  page,
}) => {
  // The whole test's bound, not a wait: more work than the default 30 s allows a busy machine.
  test.setTimeout(90_000);
  const ORIGIN_A = servers.originA;
  const ORIGIN_B = servers.originB;
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  host = spawn(
    process.execPath,
    [
      CLI,
      'host',
      '--port',
      '0',
      '--allow-origin',
      ORIGIN_A,
      '--max-tool-policy',
      'write',
      '--page',
      `${ORIGIN_A}/app/`,
    ],
    { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  host.stderr?.on('data', (chunk: Buffer) => {
    hostLog += chunk.toString();
  });
  await expect.poll(() => /or open: (\S+)/.exec(hostLog)?.[1], { timeout: 20_000 }).toBeTruthy();
  const pairUrl = /or open: (\S+)/.exec(hostLog)?.[1] as string;
  expect(pairUrl.startsWith(`${ORIGIN_A}/app/#toolwire=`)).toBe(true);
  await page.goto(pairUrl);
  await clickConnect(page);

  // The frame's tools coalesce into the app a moment after it loads; the host then lists them.
  await expect
    .poll(
      async () => {
        const listed = await run(['tools', '--json']);
        return listed.code === 0 ? JSON.parse(listed.out).tools.map((tool: any) => tool.id) : [];
      },
      { timeout: 30_000 },
    )
    .toEqual(expect.arrayContaining(['calendar.events', 'calendar.schedule', 'notes.tags']));

  // What the agent is told: the Date and the Map as plain JSON Schema.
  const full = JSON.parse((await run(['tools', '--json', '--detail', 'full'])).out);
  const events = full.tools.find((tool: any) => tool.id === 'calendar.events');
  expect(events.argumentsSchema.properties.before).toEqual({ type: 'string', format: 'date-time' });
  expect(events.resultSchema.properties.events).toMatchObject({
    type: 'object',
    propertyNames: { type: 'string', format: 'date-time' },
    additionalProperties: { type: 'string' },
  });

  // Each tool's origin reaches the CLI: the calendar frame's tools are the frame's, the app's
  // its own; the table names the frame's origin and says `page` for the app's.
  expect(events.origin).toBe(ORIGIN_B);
  expect(full.tools.find((tool: any) => tool.id === 'notes.tags')?.origin).toBe(ORIGIN_A);
  const table = (await run(['tools'])).out.split('\n');
  expect(table.find((line) => line.startsWith('calendar.events '))).toContain(` ${ORIGIN_B} `);
  expect(table.find((line) => line.startsWith('notes.tags '))).toMatch(/ page /);

  // The call: CLI process -> host -> page -> frame -> tool, and back.
  const called = await run([
    'call',
    'calendar.events',
    '--args',
    '{"before":"2100-01-01T00:00:00Z"}',
    '--json',
  ]);
  expect(called.code, called.err).toBe(0);
  const answer = JSON.parse(called.out);
  expect(answer.ok).toBe(true);
  const result = answer.result.result;
  // It ran in the cross-origin frame...
  expect(result.from).toBe(ORIGIN_B);
  expect(result.from).not.toBe(ORIGIN_A);
  // ...where the ISO string arrived lifted, as a Date...
  expect(result.beforeArrivedAs).toBe('Date');
  // ...and its Map keyed by Dates came back lowered: an object with ISO keys.
  expect(Array.isArray(result.events)).toBe(false);
  const keys = Object.keys(result.events);
  expect(keys.length).toBe(3);
  for (const key of keys) expect(key).toMatch(ISO);
  expect(Object.values(result.events)).toEqual([
    'Team standup',
    'Dentist',
    "Ada's birthday dinner",
  ]);

  // A Date with an offset goes in, the frame keeps it as a Date, and it comes back as UTC ISO.
  const scheduled = await run([
    'call',
    'calendar.schedule',
    '--args',
    '{"title":"From the CLI","at":"2031-05-06T07:08:09+02:00"}',
    '--json',
  ]);
  expect(scheduled.code, scheduled.err).toBe(0);
  expect(JSON.parse(scheduled.out).result.result).toEqual({
    from: ORIGIN_B,
    scheduled: '2031-05-06T05:08:09.000Z',
    count: 4,
  });
  await expect(page.frameLocator('#calendar').locator('#events li.new')).toContainText(
    'From the CLI',
  );

  // A bad Date never reaches the frame: the page's schema check refuses it (exit 1).
  const refused = await run(['call', 'calendar.events', '--args', '{"before":"soon"}']);
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(/^toolwire: tool_arguments_schema_invalid: /);

  // The app's search form is a tool by its HTML attributes alone (issue 9): the CLI's
  // arguments fill it, it submits itself, and the page's respondWith answers.
  expect((await run(['call', 'notes.add', '--args', '{"text":"Buy milk #errands"}'])).code).toBe(0);
  const searched = await run([
    'call',
    'notes.search',
    '--args',
    '{"text":"MILK","tag":"errands"}',
    '--json',
  ]);
  expect(searched.code, searched.err).toBe(0);
  expect(JSON.parse(searched.out).result.result).toMatchObject({
    count: 1,
    notes: [{ text: 'Buy milk #errands', tags: ['errands'] }],
  });
  await expect(page.locator('#search-form input[name="text"]')).toHaveValue('MILK');
  await expect(page.locator('#search-result')).toHaveText(
    '1 of 1 notes matched (searched by the agent).',
  );

  // The app's session panel saw the CLI's calls, arguments included.
  const logged = page.locator('#log .exchange[data-tool="calendar.events"][data-state="ok"]');
  await expect(logged).toHaveCount(1);
  await logged.locator('summary').click();
  await expect(logged.locator('pre').first()).toContainText('"before": "2100-01-01T00:00:00Z"');
  await expect(logged.locator('.response pre')).toContainText('"beforeArrivedAs": "Date"');
  expect(problems).toEqual([]);
});
