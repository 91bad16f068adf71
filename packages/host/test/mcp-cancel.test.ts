import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BridgeTool } from '@toolwire/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import { hostInProcess, PAGE_TOKEN, TEST_HOME, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';
import { Client, StdioClientTransport } from './mcp-client.js';

// MCP's cancel, progress and deadline on both of `toolwire mcp`'s roads, as an MCP client meets
// them: the SDK's own Client over stdio to a spawned `toolwire mcp` (from source, through tsx),
// its own host or attached to a running one, and a `ws` page whose tools wait on their signal.

const CLI_SOURCE = fileURLToPath(new URL('../src/cli/bin.ts', import.meta.url));
/** The deadline the spawned bridges are given (`--timeout`): the stalling tool runs 30 s. */
const DEADLINE_MS = 3000;

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A tool that runs until its signal aborts (or `ms`), noting its start and why it stopped. */
function waiting(id: string, stops: unknown[], ms: number, started: string[] = []): BridgeTool {
  return tool(
    id,
    (_, context) =>
      new Promise((resolve, reject) => {
        started.push(id);
        const timer = setTimeout(() => resolve({ waited: ms }), ms);
        context.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          stops.push(context.signal.reason);
          reject(context.signal.reason);
        });
      }),
  );
}

/**
 * The page: `slow.tool` (10 s), `stall.tool` (30 s), and `steps.tool`, which reports progress
 * (when asked) and answers only once the test calls `release()`.
 */
async function connectPage(url: string) {
  const stops: unknown[] = [];
  const started: string[] = [];
  const released = latch();
  let page: FakePage | undefined;
  page = await FakePage.connect(url, {
    tools: [
      waiting('slow.tool', stops, 10_000, started),
      waiting('stall.tool', stops, 30_000, started),
      tool('steps.tool', () => released.wait.then(() => 'stepped')),
    ],
    intercept: (message) => {
      if (message.type !== 'tool.call' || message.payload?.toolId !== 'steps.tool') return;
      if (message.payload.progress !== true) return;
      for (const report of [
        { progress: 1, total: 2, message: 'half' },
        { progress: 0.5, total: 2, message: 'back' }, // does not rise: not passed on
        { progress: 2, total: 2 },
      ]) {
        page?.send({
          type: 'session.progress',
          id: `progress-${Math.random()}`,
          sentAt: new Date().toISOString(),
          payload: { requestId: message.id, ...report },
        });
      }
      return undefined;
    },
  });
  cleanup.push(() => page?.socket.terminate());
  const calls = () => (page as FakePage).requests('tool.call');
  const cancels = () => (page as FakePage).requests('session.cancel');
  return {
    page: page as FakePage,
    stops,
    started,
    calls,
    cancels,
    release: () => released.open(),
  };
}

/** `toolwire mcp ARGS` spawned, the SDK's Client connected to it over stdio. */
async function launch(args: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--conditions=@toolwire/source', '--import', 'tsx', CLI_SOURCE, 'mcp', ...args],
    env: { PATH: process.env.PATH ?? '', TOOLWIRE_HOME: TEST_HOME, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const client = new Client({ name: 'toolwire-cancel-test', version: '0.0.0' });
  await client.connect(transport);
  cleanup.push(() => client.close());
  return { client, stderr: () => stderr };
}

/** The two roads: a host of its own, and attached to a running `toolwire host`. */
const roads = {
  async 'its own host'() {
    const env = { TOOLWIRE_STATE: join(tempDir('toolwire-mcp-cancel-'), 'host.json') };
    const mcp = await launch(
      ['--port', '0', '--token', PAGE_TOKEN, '--allow-origin', '*', '--timeout', `${DEADLINE_MS}`],
      env,
    );
    const url = await until(() => /url: '([^']+)'/.exec(mcp.stderr())?.[1]);
    return { mcp, page: await connectPage(url) };
  },
  async 'attached to a running host'() {
    const env = { TOOLWIRE_STATE: join(tempDir('toolwire-mcp-cancel-'), 'host.json') };
    const host = await hostInProcess(env, ['-q']);
    cleanup.push(() => host.stop());
    const page = await connectPage(host.url);
    const mcp = await launch(['--attach', '--timeout', `${DEADLINE_MS}`], env);
    await until(() => mcp.stderr().includes('attached to the host'));
    return { mcp, page };
  },
};

describe.each(Object.keys(roads) as (keyof typeof roads)[])('toolwire mcp, %s', (road) => {
  it("notifications/cancelled cancels the page's call; the server lives on", async () => {
    const { mcp, page } = await roads[road]();
    await until(async () =>
      (await mcp.client.listTools()).tools.some((one) => one.name === 'slow_tool'),
    );
    const abort = new AbortController();
    const outcome = mcp.client
      .callTool({ name: 'slow_tool', arguments: {} }, undefined, { signal: abort.signal })
      .then(
        () => 'answered',
        (error: Error) => error,
      );
    const call = await until(() => page.calls().find((one) => one.payload.toolId === 'slow.tool'));
    await until(() => page.started.includes('slow.tool')); // the tool runs
    abort.abort('the user pressed stop');
    expect(await outcome).toBeInstanceOf(Error); // the client's own: MCP answers nothing
    const cancel = await until(() => page.cancels()[0]);
    expect(cancel.payload).toMatchObject({ requestId: call.id });
    // The page's tool saw its signal fire, for the caller's cancel.
    await until(() => page.stops.length === 1);
    expect(page.stops[0]).toMatchObject({ code: 'tool_call_cancelled' });
    expect(await mcp.client.ping()).toEqual({});
  });

  it('a progressToken brings the rising reports as notifications/progress', async () => {
    const { mcp, page } = await roads[road]();
    await until(async () =>
      (await mcp.client.listTools()).tools.some((one) => one.name === 'steps_tool'),
    );
    const heard: unknown[] = [];
    const result = mcp.client.callTool({ name: 'steps_tool', arguments: {} }, undefined, {
      onprogress: (report) => heard.push(report),
    });
    // The reports reach the client while the call runs. (The SDK's client drops a report it
    // reads together with the answer, typescript-sdk#2580: the tool answers only afterwards.)
    await until(() => heard.length === 2);
    expect(page.calls()[0]?.payload.progress).toBe(true);
    page.release();
    expect(await result).toMatchObject({ content: [{ type: 'text', text: 'stepped' }] });
    expect(heard).toEqual([
      { progress: 1, total: 2, message: 'half' },
      { progress: 2, total: 2 },
    ]);
    // Without a token nothing is asked of the page.
    await mcp.client.callTool({ name: 'steps_tool', arguments: {} });
    expect(page.calls()[1]?.payload.progress).toBeUndefined();
  });

  it("--timeout is the call's deadline: the page stops a 30 s tool at it", async () => {
    const { mcp, page } = await roads[road]();
    await until(async () =>
      (await mcp.client.listTools()).tools.some((one) => one.name === 'stall_tool'),
    );
    const result = await mcp.client.callTool({ name: 'stall_tool', arguments: {} });
    expect(page.calls()[0]?.payload.timeoutMs).toBe(DEADLINE_MS);
    expect(result).toMatchObject({
      isError: true,
      _meta: { 'toolwire/code': 'tool_execution_timeout' },
    });
    expect(page.stops[0]).toMatchObject({ code: 'tool_execution_timeout' });
  });
});
