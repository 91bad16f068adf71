import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import { createHost, runCommand } from '../src/index.js';
import {
  controlRequest,
  formatTable,
  readControlState,
  startControlServer,
} from '../src/internal.js';
import { captureIo } from './cli-helpers.js';
import { FakePage, tool } from './helpers.js';

// The client commands in-process against `toolwire host` run in-process (the built bin as a
// process is e2e/host-cli.e2e.ts).

const TOKEN = 'control-test-token-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'toolwire-control-'));
let stopHost: (() => Promise<number>) | undefined;
const pages: FakePage[] = [];

afterEach(async () => {
  for (const page of pages.splice(0)) page.socket.terminate();
  await stopHost?.();
  stopHost = undefined;
});

const io = captureIo;

let counter = 0;

async function startHost(extra: string[] = []) {
  const state = join(dir, `state-${++counter}.json`);
  const env = { TOOLWIRE_STATE: state };
  const run = io(env);
  const argv = ['host', '--port', '0', '--token', TOKEN, '--allow-origin', '*', ...extra];
  const exit = runCommand(argv, run.io);
  await until(() => run.err().includes('connect a page'));
  stopHost = async () => {
    run.signal();
    return exit;
  };
  const url = /url: '([^']+)'/.exec(run.err())?.[1] as string;
  return { env, state, url, run };
}

async function cli(argv: string[], env: Record<string, string | undefined>, stdin?: PassThrough) {
  const run = io(env, stdin);
  const code = await runCommand(argv, run.io);
  return { code, out: run.out(), err: run.err() };
}

const pageTools = () => [
  tool('demo.echo', (args) => args, {
    name: 'Echo',
    description: 'Returns its input.',
    resultSchema: { type: 'object' },
  }),
  tool('demo.fail', () => {
    throw new RangeError('on purpose');
  }),
  tool('notes.add', () => ({ added: true }), { policy: 'write', description: 'Adds a note.' }),
  tool('notes.delete', () => ({ deleted: true }), { policy: 'critical' }),
  tool(
    'ui.later',
    () => 1,
    {},
    () => ({
      available: false,
      code: 'not_ready',
      reason: 'the view is loading',
    }),
  ),
];

async function withPage(url: string) {
  const page = await FakePage.connect(url, { tools: pageTools(), origin: 'http://app.test' });
  pages.push(page);
  return page;
}

describe('toolwire host: the control API and its state file', () => {
  it('writes the state file 0600 (port, control secret) and removes it on exit', async () => {
    const { state, run } = await startHost();
    const saved = readControlState(state);
    expect(saved).toMatchObject({ pid: process.pid });
    // The control secret: 256 random bits, base64url, and never the page token.
    expect(saved?.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(saved?.token).not.toBe(TOKEN);
    expect(Object.keys(saved ?? {}).sort()).toEqual([
      'address',
      'controlUrl',
      'mcpUrl',
      'pid',
      'port',
      'runId',
      'token',
    ]);
    expect(saved?.controlUrl).toBe(`http://127.0.0.1:${saved?.port}`);
    // Where MCP clients reach the host over HTTP: an address, never its secret.
    expect(saved?.mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    // The page address without its token: the page token never goes in the file.
    expect(saved?.address).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/toolwire$/);
    expect(statSync(state).mode & 0o777).toBe(0o600);
    expect(run.err()).toContain(`control API on ${saved?.controlUrl}`);
    expect(await stopHost?.()).toBe(0);
    stopHost = undefined;
    expect(readControlState(state)).toBeUndefined();
  });

  it('refuses a wrong token (401), a browser Origin and a foreign Host name (403)', async () => {
    const { state } = await startHost();
    const { port, token: SECRET } = readControlState(state) as { port: number; token: string };
    const get = (headers: Record<string, string>, path = '/v1/sessions') =>
      new Promise<number>((resolve, reject) => {
        httpRequest({ host: '127.0.0.1', port, path, headers }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        })
          .on('error', reject)
          .end();
      });
    expect(await get({ authorization: `Bearer ${SECRET}` })).toBe(200);
    expect(await get({}, `/v1/sessions?token=${SECRET}`)).toBe(200);
    expect(await get({ authorization: 'Bearer wrong' })).toBe(401);
    expect(await get({})).toBe(401);
    // The page token (what every page holds) does not open the control API.
    expect(await get({ authorization: `Bearer ${TOKEN}` })).toBe(401);
    expect(await get({}, `/v1/sessions?token=${TOKEN}`)).toBe(401);
    expect(await get({ authorization: `Bearer ${SECRET}`, origin: 'http://evil.test' })).toBe(403);
    expect(await get({ authorization: `Bearer ${SECRET}`, host: 'evil.test' })).toBe(403);
    expect(await get({ authorization: `Bearer ${SECRET}` }, '/v1/nothing')).toBe(404);
  });
});

