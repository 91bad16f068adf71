import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { CLI, HostProcess, toolwire } from './support/cli.js';

// Every MCP client configuration in the README and docs/mcp-clients.md, read from the files at
// test time: each is what `toolwire mcp-config --client C --stdio|--http` prints (its
// placeholders filled in), and what it names is started: a stdio command is spawned (`toolwire`
// being this repository's built CLI) and the MCP SDK's stdio client lists and calls the
// connected tab's tools through it; an HTTP configuration's URL and headers are given to the
// SDK's Streamable HTTP client, which does the same. Claude Code's is a command line: its
// arguments are parsed and checked, then what they name is started the same way.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where configurations are shown; a fenced block there tagged as below is checked. */
const FILES = ['README.md', 'docs/mcp-clients.md', 'packages/host/README.md'];
const CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode'] as const;
const TRANSPORTS = ['stdio', 'http'] as const;
/** The placeholders the snippets are written with. */
const SECRET = '<secret>';
const DEFAULT_URL = 'http://127.0.0.1:45124/mcp';
const ORIGIN = `http://localhost:${E2E_PORT}`;
const PAGE = '/e2e/pages/conformance/index.html';

interface Snippet {
  file: string;
  lang: 'json' | 'sh';
  clients: string[];
  transport: string;
  body: string;
}

/** The fenced blocks tagged ```json|sh <client>[,<client>] <stdio|http>. */
function snippets(): Snippet[] {
  return FILES.flatMap((file) =>
    [
      ...readFileSync(join(ROOT, file), 'utf8').matchAll(
        /^```(json|sh) ([a-z,-]+) (stdio|http)\n([\s\S]*?)^```$/gm,
      ),
    ].map((match) => ({
      file,
      lang: match[1] as 'json' | 'sh',
      clients: (match[2] as string).split(','),
      transport: match[3] as string,
      body: match[4] as string,
    })),
  );
}

/** A command line's words, as a POSIX shell splits it (double and single quotes). */
function words(line: string): string[] {
  const out: string[] = [];
  for (const match of line.trim().matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) {
    out.push(match[1]?.replace(/\\(.)/g, '$1') ?? match[2] ?? (match[3] as string));
  }
  return out;
}

interface Printed {
  url: string;
  configs: { client: string; transport: string; command?: string; config?: any }[];
}

/** `toolwire mcp-config --client C --T --json`, in `env`. */
async function printed(client: string, transport: string, env: Record<string, string>) {
  const run = await toolwire(['mcp-config', '--client', client, `--${transport}`, '--json'], env);
  expect(run.code, run.err).toBe(0);
  const answer = JSON.parse(run.out) as Printed;
  expect(answer.configs).toHaveLength(1);
  return { url: answer.url, config: answer.configs[0] as Printed['configs'][number] };
}

/** What a client would start: a command (stdio) or a URL with headers (HTTP). */
type Target =
  | { kind: 'stdio'; command: string; args: string[] }
  | { kind: 'http'; url: string; headers: Record<string, string> };

/** The server entry of a client's JSON file. */
function entryOf(config: any): any {
  return (config.mcpServers ?? config.servers).toolwire;
}

function targetOfJson(config: any): Target {
  const entry = entryOf(config);
  if (typeof entry.url === 'string')
    return { kind: 'http', url: entry.url, headers: entry.headers };
  return { kind: 'stdio', command: entry.command, args: entry.args };
}

/** `claude mcp add ...`, parsed and checked as Claude Code reads it. */
function targetOfClaudeCode(line: string, transport: string): Target {
  const argv = words(line);
  expect(argv.slice(0, 3)).toEqual(['claude', 'mcp', 'add']);
  if (transport === 'stdio') {
    const dash = argv.indexOf('--');
    expect(argv.slice(3, dash)).toEqual(['toolwire']);
    const [command, ...args] = argv.slice(dash + 1);
    return { kind: 'stdio', command: command as string, args };
  }
  const rest = argv.slice(3);
  const headers: Record<string, string> = {};
  const positional: string[] = [];
  let kind: string | undefined;
  for (let i = 0; i < rest.length; i += 1) {
    const word = rest[i] as string;
    if (word === '--transport') kind = rest[++i];
    else if (word === '--header') {
      const header = rest[++i] as string;
      const colon = header.indexOf(':');
      headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    } else positional.push(word);
  }
  expect(kind).toBe('http');
  expect(positional).toHaveLength(2);
  expect(positional[0]).toBe('toolwire');
  return { kind: 'http', url: positional[1] as string, headers };
}

