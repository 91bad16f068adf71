import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { HostProcess, toolwire } from './support/cli.js';
import { launchMcp } from './support/mcp.js';
import { clickConnect } from './support/pairing.js';

// The built `toolwire` bin as processes: `toolwire host` spawned, a real page in Chromium
// connected to it, and every client command run as its own process against it (human and
// --json output, exit codes 0, 1, 2 and 3).

const ORIGIN = `http://localhost:${E2E_PORT}`;
const ORIGIN_PATTERN = ORIGIN.replaceAll('/', '\\/').replaceAll('.', '\\.');
const PAGE = '/e2e/pages/host/page.html';
const dir = mkdtempSync(join(tmpdir(), 'toolwire-cli-e2e-'));

/** The host process, connected to the e2e page (9 tools: 5 of its own, 4 built-in ui.*). */
class PageHost extends HostProcess {
  async connect(page: Page, query = ''): Promise<void> {
    const url = await this.url();
    // (A new query string when the page is open already: a new fragment alone does not reload.)
    await page.goto(`${ORIGIN}${PAGE}${query}#toolwire=${encodeURIComponent(url)}`);
    await expect.poll(() => this.stderr).toMatch(/catalog tools, 9 tools/);
  }
}

let host: PageHost | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

test('toolwire host + a real page: sessions, tools, call, batch as processes', async ({ page }) => {
  host = new PageHost(['--allow-origin', ORIGIN, '--max-tool-policy', 'write']);
  const { env } = host;
  await host.connect(page);

  const sessions = await toolwire(['sessions'], env);
  expect(sessions.code).toBe(0);
  expect(sessions.out).toMatch(/^SESSION\s+ORIGIN\s+TOOLS\s+GRANT\s+GUARD\s+SDK\s+PAGE\n/);
  expect(sessions.out).toMatch(
    new RegExp(
      `\\n[0-9a-f]{8}\\s+${ORIGIN_PATTERN}\\s+9\\s+write\\s+full-access\\s+toolwire-web \\S+\\s+toolwire host e2e`,
    ),
  );
  const sessionsJson = JSON.parse((await toolwire(['sessions', '--json'], env)).out);
  expect(sessionsJson.sessions).toHaveLength(1);
  expect(sessionsJson.sessions[0]).toMatchObject({
    origin: ORIGIN,
    tools: 9,
    grant: 'write',
    guard: 'full-access',
    hidden: [],
  });
  const id = sessionsJson.sessions[0].id as string;

  const tools = await toolwire(['tools'], env);
  expect(tools.code).toBe(0);
  expect(tools.out).toMatch(
    new RegExp(
      `^session [0-9a-f]{8} {2}${ORIGIN_PATTERN} .*\\(grant write, page guard full-access\\)\\n`,
    ),
  );
  expect(tools.out).toMatch(/\ndemo\.echo\s+read\s+yes\s+yes\s+page\s+Returns its input\.\n/);
  expect(tools.out).toMatch(/\nnotes\.add\s+write\s+yes\s+yes\s+page\s+Adds a note\.\n/);
  expect(tools.out).toMatch(/\nnotes\.delete\s+critical\s+no\s+yes\s+page\s+Deletes a note\.\n/);
  const toolsJson = JSON.parse(
    (await toolwire(['tools', '--json', '--detail', 'full', '--session', id.slice(0, 8)], env)).out,
  );
  expect(toolsJson.tools).toHaveLength(9);
  expect(toolsJson.tools.find((t: any) => t.id === 'demo.echo')).toMatchObject({
    policy: 'read',
    granted: true,
    available: true,
    argumentsSchema: { type: 'object', properties: { text: { type: 'string' } } },
  });
  const queried = await toolwire(['tools', '--query', 'note', '--json'], env);
  expect(JSON.parse(queried.out).tools.map((t: any) => t.id)).toEqual([
    'notes.add',
    'notes.delete',
  ]);

  const echo = await toolwire(['call', 'demo.echo', '--args', '{"text":"hi"}'], env);
  expect(echo).toEqual({ code: 0, out: '{\n  "text": "hi"\n}\n', err: '' });
  // The JSON as a positional argument, as people first type it: the same call.
  expect(await toolwire(['call', 'demo.echo', '{"text":"hi"}'], env)).toEqual(echo);
  // Arguments the page's schema refuses: the first line says it in words, the code unchanged.
  const refused = await toolwire(['call', 'demo.echo', '{"text":5}'], env);
  expect(refused.code).toBe(1);
  expect(refused.err.split('\n')[0]).toBe(
    'toolwire: tool_arguments_schema_invalid: `text` must be a string',
  );
  const argsFile = join(dir, 'args.json');
  writeFileSync(argsFile, '{"text":"from a file"}');
  const echoJson = await toolwire(
    ['call', 'demo.echo', '--args', `@${argsFile}`, '--json', '--session', id],
    env,
  );
  expect(echoJson.code).toBe(0);
  expect(JSON.parse(echoJson.out)).toMatchObject({
    ok: true,
    session: id,
    result: { toolId: 'demo.echo', success: true, result: { text: 'from a file' } },
  });
  // Three ran (--args, positional, @file); the refused one never reached the tool.
  expect(await page.evaluate(() => (window as any).calls)).toEqual([
    'demo.echo',
    'demo.echo',
    'demo.echo',
  ]);
  const tree = await toolwire(
    ['call', 'ui.query_nodes', '--args', '{"selector":"body"}', '--after', 'visualTree', '--json'],
    env,
  );
  expect(tree.code, tree.err).toBe(0);
  expect(Object.keys(JSON.parse(tree.out).result.evidence ?? {})).toEqual(['visualTree']);

  // Exit 1: the host (the grant) or the page refuses.
  const denied = await toolwire(['call', 'notes.delete'], env);
  expect(denied).toMatchObject({ code: 1, out: '' });
  expect(denied.err).toMatch(
    /^toolwire: tool_execution_denied: .*\(restart the host with --max-tool-policy critical to allow it\)\n$/,
  );
  const deniedJson = await toolwire(['call', 'notes.delete', '--json'], env);
  expect(deniedJson.code).toBe(1);
  expect(JSON.parse(deniedJson.out).error).toMatchObject({
    code: 'tool_execution_denied',
    details: { deniedBy: 'host-grant', policy: 'critical' },
  });
  const unknown = await toolwire(['call', 'no.such.tool'], env);
  expect(unknown.code).toBe(1);
  expect(unknown.err).toMatch(/^toolwire: tool_not_found: /);
  expect(await page.evaluate(() => (window as any).calls)).not.toContain('notes.delete');

  const batchFile = join(dir, 'batch.json');
  writeFileSync(
    batchFile,
    JSON.stringify([
      { toolId: 'demo.echo', arguments: { text: 'one' } },
      { toolId: 'notes.add', arguments: {} },
    ]),
  );
  const batch = await toolwire(['batch', batchFile], env);
  expect(batch.code).toBe(0);
  expect(batch.out).toMatch(/^#\s+TOOL\s+OK\s+RESULT\n0\s+demo\.echo\s+yes\s+\{"text":"one"\}\n/);
  expect(batch.out).toMatch(/\n1\s+notes\.add\s+yes\s+\{"added":true\}\n2 of 2 completed\n$/);
  const batchJson = JSON.parse((await toolwire(['batch', batchFile, '--json'], env)).out);
  expect(batchJson.result).toMatchObject({ success: true, completed: 2, requested: 2 });
  const badBatch = join(dir, 'bad-batch.json');
  writeFileSync(
    badBatch,
    JSON.stringify([{ toolId: 'demo.echo', arguments: { text: 'x' } }, { toolId: 'missing' }]),
  );
  const failedBatch = await toolwire(['batch', badBatch, '--continue-on-error'], env);
  expect(failedBatch.code).toBe(1);
  expect(failedBatch.err.trim().split('\n')).toHaveLength(1);

  // The token only ever appears in the connect line of the host's output.
  const token = new URL(await host.url()).searchParams.get('token') as string;
  expect(host.stderr.split('\n').filter((line) => line.includes(token))).toHaveLength(1);
  expect(await host.stop()).toBe(0);
  host = undefined;
  // The host is gone: exit 3.
  const gone = await toolwire(['sessions'], env);
  expect(gone.code).toBe(3);
  expect(gone.err).toMatch(/^toolwire: no toolwire host (is running|answers)/);
});

test('exit codes: 2 for usage, 3 without a host or a session; one line, no stack', async () => {
  const nowhere = { TOOLWIRE_STATE: join(dir, 'absent.json') };
  const noHost = await toolwire(['tools'], nowhere);
  expect(noHost.code).toBe(3);
  expect(noHost.err).toBe(
    'toolwire: no toolwire host is running (start one with "toolwire host", or set TOOLWIRE_HOST)\n',
  );
  const noHostJson = await toolwire(['sessions', '--json'], nowhere);
  expect(noHostJson.code).toBe(3);
  expect(JSON.parse(noHostJson.out)).toMatchObject({ ok: false, error: { code: 'no_host' } });
  const refused = await toolwire(
    ['call', 'x', '--host-url', 'http://127.0.0.1:9', '--token', 'abc'],
    nowhere,
  );
  expect(refused.code).toBe(3);

  host = new PageHost(['--allow-origin', ORIGIN]);
  await host.url();
  const noSession = await toolwire(['call', 'demo.echo'], host.env);
  expect(noSession).toMatchObject({
    code: 3,
    err: 'toolwire: session_not_connected: No page is connected.\n',
  });
  const wrongSession = await toolwire(['tools', '--session', 'ffffffff'], host.env);
  expect(wrongSession.code).toBe(3);

  for (const args of [
    ['tools', '--bogus'],
    ['call'],
    ['call', 'demo.echo', '--args', '{nope'],
    ['tools', '--detail', 'some'],
    ['host', '--max-tool-policy', 'root'],
    ['nonsense'],
  ]) {
    const run = await toolwire(args, host.env);
    expect(run.code, args.join(' ')).toBe(2);
    // One line: the command, what is wrong, and where its help is (usage errors).
    expect(run.err, args.join(' ')).toMatch(/^toolwire( [a-z]+)?: [^\n]+\n$/);
  }
  expect((await toolwire(['tools', '--bogus'], host.env)).err).toBe(
    'toolwire tools: unknown option --bogus; see toolwire tools --help\n',
  );
  const help = await toolwire(['--help'], {});
  expect(help.code).toBe(0);
  expect(help.out).toContain('Exit codes: 0 success');
  // Alone: the usage, as a usage error. Each command: its own help.
  const alone = await toolwire([], {});
  expect(alone).toMatchObject({ code: 2, out: '' });
  expect(alone.err).toBe(help.out);
  for (const command of ['host', 'mcp', 'sessions', 'tools', 'call', 'batch', 'pair', 'revoke']) {
    const own = await toolwire([command, '--help'], {});
    expect(own.code, command).toBe(0);
    expect(own.out).toMatch(
      new RegExp(`^Usage: toolwire ${command}\\b[^\\n]*\\n[\\s\\S]*\\nExamples:\\n`),
    );
  }
});

test("toolwire host --allow-origin '*' warns; without one, the page is refused", async ({
  page,
}) => {
  host = new PageHost([]);
  const url = await host.url();
  expect(host.stderr).toContain('no origin is allowed');
  await page.goto(`${ORIGIN}${PAGE}#toolwire=${encodeURIComponent(url)}`);
  await expect.poll(() => host?.stderr).toMatch(/refused a connection from .*: 403/);
  expect((await toolwire(['sessions'], host.env)).out).toBe('no sessions: no page is connected\n');
  await host.stop();
  host = new PageHost(['--allow-origin', '*']);
  expect(await host.url()).toBeTruthy();
  expect(host.stderr).toContain("warning: --allow-origin '*'");
  await host.connect(page, '?again=1');
});

test('toolwire mcp --attach: the SDK client lists and calls a page tool of the running host', async ({
  page,
}) => {
  host = new PageHost(['--allow-origin', ORIGIN]);
  await host.connect(page);
  const { client } = await launchMcp(['--attach'], host.env);
  try {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('demo_echo');
    expect(names).not.toContain('notes_add');
    const echo = await client.callTool({ name: 'demo_echo', arguments: { text: 'attached' } });
    expect(echo).toMatchObject({ isError: false, structuredContent: { text: 'attached' } });
    expect(await page.evaluate(() => (window as any).calls)).toEqual(['demo.echo']);
  } finally {
    await client.close();
  }
});

// Issue 15 item 4: an MCP client launches `toolwire mcp` and hides its stderr. The person pairs
// a page from inside the client: the client calls toolwire_pair, the person opens the link and
// clicks Connect in the page's prompt; the page's tools then reach the client. stderr is not
// even read here. No host ran before, so this one publishes its control API: the terminal
// commands see the same page.
test('an MCP client pairs a page with toolwire_pair, stderr unread (the built bin, the SDK client)', async ({
  page,
}) => {
  const env = { TOOLWIRE_STATE: join(dir, 'mcp-pair.json') };
  const { client } = await launchMcp(['--port', '0'], env, { stderr: 'ignore' });
  try {
    expect(client.getInstructions()).toContain('toolwire_pair');
    const pairTool = (await client.listTools()).tools.find((t) => t.name === 'toolwire_pair');
    expect(pairTool?.description).toContain('click Connect');
    const paired = await client.callTool({
      name: 'toolwire_pair',
      arguments: { page: `${ORIGIN}/e2e/pages/host/iife.html` },
    });
    expect(paired.isError).toBe(false);
    const link = (paired.structuredContent as { link: string }).link;
    expect((paired.content as { text: string }[])[0]?.text).toContain(link);
    await page.goto(link);
    await clickConnect(page);
    // The one-script-tag page's read-only guard: the read built-ins reach the client.
    await expect
      .poll(async () => (await client.listTools()).tools.map((t) => t.name))
      .toContain('ui_query_nodes');
    const found = await client.callTool({
      name: 'ui_query_nodes',
      arguments: { automationId: 'hello' },
    });
    expect(found.isError).toBe(false);
    expect(JSON.parse((found.content as { text: string }[])[0]?.text ?? '{}').count).toBe(1);
    const sessions = await toolwire(['sessions', '--json'], env);
    expect(JSON.parse(sessions.out).sessions).toMatchObject([{ origin: ORIGIN, paired: true }]);
  } finally {
    await client.close();
  }
});

test('toolwire mcp with no options attaches to the running toolwire host (processes)', async ({
  page,
}) => {
  host = new PageHost(['--allow-origin', ORIGIN]);
  await host.connect(page);
  const mcp = await launchMcp([], host.env);
  const { client } = mcp;
  try {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['toolwire_pair', 'demo_echo']));
    const echo = await client.callTool({ name: 'demo_echo', arguments: { text: 'auto' } });
    expect(echo).toMatchObject({ isError: false, structuredContent: { text: 'auto' } });
    expect(mcp.stderr()).toMatch(
      /^toolwire mcp \S+: attached to the host at http:\/\/127\.0\.0\.1:\d+\n/,
    );
    expect(mcp.stderr()).not.toContain('connect a page'); // no second host
  } finally {
    await client.close();
  }
});

