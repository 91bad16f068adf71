import { chmodSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { StateFileError } from '../src/control/state-file.js';
import { mcpSecret } from '../src/server/mcp-secret.js';
import { cli, hostInProcess, mcpInProcess, PAGE_TOKEN, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';
import { Client, StreamableHTTPClientTransport } from './mcp-client.js';

// The MCP endpoint's secret file (src/server/mcp-secret.ts) and `toolwire mcp-config`
// (src/cli/mcp-config.ts): the shapes each client's configuration takes, with the real secret
// and URL, and a host started by the CLI that accepts what mcp-config printed.

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function environment() {
  const root = tempDir('toolwire-mcp-config-');
  return { TOOLWIRE_STATE: join(root, 'host.json'), TOOLWIRE_HOME: join(root, 'home') };
}

describe('the MCP secret file', () => {
  it('is made once (0600, 256 bits base64url) and read back the same', () => {
    const home = join(tempDir('toolwire-mcp-secret-'), 'home');
    const secret = mcpSecret(home);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const path = join(home, 'mcp-secret');
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
    expect(lstatSync(home).mode & 0o777).toBe(0o700);
    expect(readFileSync(path, 'utf8')).toBe(`${secret}\n`);
    expect(mcpSecret(home)).toBe(secret);
  });

  it('refuses a file others can read, a link, a directory others can use, and junk', () => {
    const root = tempDir('toolwire-mcp-secret-');
    const home = join(root, 'home');
    const secret = mcpSecret(home);
    const path = join(home, 'mcp-secret');
    expect(mcpSecret(home)).toBe(secret); // the honest file reads
    chmodSync(path, 0o644);
    expect(() => mcpSecret(home)).toThrow(StateFileError);
    expect(() => mcpSecret(home)).toThrow(/mode 0644, not 0600/);
    chmodSync(path, 0o600);
    expect(mcpSecret(home)).toBe(secret);

    const linked = join(root, 'linked');
    mkdirSync(linked, { mode: 0o700 });
    writeFileSync(join(root, 'elsewhere'), `${secret}\n`, { mode: 0o600 });
    symlinkSync(join(root, 'elsewhere'), join(linked, 'mcp-secret'));
    expect(() => mcpSecret(linked)).toThrow(/a symbolic link/);

    const open = join(root, 'open');
    mkdirSync(open, { mode: 0o700 });
    chmodSync(open, 0o755);
    expect(() => mcpSecret(open)).toThrow(/mode 0755, not 0700/);

    const junk = join(root, 'junk');
    mkdirSync(junk, { mode: 0o700 });
    writeFileSync(join(junk, 'mcp-secret'), 'not a secret\n', { mode: 0o600 });
    expect(() => mcpSecret(junk)).toThrow(/not a toolwire MCP secret/);
  });
});

describe('toolwire mcp-config', () => {
  it('prints every client, HTTP and stdio, with the secret and the default URL', async () => {
    const env = environment();
    const run = await cli(['mcp-config'], env);
    expect(run.code).toBe(0);
    expect(run.err).toBe('');
    const secret = readFileSync(join(env.TOOLWIRE_HOME, 'mcp-secret'), 'utf8').trim();
    const url = 'http://127.0.0.1:45124/mcp';
    const auth = `Bearer ${secret}`;
    // Two-space JSON, arrays of strings on one line (as the README shows them).
    const json = (value: object) =>
      JSON.stringify(value, null, 2).replace(
        /\[\n\s+("mcp")(,\n\s+("--attach"))?\n\s+\]/g,
        (_, first: string, _rest: string, second?: string) =>
          `[${[first, second].filter(Boolean).join(', ')}]`,
      );
    expect(run.out).toBe(
      [
        `# Claude Code (HTTP): run in a terminal\nclaude mcp add --transport http toolwire ${url} --header "Authorization: ${auth}"\n`,
        `# Cursor (HTTP): .cursor/mcp.json\n${json({ mcpServers: { toolwire: { url, headers: { Authorization: auth } } } })}\n`,
        `# VS Code (HTTP): .vscode/mcp.json\n${json({ servers: { toolwire: { type: 'http', url, headers: { Authorization: auth } } } })}\n`,
        `# Claude Desktop (HTTP): claude_desktop_config.json\n# Claude Desktop's config file takes stdio servers: toolwire mcp --attach serves the running host's tools, the host the HTTP clients reach.\n${json({ mcpServers: { toolwire: { command: 'toolwire', args: ['mcp', '--attach'] } } })}\n`,
        '# Claude Code (stdio): run in a terminal\nclaude mcp add toolwire -- toolwire mcp\n',
        `# Cursor (stdio): .cursor/mcp.json\n${json({ mcpServers: { toolwire: { command: 'toolwire', args: ['mcp'] } } })}\n`,
        `# VS Code (stdio): .vscode/mcp.json\n${json({ servers: { toolwire: { type: 'stdio', command: 'toolwire', args: ['mcp'] } } })}\n`,
        `# Claude Desktop (stdio): claude_desktop_config.json\n${json({ mcpServers: { toolwire: { command: 'toolwire', args: ['mcp'] } } })}\n`,
      ].join('\n'),
    );
    // The same secret on the next run.
    expect((await cli(['mcp-config'], env)).out).toBe(run.out);
  });

  it('--client, --http/--stdio, --port and --json pick; bad values are usage errors', async () => {
    const env = environment();
    const one = await cli(
      ['mcp-config', '--client', 'vscode', '--http', '--port', '9000', '--json'],
      env,
    );
    expect(one.code).toBe(0);
    const parsed = JSON.parse(one.out);
    expect(parsed.url).toBe('http://127.0.0.1:9000/mcp');
    expect(parsed.configs).toHaveLength(1);
    expect(parsed.configs[0]).toMatchObject({
      client: 'vscode',
      transport: 'http',
      where: '.vscode/mcp.json',
      config: { servers: { toolwire: { type: 'http', url: 'http://127.0.0.1:9000/mcp' } } },
    });
    const stdio = await cli(['mcp-config', '--client', 'claude-code', '--stdio'], env);
    expect(stdio.out).toBe(
      '# Claude Code (stdio): run in a terminal\nclaude mcp add toolwire -- toolwire mcp\n',
    );

    const bad = await cli(['mcp-config', '--client', 'emacs'], env);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--client is claude-code, cursor, vscode, claude-desktop');
    expect((await cli(['mcp-config', '--stdio', '--http'], env)).code).toBe(2);
    expect((await cli(['mcp-config', '--port', 'x'], env)).code).toBe(2);
  });

  it("names the running host's URL, and that host accepts the printed secret", async () => {
    const env = environment();
    const host = await hostInProcess(env);
    cleanups.push(() => host.stop());
    const mcpUrl = /MCP over HTTP at (\S+)/.exec(host.err())?.[1] as string;
    expect(mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    // The banner names the URL, never the secret.
    const secret = readFileSync(join(env.TOOLWIRE_HOME, 'mcp-secret'), 'utf8').trim();
    expect(host.err()).not.toContain(secret);
    const printed = JSON.parse(
      (await cli(['mcp-config', '--client', 'cursor', '--http', '--json'], env)).out,
    );
    const server = printed.configs[0].config.mcpServers.toolwire;
    expect(server.url).toBe(mcpUrl);
    const client = new Client({ name: 'unit', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: server.headers },
      }),
    );
    cleanups.push(() => client.close());
    const listed = await client.listTools();
    expect(listed.tools.map((tool) => tool.name)).toContain('toolwire_sessions');
  });

  it('toolwire mcp with a host of its own serves /mcp too: the same names over stdio and HTTP', async () => {
    const env = environment();
    const mcp = mcpInProcess(['--port', '0', '--token', PAGE_TOKEN, '--allow-origin', '*'], env);
    cleanups.push(() => mcp.stop());
    await mcp.open();
    await until(() => /MCP over HTTP at (\S+)/.test(mcp.err()));
    const mcpUrl = /MCP over HTTP at (\S+)/.exec(mcp.err())?.[1] as string;
    const wsUrl = /url: '([^']+)'/.exec(mcp.err())?.[1] as string;
    const page = await FakePage.connect(wsUrl, { tools: [tool('demo.echo')] });
    cleanups.push(() => page.socket.close());
    const stdioNames = async () =>
      ((await mcp.rpc('tools/list')).result.tools as { name: string }[]).map((one) => one.name);
    await until(async () => (await stdioNames()).includes('demo_echo'));
    const secret = readFileSync(join(env.TOOLWIRE_HOME, 'mcp-secret'), 'utf8').trim();
    expect(mcp.err()).not.toContain(secret);
    const client = new Client({ name: 'unit', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), {
        requestInit: { headers: { Authorization: `Bearer ${secret}` } },
      }),
    );
    cleanups.push(() => client.close());
    expect((await client.listTools()).tools.map((one) => one.name)).toEqual(await stdioNames());
  });

  it('--no-mcp-http: no /mcp, and mcp-config says the running host does not serve it', async () => {
    const env = environment();
    const host = await hostInProcess(env, ['--no-mcp-http']);
    cleanups.push(() => host.stop());
    expect(host.err()).toContain('toolwire: no MCP over HTTP (--no-mcp-http)');
    const run = await cli(['mcp-config', '--http', '--client', 'cursor'], env);
    expect(run.code).toBe(0);
    expect(run.err).toContain('does not serve MCP over HTTP');
  });
});
