import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page, type TestInfo, test } from '@playwright/test';
import { WebMCPError, webmcp } from '../packages/playwright/src/index.js';
import { E2E_PORT } from '../playwright.config.js';
import { HostProcess, toolwire } from './support/cli.js';
import type { ExtensionBrowser } from './support/extension.js';
import { launchWithExtension } from './support/extension.js';
import { launchMcp, type McpProcess } from './support/mcp.js';
import { clickConnect } from './support/pairing.js';
import { TestHost, waitForMessage } from './support/ws-host.js';

// One contract on every road: the same set of failing tools (e2e/pages/roads/page.ts, written
// for `document.modelContext`) called through every road a call can take, each answering the
// same code and the same `retryable` (docs/wire.md "Error codes"). The roads: the
// page's own endpoint over the wire (a plain WebSocket host speaking the wire), the extension's
// Connect, `toolwire call`, `toolwire mcp` with its own host and attached to a running one, and
// `webmcp(page)` from @toolwire/playwright. This file runs in both projects: `chromium`
// (toolwire's polyfill) and `chromium-native` (the browser's own WebMCP, the polyfill layered on
// it, and `webmcp(page)` on its native path).
//
// Every road first proves it works (`contract.ok` answers), so no row can pass because nothing
// was called. The guard and the grant are the same on every road that has them: the page's guard
// is read-write (it hides the destructive tool) and the host grants read (it refuses the write
// tool). `webmcp(page)` calls the page's tools directly, where neither exists: those two rows do
// not apply to it, and the table says so.

const ORIGIN = `http://localhost:${E2E_PORT}`;
const PAGE = `${ORIGIN}/e2e/pages/roads/page.html`;
/** The deadline the timeout row asks for, on every road that takes one per call. */
const DEADLINE_MS = 1500;

type Outcome =
  | { ok: true; result: unknown }
  | {
      ok: false;
      code: string;
      retryable: boolean | undefined;
      deniedBy?: unknown;
      /** What the road shows a person: the message (an MCP text's first line, without the code). */
      said?: string;
    };

interface Row {
  failure: string;
  tool: string;
  args: Record<string, unknown>;
  code: string;
  /** The message every road shows a person, where the row checks it. */
  said?: string;
  /** Where the browser's own WebMCP runs the tool and cannot tell this failure apart. */
  nativeCode?: string;
  retryable: boolean;
  /** Rows about the guard or the grant: only roads with a host have them. */
  hostOnly?: boolean;
  /** Who refused, as `details.deniedBy` says on every road that has the row. */
  deniedBy?: 'page-guard' | 'host-grant';
  timeout?: boolean;
}

const ROWS: Row[] = [
  {
    failure: 'arguments fail the schema',
    tool: 'contract.schema',
    args: { n: 'x' },
    code: 'tool_arguments_schema_invalid',
    said: '`n` must be an integer',
    retryable: false,
  },
  {
    failure: 'the result cannot be lowered to JSON',
    tool: 'contract.lowering',
    args: {},
    code: 'tool_protocol_bridge_failed',
    // The browser rejects a throw and a result it cannot serialize alike (one UnknownError):
    // docs/browser-api.md names the difference.
    nativeCode: 'tool_execution_exception',
    retryable: false,
  },
  {
    failure: 'the tool throws',
    tool: 'contract.throw',
    args: {},
    code: 'tool_execution_exception',
    retryable: false,
  },
  {
    failure: 'the tool rejects with an AbortError of its own',
    tool: 'contract.abort',
    args: {},
    code: 'tool_execution_exception',
    retryable: false,
  },
  {
    failure: 'the deadline passes (a read tool: a retry cannot run it twice)',
    tool: 'contract.hang',
    args: {},
    code: 'tool_execution_timeout',
    retryable: true,
    timeout: true,
  },
  {
    failure: 'no tool has the name',
    tool: 'contract.nope',
    args: {},
    code: 'tool_not_found',
    retryable: false,
  },
  {
    failure: "hidden by the page's guard",
    tool: 'contract.wipe',
    args: {},
    code: 'tool_execution_denied',
    retryable: false,
    hostOnly: true,
    deniedBy: 'page-guard',
  },
  {
    failure: "above the host's grant",
    tool: 'contract.write',
    args: {},
    code: 'tool_execution_denied',
    retryable: false,
    hostOnly: true,
    deniedBy: 'host-grant',
  },
];

