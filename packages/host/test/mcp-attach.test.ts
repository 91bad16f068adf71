import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { cli, hostInProcess, mcpInProcess, tempDir } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';

// Issue 15 item 4: `toolwire mcp` attaches to a running host (found through its state file)
// and otherwise runs its own; a port in use is one line naming --attach and --port. Real
// sockets: hosts, control APIs, `ws` pages and a squatter on a port.

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const stateEnv = () => ({ TOOLWIRE_STATE: join(tempDir('toolwire-mcp-attach-'), 'host.json') });

function mcp(argv: string[], env: Record<string, string>) {
  const client = mcpInProcess(argv, env);
  cleanups.push(() => client.stop());
  return client;
}

async function runningHost(
  env: Record<string, string>,
  extra: string[] = [],
  tools = [tool('demo.echo')],
) {
  const host = await hostInProcess(env, extra);
  cleanups.push(() => host.stop());
  const page = await FakePage.connect(host.url, { tools });
  cleanups.push(() => page.socket.terminate());
  // Its first catalog in: the listing mcp probes the host with (in ATTACH_PROBE_MS) then has
  // no first catalog to wait for.
  await until(() => host.err().includes('catalog tools'));
  return host;
}

const names = async (client: ReturnType<typeof mcp>): Promise<string[]> =>
  (await client.rpc('tools/list')).result.tools.map((entry: { name: string }) => entry.name);

/** A port something else listens on. */
async function squat(): Promise<number> {
  // A program that accepts and never answers (the host's probe of the port meets one).
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.close(resolve);
        for (const socket of sockets) socket.destroy();
      }),
  );
  return (server.address() as { port: number }).port;
}