test('a second toolwire host on a busy port says which host runs there and how to reach it', async () => {
  host = new PageHost(['--port', '0', '--allow-origin', ORIGIN]);
  const port = new URL(await host.url()).port;
  // The honest path: the running host answers the commands.
  expect((await toolwire(['sessions'], host.env)).code).toBe(0);
  const state = JSON.parse(readFileSync(host.env.TOOLWIRE_STATE as string, 'utf8'));
  const named = `pid ${state.pid}, pages at ws://127.0.0.1:${port}/toolwire, control API ${state.controlUrl}, state in ${host.env.TOOLWIRE_STATE}`;
  // The same state file: refused before it binds, naming the first.
  const same = await toolwire(['host', '--port', port], host.env);
  expect(same.code).toBe(1);
  expect(same.err).toBe(
    `toolwire host: a toolwire host already runs (${named}): the toolwire commands reach that one (toolwire sessions; toolwire pair --page URL for a pairing link); for a second host, give it a state file of its own (TOOLWIRE_STATE=PATH)\n`,
  );
  // toolwire mcp with host options, on that port: the port is what stops it, and it says whose.
  const mcp = await toolwire(['mcp', '--port', port, '--allow-origin', ORIGIN], host.env);
  expect(mcp.code).toBe(1);
  expect(mcp.err.trimEnd().split('\n').at(-1)).toBe(
    `toolwire mcp: port ${port} is in use by a toolwire host (${named}): toolwire mcp --attach serves its tools; --port N (0 = any free port) runs this one elsewhere`,
  );
});