interface Road {
  call(tool: string, args: Record<string, unknown>, timeout: boolean): Promise<Outcome>;
  /** What ran in the page, in order. */
  runs(): Promise<string[]>;
}

/** Runs the whole table through `road`, the honest call first, and compares each row. */
async function runTable(road: Road, withHost: boolean, native: boolean) {
  const honest = await road.call('contract.ok', { n: 7 }, false);
  expect(honest, 'the honest call goes through first').toEqual({ ok: true, result: { n: 7 } });
  type Got =
    | { code: string; retryable: boolean | undefined; deniedBy?: unknown; said?: string }
    | 'answered';
  const got: Record<string, Got> = {};
  const want: typeof got = {};
  for (const row of ROWS) {
    if (row.hostOnly && !withHost) continue;
    const outcome = await road.call(row.tool, row.args, row.timeout === true);
    got[row.failure] = outcome.ok
      ? 'answered'
      : {
          code: outcome.code,
          retryable: outcome.retryable,
          ...(row.deniedBy ? { deniedBy: outcome.deniedBy } : {}),
          ...(row.said ? { said: outcome.said } : {}),
        };
    want[row.failure] = {
      code: (native && row.nativeCode) || row.code,
      retryable: row.retryable,
      ...(row.deniedBy ? { deniedBy: row.deniedBy } : {}),
      ...(row.said ? { said: row.said } : {}),
    };
  }
  expect(got).toEqual(want);
  // Refused before they ran: the schema row, the unknown name, the guard and the grant.
  const ran = await road.runs();
  expect(ran).not.toContain('contract.schema');
  expect(ran).not.toContain('contract.write');
  expect(ran).not.toContain('contract.wipe');
  expect(ran).toEqual(
    expect.arrayContaining(['contract.ok', 'contract.throw', 'contract.abort', 'contract.hang']),
  );
}

async function openRoadsPage(page: Page, url = PAGE): Promise<void> {
  await page.goto(url);
  await expect(page.locator('#status')).toHaveText('ready');
}

const pageRuns = (page: Page) => () =>
  page.evaluate(() => (window as unknown as { runs: string[] }).runs);

/** A `toolwire ... --json` outcome. */
function cliOutcome(run: { code: number; out: string; err: string }): Outcome {
  let parsed: any;
  try {
    parsed = JSON.parse(run.out);
  } catch {
    throw new Error(`toolwire printed no JSON (exit ${run.code}): ${run.err}`);
  }
  if (run.code === 0) return { ok: true, result: parsed.result?.result };
  const { code, retryable, details, message } = parsed.error ?? {};
  return { ok: false, code, retryable, deniedBy: details?.deniedBy, said: message };
}

/** `toolwire call` against the host in `env`. */
function cliRoad(env: Record<string, string>, page: Page): Road {
  return {
    async call(tool, args, timeout) {
      const run = await toolwire(
        [
          'call',
          tool,
          '--args',
          JSON.stringify(args),
          '--json',
          ...(timeout ? ['--timeout', String(DEADLINE_MS)] : []),
        ],
        env,
      );
      return cliOutcome(run);
    },
    runs: pageRuns(page),
  };
}

/** The details an MCP tool error's text carries on its second line, if any. */
function detailsOf(text: unknown): any {
  if (typeof text !== 'string' || !text.includes('\n')) return undefined;
  try {
    return JSON.parse(text.slice(text.indexOf('\n') + 1));
  } catch {
    return undefined;
  }
}