describe('toolwire mcp: attach or a host of its own', () => {
  it("attaches to the running host when there is one: that host's pages, no second host", async () => {
    const env = stateEnv();
    await runningHost(env);
    const state = readFileSync(env.TOOLWIRE_STATE, 'utf8');
    const client = mcp([], env);
    await client.open();
    await until(() => client.err().includes('attached to the host at http://127.0.0.1:'));
    expect(client.err()).not.toContain('connect a page'); // no host banner: none was started
    expect(await names(client)).toEqual([
      'toolwire_pair',
      'toolwire_sessions',
      'toolwire_call',
      'demo_echo',
    ]);
    expect(readFileSync(env.TOOLWIRE_STATE, 'utf8')).toBe(state);
    // --port only says where a host of its own would listen: it still attaches.
    const withPort = mcp(['--port', '0', '-q'], env);
    await withPort.open();
    expect(await names(withPort)).toEqual([
      'toolwire_pair',
      'toolwire_sessions',
      'toolwire_call',
      'demo_echo',
    ]);
  });

  it('attached, the page hints are annotations and a declared image is image content', async () => {
    // Issue 16 item 9 through the control API (its `full` tools carry `annotations`).
    const env = stateEnv();
    const image = {
      type: 'object',
      properties: {
        mimeType: { const: 'image/png' },
        data: { type: 'string', contentEncoding: 'base64', contentMediaType: 'image/png' },
        width: { type: 'integer', minimum: 1 },
        height: { type: 'integer', minimum: 1 },
      },
      required: ['mimeType', 'data', 'width', 'height'],
      additionalProperties: false,
    };
    const pixel = { mimeType: 'image/png', data: 'iVBORw0KGgo=', width: 1, height: 1 };
    await runningHost(
      env,
      [],
      [
        tool('demo.shot', () => pixel, {
          resultSchema: image,
          annotations: { idempotentHint: true, openWorldHint: false },
        }),
      ],
    );
    const client = mcp([], env);
    await client.open();
    const listed = (await client.rpc('tools/list')).result.tools;
    expect(listed[3]).toMatchObject({
      name: 'demo_shot',
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    });
    const shot = await client.rpc('tools/call', { name: 'demo_shot', arguments: {} });
    expect(shot.result.content).toEqual([
      { type: 'image', data: pixel.data, mimeType: 'image/png' },
    ]);
  });

  it('without a running host it runs its own, and the toolwire commands reach it', async () => {
    const env = stateEnv();
    const client = mcp(['--port', '0'], env);
    await client.open();
    await until(() => client.err().includes('control API on'));
    expect(client.err()).toMatch(/^toolwire mcp \S+: ws:\/\/127\.0\.0\.1:\d+\/toolwire/);
    const url = /url: '([^']+)'/.exec(client.err())?.[1] as string;
    expect((await cli(['sessions'], env)).out).toBe('no sessions: no page is connected\n');
    const pair = await cli(['pair', '--page', 'http://shop.test/'], env);
    expect(pair.code).toBe(0);
    expect(decodeURIComponent(pair.out)).toContain(`ws://${new URL(url).host}/toolwire?pair=`);
    expect(await client.stop()).toBe(0);
    expect(existsSync(env.TOOLWIRE_STATE)).toBe(false); // gone with it
  });

  it('a stale state file (nothing answers) is no host: it runs its own', async () => {
    const env = stateEnv();
    const host = await hostInProcess(env);
    const stale = readFileSync(env.TOOLWIRE_STATE, 'utf8');
    await host.stop();
    const { writeControlState } = await import('../src/internal.js');
    writeControlState(env.TOOLWIRE_STATE, JSON.parse(stale)); // as after a SIGKILL
    const client = mcp(['--port', '0'], env);
    await client.open();
    await until(() => client.err().includes('connect a page'));
    expect(client.err()).not.toContain('attached');
  });

  it('host options ask for a host of its own: separate, and the running one keeps the state file', async () => {
    const env = stateEnv();
    await runningHost(env);
    const state = readFileSync(env.TOOLWIRE_STATE, 'utf8');
    const client = mcp(['--port', '0', '--max-tool-policy', 'write'], env);
    await client.open();
    await until(() => client.err().includes('connect a page'));
    expect(client.err()).toContain('this one is separate');
    expect(client.err()).toContain('grant write');
    expect(client.err()).not.toContain('control API on');
    expect(await names(client)).toEqual(['toolwire_pair', 'toolwire_sessions', 'toolwire_call']); // the other host's page is not here
    expect(readFileSync(env.TOOLWIRE_STATE, 'utf8')).toBe(state);
  });

  it('--attach with no host running is exit 3, one line; it never starts a host', async () => {
    const client = mcpInProcess(['--attach'], stateEnv());
    expect(await client.exit).toBe(3);
    expect(client.err()).toMatch(/^toolwire: no toolwire host is running[^\n]*\n$/);
    // --host-url names the host to attach to: it implies --attach.
    const named = mcpInProcess(['--host-url', 'http://127.0.0.1:9', '--token', 'x'], stateEnv());
    expect(await named.exit).toBe(3);
    expect(named.err()).toMatch(/^toolwire: no toolwire host answers at http:\/\/127\.0\.0\.1:9/);
  });

  it('a port in use by a program that is not toolwire: one line naming --port', async () => {
    const port = await squat();
    const env = stateEnv();
    const client = mcpInProcess(['--port', String(port), '--allow-origin', 'http://a.test'], env);
    expect(await client.exit).toBe(1);
    expect(client.err()).toBe(
      `toolwire mcp: port ${port} is in use by a program that is not a toolwire host: --port N (0 = any free port) runs this one elsewhere\n`,
    );
    const host = await cli(['host', '--port', String(port)], env);
    expect(host.code).toBe(1);
    expect(host.err).toBe(
      `toolwire host: port ${port} is in use by a program that is not a toolwire host: --port N (0 = any free port) runs this one elsewhere\n`,
    );
    expect(existsSync(env.TOOLWIRE_STATE)).toBe(false);
  });

  it('a port in use by a toolwire host: the line names that host and how to reach it', async () => {
    const env = stateEnv();
    const running = await runningHost(env);
    const port = Number(new URL(running.url).port);
    // The honest path: the running host is there, and the commands reach it.
    expect((await cli(['sessions'], env)).code).toBe(0);
    const state = JSON.parse(readFileSync(env.TOOLWIRE_STATE, 'utf8'));
    const address = `ws://127.0.0.1:${port}/toolwire`;
    expect(state.address).toBe(address);
    const named = `pid ${process.pid}, pages at ${address}, control API ${state.controlUrl}, state in ${env.TOOLWIRE_STATE}`;
    // mcp with host options of its own, on that port: the state file names the host there.
    const client = mcpInProcess(['--port', String(port), '--allow-origin', 'http://a.test'], env);
    expect(await client.exit).toBe(1);
    // Its last line (a line before says a host runs and this one would be separate).
    expect(client.err().split('\n').at(-2)).toBe(
      `toolwire mcp: port ${port} is in use by a toolwire host (${named}): toolwire mcp --attach serves its tools; --port N (0 = any free port) runs this one elsewhere`,
    );
    // A second host with the same state file is refused before it binds, naming the first.
    const second = await cli(['host', '--port', String(port)], env);
    expect(second.code).toBe(1);
    expect(second.err).toBe(
      `toolwire host: a toolwire host already runs (${named}): the toolwire commands reach that one (toolwire sessions; toolwire pair --page URL for a pairing link); for a second host, give it a state file of its own (TOOLWIRE_STATE=PATH)\n`,
    );
    // With a state file of its own, the port is what stops it: a toolwire host answers there.
    const other = stateEnv();
    const third = await cli(['host', '--port', String(port)], other);
    expect(third.code).toBe(1);
    expect(third.err).toBe(
      `toolwire host: port ${port} is in use by a toolwire host with no state file here: a toolwire mcp (its MCP client reaches it), or a host started with another TOOLWIRE_STATE (the commands reach it with that TOOLWIRE_STATE); --port N (0 = any free port) runs this one elsewhere\n`,
    );
    expect(existsSync(other.TOOLWIRE_STATE)).toBe(false);
    expect(JSON.parse(readFileSync(env.TOOLWIRE_STATE, 'utf8'))).toEqual(state);
  });
});

