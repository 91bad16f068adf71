import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { CLI, HostProcess } from './support/cli.js';
import { launchMcp, type McpProcess } from './support/mcp.js';

// Cancel, progress and deadlines on the host's roads, end to end: a real page in Chromium
// (the endpoint and the polyfill) whose tools wait on their signal, the built `toolwire` bin as
// processes, and the SDK's own MCP client over stdio to `toolwire mcp`, with its own host and
// attached to a running `toolwire host`. What is checked is what the page's tool saw (its
// signal fired) and the coded outcome its caller got.

const ORIGIN = `http://localhost:${E2E_PORT}`;
const PAGE = '/e2e/pages/host/cancel.html';
/** The deadline the MCP servers are given (`--timeout`); `demo.stall` runs 30 s. */
const DEADLINE_MS = 3000;

/** The tools whose signal fired, in order. */
const stops = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).stops);
const started = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).started);

/**
 * How long after the client's cancel (`cancelledAt`, this process's clock) the page's tool saw
 * its signal fire (the page's clock: the same machine's). Recorded on the test, not asserted:
 * the figure is what docs/performance.md quotes.
 */
async function noteCancelLatency(page: Page, road: string, cancelledAt: number): Promise<void> {
  const firedAt: number = await page.evaluate(() => (window as any).stoppedAt['demo.wait']);
  test.info().annotations.push({
    type: 'cancel latency',
    description: `${road}: the page's signal fired ${firedAt - cancelledAt} ms after the client's cancel`,
  });
}

async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(`${ORIGIN}${PAGE}#toolwire=${encodeURIComponent(url)}`);
  await expect(page.locator('#status')).toHaveText('open');
}

async function listed(mcp: McpProcess, name: string): Promise<void> {
  await expect
    .poll(async () => (await mcp.client.listTools()).tools.some((tool) => tool.name === name))
    .toBe(true);
}

/** (a) cancel, (b) the deadline, (c) progress, through one MCP server. */
async function mcpRoad(mcp: McpProcess, page: Page, road: string): Promise<void> {
  const { client } = mcp;
  await listed(mcp, 'demo_wait');

  // (a) The client cancels a 10 s tool while it runs: the page's tool sees its signal fire.
  const abort = new AbortController();
  const outcome = client
    .callTool({ name: 'demo_wait', arguments: {} }, undefined, { signal: abort.signal })
    .then(
      () => 'answered',
      (error: Error) => error,
    );
  await expect.poll(() => started(page)).toContain('demo.wait');
  const cancelledAt = Date.now();
  abort.abort('the user pressed stop');
  expect(await outcome).toBeInstanceOf(Error);
  await expect.poll(() => stops(page)).toEqual(['demo.wait']);
  await noteCancelLatency(page, road, cancelledAt);
  expect(await client.ping()).toEqual({});

  // (b) A 30 s tool, past --timeout: the page stops it and answers tool_execution_timeout.
  const stalled = await client.callTool({ name: 'demo_stall', arguments: {} });
  expect(stalled).toMatchObject({
    isError: true,
    _meta: { 'toolwire/code': 'tool_execution_timeout' },
  });
  expect(await stops(page)).toEqual(['demo.wait', 'demo.stall']);

  // (c) A progressToken: the page's reports arrive as notifications/progress while the call
  // runs. (The SDK's client drops a report it reads together with the answer,
  // typescript-sdk#2580: the tool holds its answer until the reports are in.)
  const heard: { progress: number; total?: number; message?: string }[] = [];
  const stepped = client.callTool({ name: 'demo_steps', arguments: { hold: true } }, undefined, {
    onprogress: (report) => heard.push(report),
  });
  await expect.poll(() => heard.at(-1)?.progress).toBe(3);
  await page.evaluate(() => (window as any).release());
  expect(await stepped).toMatchObject({ content: [{ type: 'text', text: 'stepped' }] });
  expect(heard).toEqual([
    { progress: 1, total: 3, message: 'one' },
    { progress: 2, total: 3, message: 'two' },
    { progress: 3, total: 3, message: 'three' },
  ]);
}

const freshState = () => join(mkdtempSync(join(tmpdir(), 'toolwire-cancel-e2e-')), 'state.json');

let host: HostProcess | undefined;
test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

test('toolwire mcp, its own host: cancel, progress and --timeout reach the page', async ({
  page,
}) => {
  const mcp = await launchMcp(
    ['--port', '0', '--allow-origin', ORIGIN, '--timeout', `${DEADLINE_MS}`],
    { TOOLWIRE_STATE: freshState() },
  );
  try {
    await openPage(page, await mcp.hostUrl());
    await mcpRoad(mcp, page, 'toolwire mcp (own host)');
  } finally {
    await mcp.close();
  }
});

test('toolwire mcp --attach: cancel, progress and --timeout reach the page', async ({ page }) => {
  host = new HostProcess(['--allow-origin', ORIGIN]);
  await openPage(page, await host.url());
  const mcp = await launchMcp(['--attach', '--timeout', `${DEADLINE_MS}`], host.env);
  try {
    await mcpRoad(mcp, page, 'toolwire mcp --attach');
  } finally {
    await mcp.close();
  }
});

test("Ctrl-C to toolwire call cancels the page's tool (exit 130); a slow call shows progress", async ({
  page,
}) => {
  host = new HostProcess(['--allow-origin', ORIGIN]);
  await openPage(page, await host.url());
  const env = { PATH: process.env.PATH ?? '', ...host.env };

  const call = spawn(process.execPath, [CLI, 'call', 'demo.wait'], { env });
  let err = '';
  call.stderr.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve) => call.once('close', resolve));
  await expect.poll(() => started(page)).toContain('demo.wait');
  const cancelledAt = Date.now();
  call.kill('SIGINT');
  expect(await exited).toBe(130);
  expect(err).toMatch(/toolwire: tool_call_cancelled: /);
  await expect.poll(() => stops(page)).toEqual(['demo.wait']);
  await noteCancelLatency(page, 'Ctrl-C on toolwire call', cancelledAt);

  // Three steps 600 ms apart: past the first second, the page's progress shows on stderr.
  const slow = spawn(process.execPath, [CLI, 'call', 'demo.steps', '--args', '{"every":600}'], {
    env,
  });
  let slowErr = '';
  let slowOut = '';
  slow.stderr.on('data', (chunk) => {
    slowErr += chunk;
  });
  slow.stdout.on('data', (chunk) => {
    slowOut += chunk;
  });
  expect(await new Promise((resolve) => slow.once('close', resolve))).toBe(0);
  expect(slowOut).toBe('stepped\n');
  expect(slowErr).toMatch(/^(progress [123]\/3 (one|two|three)\n)+$/);
});

test("a control API client that goes away mid-call cancels the page's tool", async ({ page }) => {
  host = new HostProcess(['--allow-origin', ORIGIN]);
  await openPage(page, await host.url());
  const state = JSON.parse(readFileSync(host.env.TOOLWIRE_STATE as string, 'utf8'));
  const body = JSON.stringify({ toolId: 'demo.wait' });
  const request = httpRequest(`${state.controlUrl}/v1/call`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${state.token}`,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    },
  });
  request.on('error', () => {});
  request.end(body);
  await expect.poll(() => started(page)).toContain('demo.wait');
  const cancelledAt = Date.now();
  request.destroy();
  await expect.poll(() => stops(page)).toEqual(['demo.wait']);
  await noteCancelLatency(page, 'a control API client that goes away', cancelledAt);
});