/** An MCP client's outcome: `_meta` carries the code; an unknown name is JSON-RPC's -32602. */
function mcpRoad(mcp: McpProcess, page: Page): Road {
  return {
    async call(tool, args) {
      try {
        const answer: any = await mcp.client.callTool({
          name: tool.replace(/\./g, '_'),
          arguments: args,
        });
        if (!answer.isError) {
          return {
            ok: true,
            result: answer.structuredContent ?? JSON.parse(answer.content[0].text),
          };
        }
        return {
          ok: false,
          code: answer._meta?.['toolwire/code'],
          retryable: answer._meta?.['toolwire/retryable'],
          // The text's second line is the failure's details as JSON, when it has any.
          deniedBy: detailsOf(answer.content[0]?.text)?.deniedBy,
          said: String(answer.content[0]?.text ?? '')
            .split('\n')[0]
            ?.replace(`${answer._meta?.['toolwire/code']}: `, ''),
        };
      } catch (error: any) {
        // MCP answers an unknown name with a protocol error; toolwire puts its code in `data`.
        return {
          ok: false,
          code: error?.data?.['toolwire/code'] ?? `mcp ${error?.code}: ${error?.message}`,
          retryable: error?.data?.['toolwire/retryable'],
        };
      }
    },
    runs: pageRuns(page),
  };
}

/** A `toolwire host` granting read, and the roads page paired with it from its link. */
async function pairedHost(page: Page): Promise<HostProcess> {
  const host = new HostProcess([
    '--allow-origin',
    ORIGIN,
    '--max-tool-policy',
    'read',
    '--page',
    PAGE,
  ]);
  cleanups.push(() => host.stop());
  await page.goto(await host.pairingLink());
  await clickConnect(page);
  await expect(page.locator('#status')).toHaveText('ready');
  return host;
}

/** Once the MCP client lists the page's tools. */
async function listedOverMcp(mcp: McpProcess): Promise<void> {
  await expect
    .poll(async () => (await mcp.client.listTools()).tools.map((tool) => tool.name))
    .toContain('contract_ok');
}

/** The project with the browser's own WebMCP. */
const isNative = (info: TestInfo) => info.project.name === 'chromium-native';

let cleanups: (() => Promise<unknown>)[] = [];
test.afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  cleanups = [];
});