describe('the control secret is not the page token', () => {
  it('the page never gets it; the state file holds no page token; it cannot be the page token', async () => {
    const { state, url, run } = await startHost();
    const page = await withPage(url);
    const { token: secret, controlUrl } = readControlState(state) as {
      token: string;
      controlUrl: string;
    };
    // The honest path: the secret works (the page is listed) ...
    const env = { TOOLWIRE_HOST: controlUrl, TOOLWIRE_CONTROL_TOKEN: secret };
    expect(JSON.parse((await cli(['sessions', '--json'], env)).out).sessions).toHaveLength(1);
    // ... the page token, which the page holds, does not.
    const refused = await cli(['sessions'], { ...env, TOOLWIRE_CONTROL_TOKEN: TOKEN });
    expect(refused.code).toBe(3);
    expect(refused.err).toMatch(/refused us: Wrong or missing token/);
    await cli(['call', 'demo.echo'], env);
    expect(page.requests('tool.call')).toHaveLength(1);
    // Nothing the page received, nor any log line, carries the secret.
    expect(JSON.stringify(page.received)).not.toContain(secret);
    expect(url).not.toContain(secret);
    expect(run.err()).not.toContain(secret);
    expect(readFileSync(state, 'utf8')).not.toContain(TOKEN);
    const host = await createHost({ token: TOKEN });
    try {
      await expect(startControlServer(host, { token: TOKEN })).rejects.toThrow(
        /not the page token/,
      );
    } finally {
      await host.close();
    }
  });

  it('the state file secret goes only to the address the state file names', async () => {
    const { state, env } = await startHost();
    const saved = readControlState(state) as { controlUrl: string };
    expect((await cli(['sessions', '--host-url', saved.controlUrl], env)).code).toBe(0);
    const elsewhere = await cli(['sessions', '--host-url', 'http://127.0.0.1:9'], env);
    expect(elsewhere).toEqual({
      code: 3,
      out: '',
      err: 'toolwire: no control secret for the host at http://127.0.0.1:9 (pass --token or set TOOLWIRE_CONTROL_TOKEN)\n',
    });
  });
});

describe('closing the control API', () => {
  it('lets an answer out, cuts a request still pending after its grace, never hangs', async () => {
    const host = await createHost({ token: TOKEN, origins: ['*'] });
    const control = await startControlServer(host);
    // late.tool answers when the test says so; slow.tool never does.
    const answer = latch();
    const page = await FakePage.connect(host.url, {
      tools: [
        tool('demo.echo'),
        tool('late.tool', async () => {
          await answer.wait;
          return 'late';
        }),
        tool('slow.tool', () => new Promise(() => {})),
      ],
    });
    pages.push(page);
    await host.waitForSession();
    const target = { url: control.url, token: control.token };
    expect(await controlRequest(target, '/v1/call', { toolId: 'demo.echo' })).toMatchObject({
      ok: true,
    });
    const late = controlRequest(target, '/v1/call', { toolId: 'late.tool' });
    const stuck = controlRequest(target, '/v1/call', { toolId: 'slow.tool' });
    const failed = stuck.catch((error: Error) => error);
    await until(() => page.requests('tool.call').length === 3);
    // Time is the subject: the grace (CLOSE_GRACE_MS, 2 s) runs on the test's clock. The host
    // is not closed first, so no answer to slow.tool is coming.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const closed = control.close();
      await vi.advanceTimersByTimeAsync(1999);
      // Still within the grace: an answer that comes now goes out on its connection.
      answer.open();
      expect(await late).toMatchObject({ ok: true, result: { result: 'late' } });
      // The grace ends: what is still pending is cut, and close() is done.
      await vi.advanceTimersByTimeAsync(1);
      expect(await failed).toMatchObject({ code: 'tool_transport_closed', retryable: false });
      await closed;
    } finally {
      vi.useRealTimers();
    }
    await host.close();
  });
});

