import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { CliProcess, cliCommand, PAGE_TOKEN, TEST_HOME, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';
import { Client, StdioClientTransport, ToolListChangedNotificationSchema } from './mcp-client.js';

// `toolwire mcp --attach` outlives the host it attached to: real processes (`toolwire host`,
// `toolwire mcp --attach` launched by the MCP SDK's own client over stdio) and a `ws` page.
// Once the host has stopped, tools/list still answers, with toolwire's own tools and a coded
// reason, and a call answers with a coded error: never a JSON-RPC error.

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const OWN_TOOLS = ['toolwire_pair', 'toolwire_sessions', 'toolwire_call'];

async function attached() {
  const env = { TOOLWIRE_STATE: join(tempDir('toolwire-mcp-stopped-'), 'host.json') };
  const host = new CliProcess(
    ['host', '--port', '0', '--token', PAGE_TOKEN, '--allow-origin', '*'],
    env,
  );
  cleanups.push(() => host.kill('SIGKILL'));
  const url = (await host.errMatching(/url: '([^']+)'/))[1] as string;
  const page = await FakePage.connect(url, { tools: [tool('demo.echo')] });
  cleanups.push(() => page.socket.terminate());
  await host.errMatching(/catalog tools/);
  const transport = new StdioClientTransport({
    ...cliCommand(['mcp', '--attach']),
    env: { PATH: process.env.PATH ?? '', TOOLWIRE_HOME: TEST_HOME, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const client = new Client({ name: 'toolwire-test', version: '0.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes += 1;
  });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { host, client, stderr: () => stderr, changes: () => changes };
}

const named = (listed: { tools: { name: string }[] }) => listed.tools.map((entry) => entry.name);

describe('toolwire mcp --attach when the host stops', () => {
  // SIGTERM: the host closes its sessions, and its last answer to the change poll says so.
  // SIGKILL: nothing more comes from it; the failed poll is the news.
  it.each(['SIGTERM', 'SIGKILL'] as const)(
    '%s: tools/list answers with its own tools and why; calls answer with a code',
    async (signal) => {
      const { host, client, stderr, changes } = await attached();
      // The honest path first: the host's page tool is listed and answers.
      expect(named(await client.listTools())).toEqual([...OWN_TOOLS, 'demo_echo']);
      const echoed = await client.callTool({ name: 'demo_echo', arguments: { n: 1 } });
      expect(echoed.isError, JSON.stringify(echoed)).toBe(false);
      expect(stderr()).toContain('attached to the host');

      const before = changes();
      host.kill(signal);
      expect(await host.exited).toMatchObject(
        signal === 'SIGTERM' ? { code: 0 } : { signal: 'SIGKILL' },
      );
      // The client is told its list changed: the host's page tools are gone.
      await until(() => changes() > before);

      const listed = await client.listTools();
      expect(named(listed)).toEqual(OWN_TOOLS);
      expect(listed._meta).toMatchObject({
        'toolwire/code': 'session_not_connected',
        'toolwire/retryable': true,
      });
      expect(String(listed._meta?.['toolwire/note'])).toMatch(/no toolwire host answers/i);

      // The page tool it listed before, and the fallback tools: coded results, not errors.
      for (const [name, args] of [
        ['demo_echo', { n: 2 }],
        ['toolwire_sessions', {}],
        ['toolwire_call', { session: 'x', tool: 'demo.echo' }],
      ] as const) {
        const answer = await client.callTool({ name, arguments: args });
        expect(answer.isError, name).toBe(true);
        expect(answer._meta?.['toolwire/code'], name).toBe('session_not_connected');
      }
    },
    120_000,
  );
});
