import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { cliCommand, hostInProcess, PAGE_TOKEN, TEST_HOME, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';
import { Client, McpError, StdioClientTransport } from './mcp-client.js';

// What an MCP client reads when `toolwire mcp` cannot run a call, on both of its roads: the
// SDK's own Client over stdio to a spawned `toolwire mcp` (its own host, and attached to a
// running `toolwire host`), and a `ws` page. An unknown name is JSON-RPC's -32602, as MCP says,
// with the code in `data`; a tool the page's guard hides or the host's grant refuses answers
// `tool_execution_denied`, as the page itself does, with `details.deniedBy`.

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Granted read: cart.add (write) is above the grant; the read-write guard hides notes.wipe. */
async function connectPage(url: string) {
  const page = await FakePage.connect(url, {
    tools: [
      tool('demo.echo'),
      tool('cart.add', () => ({ added: true }), { policy: 'write' }),
      tool('notes.wipe', () => ({ wiped: true }), { policy: 'critical' }),
    ],
    guard: 'read-write',
    reportGuard: true,
    applyGrant: true,
  });
  cleanup.push(() => page.socket.terminate());
  return page;
}

async function launch(args: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({
    ...cliCommand(['mcp', ...args]),
    env: { PATH: process.env.PATH ?? '', TOOLWIRE_HOME: TEST_HOME, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const client = new Client({ name: 'toolwire-refusals-test', version: '0.0.0' });
  await client.connect(transport);
  cleanup.push(() => client.close());
  return { client, stderr: () => stderr };
}

const roads = {
  async 'its own host'() {
    const env = { TOOLWIRE_STATE: join(tempDir('toolwire-mcp-refusals-'), 'host.json') };
    const mcp = await launch(['--port', '0', '--token', PAGE_TOKEN, '--allow-origin', '*'], env);
    const url = await until(() => /url: '([^']+)'/.exec(mcp.stderr())?.[1]);
    return { client: mcp.client, page: await connectPage(url) };
  },
  async 'attached to a running host'() {
    const env = { TOOLWIRE_STATE: join(tempDir('toolwire-mcp-refusals-'), 'host.json') };
    const host = await hostInProcess(env, ['-q']);
    cleanup.push(() => host.stop());
    const page = await connectPage(host.url);
    const mcp = await launch(['--attach'], env);
    await until(() => mcp.stderr().includes('attached to the host'));
    return { client: mcp.client, page };
  },
};

/** The text of a result's first content block. */
const text = (result: unknown): string =>
  (result as { content?: { text?: string }[] }).content?.[0]?.text ?? '';

describe.each(Object.keys(roads) as (keyof typeof roads)[])('toolwire mcp, %s', (road) => {
  it('an unknown tool is -32602 with the code in data; the page is not called', async () => {
    const { client, page } = await roads[road]();
    // The honest path first: the page's listed tool answers.
    await until(async () =>
      (await client.listTools()).tools.some((one) => one.name === 'demo_echo'),
    );
    const echoed = await client.callTool({ name: 'demo_echo', arguments: { n: 1 } });
    expect(echoed.isError, JSON.stringify(echoed)).toBe(false);

    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(unknown).toBeInstanceOf(McpError);
    expect(unknown).toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: no_such_tool'),
      data: { 'toolwire/code': 'tool_not_found', 'toolwire/retryable': false },
    });
    // The server lives on, and nothing but the honest call reached the page.
    expect(await client.ping()).toEqual({});
    expect(page.requests('tool.call').map((call) => call.payload.toolId)).toEqual(['demo.echo']);
  });

  it("the guard's and the grant's refusals are tool_execution_denied, told apart by deniedBy", async () => {
    const { client, page } = await roads[road]();
    await until(async () =>
      (await client.listTools()).tools.some((one) => one.name === 'demo_echo'),
    );
    const rows = [
      ['cart_add', 'host-grant'],
      ['notes_wipe', 'page-guard'],
    ] as const;
    for (const [name, deniedBy] of rows) {
      const answer = await client.callTool({ name, arguments: {} });
      expect(answer, name).toMatchObject({
        isError: true,
        _meta: { 'toolwire/code': 'tool_execution_denied', 'toolwire/retryable': false },
      });
      expect(text(answer)).toMatch(/^tool_execution_denied: /);
      expect(text(answer)).toContain(`"deniedBy":"${deniedBy}"`);
      // Only the grant's refusal says how to lift it.
      expect(text(answer).includes('--max-tool-policy write')).toBe(deniedBy === 'host-grant');
    }
    expect(page.requests('tool.call')).toEqual([]);
  });
});