describe('client commands', () => {
  it('sessions: a table, --json, and none', async () => {
    const { env, url } = await startHost();
    const empty = await cli(['sessions'], env);
    expect(empty).toMatchObject({ code: 0, out: 'no sessions: no page is connected\n' });
    await withPage(url);
    const human = await cli(['sessions'], env);
    expect(human.code).toBe(0);
    const [header, row] = human.out.split('\n');
    expect(header).toMatch(/^SESSION\s+ORIGIN\s+TOOLS\s+GRANT\s+GUARD\s+SDK\s+PAGE$/);
    expect(row).toMatch(
      /^[0-9a-f]{8}\s+http:\/\/app\.test\s+5\s+read\s+-\s+fake-page 1\.0\.0\s+Fake/,
    );
    const json = JSON.parse((await cli(['sessions', '--json'], env)).out);
    expect(json.sessions).toHaveLength(1);
    expect(json.sessions[0]).toMatchObject({ origin: 'http://app.test', tools: 5, grant: 'read' });
  });

  it("tools --json as the first request: the session's count, not loading", async () => {
    const { env, url, run } = await startHost();
    await withPage(url);
    await until(() => run.err().includes('catalog tools'));
    const json = JSON.parse((await cli(['tools', '--json'], env)).out);
    expect(json.session.tools).toBe(5);
  });

  it('tools: policy, grant and availability marked; --query; --detail full; --json', async () => {
    const { env, url } = await startHost(['--max-tool-policy', 'write']);
    await withPage(url);
    const human = await cli(['tools'], env);
    expect(human.code).toBe(0);
    const lines = human.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^session [0-9a-f]{8} {2}http:\/\/app\.test .*\(grant write\)$/);
    expect(lines[1]).toMatch(/^TOOL\s+POLICY\s+GRANTED\s+AVAILABLE\s+ORIGIN\s+DESCRIPTION$/);
    expect(lines[2]).toMatch(/^demo\.echo\s+read\s+yes\s+yes\s+page\s+Returns its input\.$/);
    expect(lines.find((l) => l.startsWith('notes.delete'))).toMatch(/critical\s+no\s+yes/);
    expect(lines.find((l) => l.startsWith('ui.later'))).toMatch(/no \(the view is loading\)/);
    // Columns line up: every row's POLICY starts where the header's does.
    const at = (lines[1] as string).indexOf('POLICY');
    for (const line of lines.slice(2)) expect(line.slice(at, at + 1)).toMatch(/[a-z]/);
    const query = await cli(['tools', '--query', 'note ADDS'], env);
    expect(query.out).toContain('notes.add');
    expect(query.out).not.toContain('demo.echo');
    const full = await cli(['tools', '--detail', 'full', '--query', 'echo'], env);
    expect(full.out).toContain('\ndemo.echo (Echo)\n  arguments: {"type":"object"}');
    const json = JSON.parse((await cli(['tools', '--json', '--detail', 'full'], env)).out);
    expect(json.tools.map((t: any) => t.id)).toEqual([
      'demo.echo',
      'demo.fail',
      'notes.add',
      'notes.delete',
      'ui.later',
    ]);
    expect(json.tools[0]).toMatchObject({
      policy: 'read',
      granted: true,
      available: true,
      argumentsSchema: { type: 'object' },
      resultSchema: { type: 'object' },
    });
    expect(json.tools[3]).toMatchObject({ granted: false });
    expect(json.tools[4]).toMatchObject({ available: false, runtime: { code: 'not_ready' } });
  });

  it('call: the result, --args JSON or @file, --json; a failing tool exits 1', async () => {
    const { env, url } = await startHost(['--max-tool-policy', 'write']);
    const page = await withPage(url);
    const human = await cli(['call', 'demo.echo', '--args', '{"text":"hi"}'], env);
    expect(human).toEqual({ code: 0, out: '{\n  "text": "hi"\n}\n', err: '' });
    const file = join(dir, 'args.json');
    writeFileSync(file, '{"text":"from a file"}');
    const fromFile = await cli(['call', 'demo.echo', '--args', `@${file}`, '--json'], env);
    expect(fromFile.code).toBe(0);
    expect(JSON.parse(fromFile.out)).toMatchObject({
      ok: true,
      result: { toolId: 'demo.echo', success: true, result: { text: 'from a file' } },
    });
    expect((await cli(['call', 'notes.add'], env)).out).toBe('{\n  "added": true\n}\n');
    const failed = await cli(['call', 'demo.fail'], env);
    expect(failed.code).toBe(1);
    expect(failed.out).toBe('');
    expect(failed.err).toMatch(/^toolwire: tool_execution_exception: .*\n$/);
    const denied = await cli(['call', 'notes.delete', '--json'], env);
    expect(denied.code).toBe(1);
    expect(JSON.parse(denied.out).error).toMatchObject({
      code: 'tool_execution_denied',
      retryable: false,
      details: { deniedBy: 'host-grant', policy: 'critical' },
    });
    expect(denied.err.split('\n')).toHaveLength(2);
    const missing = await cli(['call', 'no.such.tool'], env);
    expect(missing).toMatchObject({
      code: 1,
      err: expect.stringMatching(/^toolwire: tool_not_found/),
    });
    // --after asks the page for evidence after the call.
    await cli(['call', 'demo.echo', '--after', 'visualTree'], env);
    const calls = page.requests('tool.call');
    expect(calls.at(-1).payload.after).toEqual({ include: ['visualTree'] });
  });

  it('batch: a table; a failed call exits 1; --continue-on-error; - reads stdin', async () => {
    const { env, url } = await startHost();
    await withPage(url);
    const file = join(dir, 'batch.json');
    writeFileSync(
      file,
      JSON.stringify([
        { toolId: 'demo.echo', arguments: { n: 1 } },
        { toolId: 'demo.fail' },
        { toolId: 'demo.echo', arguments: { n: 3 } },
      ]),
    );
    const stopped = await cli(['batch', file], env);
    expect(stopped.code).toBe(1);
    expect(stopped.out).toMatch(/^#\s+TOOL\s+OK\s+RESULT\n0\s+demo\.echo\s+yes\s+\{"n":1\}\n/);
    expect(stopped.out).toMatch(/1\s+demo\.fail\s+no\s+tool_execution_exception/);
    expect(stopped.out).toContain('stopped early');
    expect(stopped.err).toMatch(/^toolwire: batch call 1 failed: tool_execution_exception/);
    const all = await cli(['batch', file, '--continue-on-error', '--json'], env);
    expect(all.code).toBe(1);
    expect(JSON.parse(all.out).result).toMatchObject({ completed: 3, requested: 3 });
    const stdin = new PassThrough();
    stdin.end(JSON.stringify({ calls: [{ toolId: 'demo.echo', arguments: { n: 9 } }] }));
    const piped = await cli(['batch', '-'], env, stdin);
    expect(piped.code).toBe(0);
    expect(piped.out).toContain('1 of 1 completed');
  });

  it('exit 3 without a host or a session; exit 2 for usage; one line each', async () => {
    const nowhere = { TOOLWIRE_STATE: join(dir, 'absent.json') };
    const noState = await cli(['sessions'], nowhere);
    expect(noState).toMatchObject({ code: 3, out: '' });
    expect(noState.err).toBe(
      'toolwire: no toolwire host is running (start one with "toolwire host", or set TOOLWIRE_HOST)\n',
    );
    const refused = await cli(
      ['tools', '--host-url', 'http://127.0.0.1:9', '--token', 'x'],
      nowhere,
    );
    expect(refused.code).toBe(3);
    expect(refused.err).toMatch(/^toolwire: no toolwire host answers at http:\/\/127\.0\.0\.1:9/);
    const { env } = await startHost();
    const noSession = await cli(['call', 'demo.echo'], env);
    expect(noSession).toMatchObject({ code: 3 });
    expect(noSession.err).toBe('toolwire: session_not_connected: No page is connected.\n');
    const wrongToken = await cli(['sessions'], {
      ...env,
      TOOLWIRE_CONTROL_TOKEN: 'not-the-token',
    });
    expect(wrongToken.code).toBe(3);
    expect(wrongToken.err).toMatch(/^toolwire: the host at .* refused us: Wrong or missing token/);
    // $TOOLWIRE_TOKEN is the page token, for `toolwire host`: the client commands ignore it.
    const pageToken = await cli(['sessions'], { ...env, TOOLWIRE_TOKEN: 'not-the-token' });
    expect(pageToken.code).toBe(0);
    for (const argv of [
      ['tools', '--detail', 'everything'],
      ['call'],
      ['call', 'demo.echo', '--args', '{not json'],
      ['call', 'demo.echo', '--args', '[1]'],
      ['batch', join(dir, 'no-such-file.json')],
      ['sessions', '--bogus'],
      ['sessions', '--allow-origin', '*'],
    ]) {
      const result = await cli(argv, env);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err.split('\n').length, argv.join(' ')).toBeLessThanOrEqual(3);
      expect(result.err).not.toMatch(/\n\s+at /);
    }
  });
});