test.describe('one contract on every road', () => {
  // Whole-test bounds, not waits: each road starts processes, and the timeout row waits its
  // deadline.
  test.describe.configure({ timeout: 120_000 });

  test("the page's endpoint, over the wire", async ({ page }, info) => {
    const host = await new TestHost().start();
    host.secrets.push('abc-pairing-code');
    cleanups.push(() => host.stop());
    const next = host.nextConnection();
    await page.goto(`${PAGE}#toolwire=${encodeURIComponent(`${host.url}?pair=abc-pairing-code`)}`);
    await clickConnect(page);
    const connection = await next;
    // The host's grant, as toolwire's host would send it: read; proven for the link's code.
    connection.welcome({ sessionId: 's-1', hostRun: 'contract', maxToolPolicy: 'read' });
    await waitForMessage(connection.messages, (m) => m?.type === 'session.open');
    await expect(page.locator('#status')).toHaveText('ready');
    const road: Road = {
      async call(toolId, args, timeout) {
        const response = await connection.client.request('tool.call', {
          toolId,
          arguments: args,
          ...(timeout ? { timeoutMs: DEADLINE_MS } : {}),
        });
        const payload = response.payload as any;
        return response.type === 'tool.result'
          ? { ok: true, result: payload.result }
          : {
              ok: false,
              code: payload.code,
              retryable: payload.retryable,
              deniedBy: payload.details?.deniedBy,
              said: payload.message,
            };
      },
      runs: pageRuns(page),
    };
    await runTable(road, true, isNative(info));
  });

  test('toolwire call, to a page with the script tag', async ({ page }, info) => {
    const host = await pairedHost(page);
    await expect
      .poll(async () => (await toolwire(['tools', '--json'], host.env)).out)
      .toContain('contract.ok');
    await runTable(cliRoad(host.env, page), true, isNative(info));
  });

  test('toolwire mcp with its own host', async ({ page }, info) => {
    const mcp = await launchMcp(
      [
        '--port',
        '0',
        '--allow-origin',
        ORIGIN,
        '--max-tool-policy',
        'read',
        '--timeout',
        String(DEADLINE_MS),
      ],
      { TOOLWIRE_STATE: join(mkdtempSync(join(tmpdir(), 'toolwire-contract-')), 'state.json') },
    );
    cleanups.push(() => mcp.close());
    const paired: any = await mcp.client.callTool({
      name: 'toolwire_pair',
      arguments: { page: PAGE },
    });
    await page.goto(paired.structuredContent.link);
    await clickConnect(page);
    await expect(page.locator('#status')).toHaveText('ready');
    await listedOverMcp(mcp);
    await runTable(mcpRoad(mcp, page), true, isNative(info));
  });

  test('toolwire mcp --attach, to a running host', async ({ page }, info) => {
    const host = await pairedHost(page);
    const mcp = await launchMcp(['--attach', '--timeout', String(DEADLINE_MS)], host.env);
    cleanups.push(() => mcp.close());
    await listedOverMcp(mcp);
    await runTable(mcpRoad(mcp, page), true, isNative(info));
  });

  test("the extension's Connect", async ({ browserName: _ }, info) => {
    const browser: ExtensionBrowser = await launchWithExtension({
      native: isNative(info),
    });
    cleanups.push(() => browser.close());
    const host = new HostProcess(['--max-tool-policy', 'read']);
    cleanups.push(() => host.stop());
    await host.url();
    const page = await browser.context.newPage();
    await openRoadsPage(page);
    const panel = await browser.openPanel(await browser.tabIdOf(page));
    const paired = await toolwire(['pair', '--extension', browser.extensionId], host.env);
    expect(paired.code, paired.err).toBe(0);
    await panel.locator('#connect-pairing').fill(paired.out.trim());
    await panel.locator('#connect-guard').selectOption('read-write');
    await panel.locator('#connect-button').click();
    await expect(panel.locator('.connect-status')).toHaveText(/^Connected to ws:\/\/127\.0\.0\.1:/);
    await expect
      .poll(async () => (await toolwire(['tools', '--json'], host.env)).out)
      .toContain('contract.ok');
    // The tab serves itself (a delegate of the extension's pairing), and only that session
    // remains: the table below runs on that road.
    await expect
      .poll(async () =>
        JSON.parse((await toolwire(['sessions', '--json'], host.env)).out).sessions.map(
          (session: { auth: string }) => session.auth,
        ),
      )
      .toEqual(['extension']);
    await runTable(cliRoad(host.env, page), true, isNative(info));
  });

  test('webmcp(page), on the path the browser allows', async ({ page }, info) => {
    await openRoadsPage(page);
    const tools = webmcp(page);
    expect(await tools.via()).toBe(info.project.name === 'chromium-native' ? 'native' : 'polyfill');
    const road: Road = {
      async call(tool, args, timeout) {
        try {
          const result = await tools.callTool(
            tool,
            args,
            timeout ? { timeout: DEADLINE_MS } : undefined,
          );
          return { ok: true, result };
        } catch (error) {
          if (!(error instanceof WebMCPError)) throw error;
          return {
            ok: false,
            code: error.code,
            retryable: (error as any).retryable,
            said: error.message,
          };
        }
      },
      runs: pageRuns(page),
    };
    await runTable(road, false, isNative(info));
  });
});