test('the README and docs/mcp-clients.md configure every client over stdio and HTTP', () => {
  const all = snippets();
  const covered = (file: string) =>
    new Set(
      all
        .filter((snippet) => snippet.file === file)
        .flatMap((snippet) => snippet.clients.map((client) => `${client} ${snippet.transport}`)),
    );
  const everyPair = CLIENTS.flatMap((client) => TRANSPORTS.map((t) => `${client} ${t}`));
  // The docs page has every pair; the README every client and both transports.
  expect([...covered('docs/mcp-clients.md')].sort()).toEqual([...everyPair].sort());
  const readme = [...covered('README.md')];
  for (const client of CLIENTS)
    expect(readme.some((pair) => pair.startsWith(`${client} `))).toBe(true);
  for (const t of TRANSPORTS) expect(readme.some((pair) => pair.endsWith(` ${t}`))).toBe(true);
});

test("every snippet is what toolwire mcp-config prints, and what it names lists and calls a tab's tools", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const home = mkdtempSync(join(tmpdir(), 'toolwire-client-configs-'));
  const host = new HostProcess(['--allow-origin', ORIGIN], undefined, { TOOLWIRE_HOME: home });
  const { Client, StdioClientTransport, StreamableHTTPClientTransport } = await import(
    '../packages/host/test/mcp-client.js'
  );
  try {
    const url = await host.url();
    await page.goto(`${ORIGIN}${PAGE}#toolwire=${encodeURIComponent(url)}`);
    await expect(page.locator('#status')).toHaveText('open');

    /** Connects to `target`, waits for the tab's tool, calls it; closes. */
    async function listAndCall(target: Target) {
      const client = new Client({ name: 'toolwire-config-e2e', version: '0.0.0' });
      if (target.kind === 'stdio') {
        // `toolwire` on the client's PATH is this repository's build.
        expect(target.command).toBe('toolwire');
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [CLI, ...target.args],
            env: { PATH: process.env.PATH ?? '', ...host.env },
            stderr: 'ignore',
          }),
        );
      } else {
        await client.connect(
          new StreamableHTTPClientTransport(new URL(target.url), {
            requestInit: { headers: target.headers },
          }),
        );
      }
      try {
        await expect
          .poll(async () => (await client.listTools()).tools.map((tool) => tool.name))
          .toContain('test_simple_text');
        const call = await client.callTool({ name: 'test_simple_text', arguments: {} });
        expect(call.content).toEqual([
          { type: 'text', text: 'This is a simple text response for testing.' },
        ]);
      } finally {
        await client.close();
      }
    }

    const all = snippets();
    expect(all.length).toBeGreaterThanOrEqual(12);
    let secret = '';
    for (const snippet of all) {
      for (const client of snippet.clients) {
        const label = `${snippet.file}: ${client} ${snippet.transport}`;
        const { url: mcpUrl, config } = await printed(client, snippet.transport, host.env);
        // The running host's /mcp, on the port it took.
        expect(mcpUrl).toBe(`http://127.0.0.1:${new URL(url).port}/mcp`);
        const printedText = config.command ?? JSON.stringify(config.config);
        secret ||= /Bearer ([A-Za-z0-9_-]{43})/.exec(printedText)?.[1] ?? '';
        const filled = snippet.body.replaceAll(SECRET, secret).replaceAll(DEFAULT_URL, mcpUrl);
        let target: Target;
        if (snippet.lang === 'json') {
          const parsed = JSON.parse(filled);
          expect(parsed, label).toEqual(config.config);
          target = targetOfJson(parsed);
        } else {
          expect(filled.trim(), label).toBe(config.command);
          target = targetOfClaudeCode(filled, snippet.transport);
        }
        expect(target.kind === 'http', label).toBe(
          snippet.transport === 'http' && client !== 'claude-desktop',
        );
        await listAndCall(target);
      }
    }
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // The placeholder matters: the snippet as written, unfilled, is refused, coded.
    const refused = await fetch(new URL(`http://127.0.0.1:${new URL(url).port}/mcp`), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${SECRET}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.data['toolwire/code']).toBe('mcp_unauthorized');
  } finally {
    await host.stop();
  }
});