describe('formatTable', () => {
  it('pads every column but the last', () => {
    expect(formatTable(['A', 'BB'], [['xxx', 'y']])).toBe('A    BB\nxxx  y\n');
  });
});

describe('toolwire mcp --attach', () => {
  it('serves the running host tools over MCP and follows its changes', async () => {
    const { env, url } = await startHost(['--max-tool-policy', 'write']);
    await withPage(url);
    const stdin = new PassThrough();
    const run = io(env, stdin);
    const exit = runCommand(['mcp', '--attach'], run.io);
    await until(() => run.err().includes('attached to the host'));
    const messages = () =>
      run
        .out()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
    let id = 0;
    const rpc = async (method: string, params: object = {}) => {
      const mine = ++id;
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: mine, method, params })}\n`);
      await until(() => messages().some((m) => m.id === mine));
      return messages().find((m) => m.id === mine);
    };
    await rpc('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'test', version: '0' },
    });
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const listed = await rpc('tools/list');
    expect(listed.result.tools.map((t: any) => t.name)).toEqual([
      'toolwire_pair',
      'toolwire_sessions',
      'toolwire_call',
      'demo_echo',
      'demo_fail',
      'notes_add',
      'ui_later',
    ]);
    const echo = await rpc('tools/call', { name: 'demo_echo', arguments: { text: 'attached' } });
    expect(echo.result).toMatchObject({ isError: false, structuredContent: { text: 'attached' } });
    const failed = await rpc('tools/call', { name: 'demo_fail', arguments: {} });
    expect(failed.result.isError).toBe(true);
    const page = await withPage(url);
    page.setTools([...pageTools(), tool('late.tool')]);
    await page.pushChanged();
    await until(() => messages().some((m) => m.method === 'notifications/tools/list_changed'));
    expect((await rpc('tools/list')).result.tools.map((t: any) => t.name)).toContain('late_tool');
    stdin.end();
    expect(await exit).toBe(0);
  });

  it('a call whose connection breaks fails as not retryable: its outcome is unknown', async () => {
    // A "host" that reads the call, then dies without answering.
    const server = createNetServer((socket) => socket.once('data', () => socket.destroy()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const call = controlRequest({ url, token: 'x' }, '/v1/call', { toolId: 'demo.echo' });
      await expect(call).rejects.toMatchObject({
        code: 'tool_transport_closed',
        retryable: false,
        message: expect.stringMatching(/outcome is unknown \(the tool may have run\)/),
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const refused = controlRequest({ url, token: 'x' }, '/v1/call', { toolId: 'demo.echo' });
    await expect(refused).rejects.toMatchObject({ code: 'session_not_connected' });
  });

  it('exits 3 when there is no host to attach to', async () => {
    const result = await cli(['mcp', '--attach'], { TOOLWIRE_STATE: join(dir, 'none.json') });
    expect(result.code).toBe(3);
    expect(result.err).toMatch(/^toolwire: no toolwire host is running/);
  });
});
