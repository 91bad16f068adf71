/**
 * The version comes from package.json, not a literal (issue 14): with package.json's version
 * replaced for this file, `--version`, the banners and the MCP server all say the replacement.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { createHost, createMcpBridge, runCommand } from '../src/index.js';
import { captureIo, cli, tempDir } from './cli-helpers.js';

// vi.mock is hoisted above every import and constant: the value is written out in it.
vi.mock('../package.json', async (original) => {
  const manifest = ((await original()) as { default: Record<string, unknown> }).default;
  return { default: { ...manifest, version: '9.8.7-from-package-json' } };
});
const MOCKED = '9.8.7-from-package-json';

const dir = tempDir('toolwire-version-');
const cleanup: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const initialize = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '0' },
  },
})}\n`;

describe('the version', () => {
  it('is read from package.json (replaced here), whatever the real one says', () => {
    const real = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(real.version).not.toBe(MOCKED);
  });

  it("--version, the banner and the MCP server's serverInfo say it", async () => {
    expect(await cli(['--version'], {})).toEqual({ code: 0, out: `${MOCKED}\n`, err: '' });
    const stdin = new PassThrough();
    const run = captureIo({ TOOLWIRE_STATE: join(dir, 'mcp.json') }, stdin);
    const exit = runCommand(['mcp', '--port', '0'], run.io);
    await until(() => run.err().includes('connect a page'));
    expect(run.err()).toContain(`toolwire mcp ${MOCKED}: ws://`);
    stdin.write(initialize);
    await until(() => run.out().includes('"id":1'));
    expect(JSON.parse(run.out()).result.serverInfo).toEqual({ name: 'toolwire', version: MOCKED });
    stdin.end();
    expect(await exit).toBe(0);
  });

  it("is a bridge's default server version", async () => {
    const host = await createHost({ token: 'version-test-token-0123456789' });
    cleanup.push(() => host.close());
    const input = new PassThrough();
    const output = new PassThrough();
    let out = '';
    output.on('data', (chunk) => {
      out += chunk;
    });
    const bridge = createMcpBridge(host, { input, output });
    cleanup.push(() => bridge.close());
    await bridge.ready;
    input.write(initialize);
    await until(() => out.includes('"id":1'));
    expect(JSON.parse(out).result.serverInfo.version).toBe(MOCKED);
  });
});