describe('the state file, from an MCP client environment (no XDG_RUNTIME_DIR)', () => {
  it('a host in the private temp directory is found from an environment with XDG_RUNTIME_DIR', async () => {
    const temp = tempDir('toolwire-tmpdir-');
    // The host: no XDG_RUNTIME_DIR, so $TMPDIR/toolwire-<uid>/toolwire-host.json.
    await runningHost({ TMPDIR: temp });
    // A reader whose usual place is $XDG_RUNTIME_DIR/toolwire-host.json (absent).
    const env = { XDG_RUNTIME_DIR: tempDir('toolwire-xdg-'), TMPDIR: temp };
    const sessions = await cli(['sessions', '--json'], env);
    expect(sessions.code, sessions.err).toBe(0);
    expect(JSON.parse(sessions.out).sessions).toHaveLength(1);
    const client = mcp([], env);
    await client.open();
    await until(() => client.err().includes('attached to the host'));
    expect(await names(client)).toEqual([
      'toolwire_pair',
      'toolwire_sessions',
      'toolwire_call',
      'demo_echo',
    ]);
  });

  it('an untrusted file at the other place is passed over; at the usual place it is an error', async () => {
    const { chmodSync, mkdirSync, writeFileSync } = await import('node:fs');
    const temp = tempDir('toolwire-tmpdir-');
    const dir = join(temp, `toolwire-${process.getuid?.() ?? 'user'}`);
    mkdirSync(dir, { mode: 0o700 });
    const planted = join(dir, 'toolwire-host.json');
    writeFileSync(planted, '{"controlUrl":"http://127.0.0.1:9","token":"planted-secret"}');
    chmodSync(planted, 0o644);
    const other = await cli(['sessions'], {
      XDG_RUNTIME_DIR: tempDir('toolwire-xdg-'),
      TMPDIR: temp,
    });
    expect(other).toMatchObject({ code: 3 });
    expect(other.err).toMatch(/^toolwire: no toolwire host is running/);
    const usual = await cli(['sessions'], { TMPDIR: temp });
    expect(usual).toMatchObject({ code: 3 });
    expect(usual.err).toMatch(/^toolwire: refusing the state file .*: mode 0644, not 0600\n$/);
  });
});
