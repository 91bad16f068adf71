import { request as httpRequest } from 'node:http';
import { expect, type Page, test } from '@playwright/test';
import type { Client } from '../packages/host/test/mcp-client.js';
import { E2E_PORT } from '../playwright.config.js';
import { HostProcess, toolwire } from './support/cli.js';
import { launchMcp } from './support/mcp.js';

// MCP over Streamable HTTP, end to end: the built `toolwire host` as a process, a real page in
// Chromium connected to it, the MCP SDK's own StreamableHTTPClientTransport with the secret
// `toolwire mcp-config` prints, beside the SDK's stdio client on `toolwire mcp --attach`. Raw
// node:http requests where a test must set Host, Origin or Authorization itself.

const ORIGIN = `http://localhost:${E2E_PORT}`;
const PAGE = '/e2e/pages/host/mcp-http.html';

let host: HostProcess | undefined;
const closers: (() => Promise<unknown>)[] = [];
test.afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  await host?.stop();
  host = undefined;
});

interface Endpoint {
  url: string;
  authorization: string;
}

/** `toolwire host`, the page connected, and the endpoint as `toolwire mcp-config` names it. */
async function hostWithPage(page: Page): Promise<Endpoint> {
  host = new HostProcess(['--allow-origin', ORIGIN]);
  const wsUrl = await host.url();
  await page.goto(`${ORIGIN}${PAGE}#toolwire=${encodeURIComponent(wsUrl)}`);
  await expect(page.locator('#status')).toHaveText('open');
  const banner = /MCP over HTTP at (\S+)/.exec(host.stderr)?.[1];
  const config = await toolwire(['mcp-config', '--client', 'vscode', '--http', '--json'], host.env);
  expect(config.code).toBe(0);
  const server = JSON.parse(config.out).configs[0].config.servers.toolwire;
  expect(server).toMatchObject({ type: 'http', url: banner });
  // The secret is in mcp-config's output, never on the host's stderr.
  expect(host.stderr).not.toContain(server.headers.Authorization.slice(7));
  return { url: server.url, authorization: server.headers.Authorization };
}

async function httpClient(endpoint: Endpoint, setup?: (client: Client) => void) {
  const { Client, StreamableHTTPClientTransport } = await import(
    '../packages/host/test/mcp-client.js'
  );
  const client = new Client({ name: 'toolwire-e2e-http', version: '0.0.0' });
  setup?.(client);
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    requestInit: { headers: { Authorization: endpoint.authorization } },
  });
  await client.connect(transport);
  closers.push(() => client.close());
  return { client, transport };
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One POST to /mcp with exactly these headers (Host included). */
function raw(url: string, headers: Record<string, string>, body: string): Promise<Raw> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        setHost: false,
        headers,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '0' },
  },
});
const codeOf = (answer: Raw) => JSON.parse(answer.body).error?.data?.['toolwire/code'];

test('an HTTP client lists and calls the tab; two HTTP clients and a stdio one see the same names; list_changed, progress', async ({
  page,
}) => {
  const endpoint = await hostWithPage(page);
  const changed: string[] = [];
  const { ToolListChangedNotificationSchema } = await import('../packages/host/test/mcp-client.js');
  const one = await httpClient(endpoint, (client) =>
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed.push('one');
    }),
  );
  const two = await httpClient(endpoint, (client) =>
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed.push('two');
    }),
  );
  await expect.poll(() => names(one.client)).toContain('demo_echo');
  const listed = await names(one.client);
  expect(listed).toEqual(
    expect.arrayContaining([
      'toolwire_sessions',
      'demo_echo',
      'demo_wait',
      'demo_steps',
      'demo_loud',
    ]),
  );
  expect(await names(two.client)).toEqual(listed);
  const stdio = await launchMcp(['--attach'], host?.env ?? {});
  closers.push(() => stdio.close());
  expect(await names(stdio.client)).toEqual(listed);

  const echoed = await one.client.callTool({ name: 'demo_echo', arguments: { text: 'over http' } });
  expect(echoed.isError).toBeFalsy();
  expect(JSON.parse((echoed.content as { text: string }[])[0]?.text ?? '')).toEqual({
    text: 'over http',
  });

  // A page's words with terminal escapes: what stdio gives, HTTP gives, byte for byte.
  const loud = async (client: Client) =>
    (await client.listTools()).tools.find((tool) => tool.name === 'demo_loud');
  expect(await loud(one.client)).toEqual(await loud(stdio.client));
  expect(await one.client.callTool({ name: 'demo_loud', arguments: {} })).toEqual(
    await stdio.client.callTool({ name: 'demo_loud', arguments: {} }),
  );
  expect(host?.stderr).not.toContain('\x1b');

  // The page registers a tool: both HTTP clients hear list_changed on their GET stream.
  changed.length = 0;
  await page.evaluate(() => (window as any).addTool());
  await expect.poll(() => [...changed].sort()).toEqual(['one', 'two']);
  expect(await names(one.client)).toContain('demo_later');
  expect(await names(two.client)).toEqual(await names(one.client));
  await expect.poll(() => names(stdio.client)).toEqual(await names(one.client));

  // Progress from the page reaches the HTTP client while the call runs.
  const heard: { progress: number; total?: number; message?: string }[] = [];
  const stepped = one.client.callTool({ name: 'demo_steps', arguments: {} }, undefined, {
    onprogress: (report) => heard.push(report),
  });
  await expect.poll(() => heard.at(-1)?.progress).toBe(3);
  await page.evaluate(() => (window as any).release());
  expect(await stepped).toMatchObject({ content: [{ type: 'text', text: 'stepped' }] });
  expect(heard).toEqual([
    { progress: 1, total: 3, message: 'one' },
    { progress: 2, total: 3, message: 'two' },
    { progress: 3, total: 3, message: 'three' },
  ]);
});

test("cancel and DELETE stop the page's tool; the ended session is 404 mcp_session_unknown", async ({
  page,
}) => {
  const endpoint = await hostWithPage(page);
  const { client, transport } = await httpClient(endpoint);
  await expect.poll(() => names(client)).toContain('demo_wait');

  // notifications/cancelled (the SDK sends it on abort) stops the tool at the page.
  const abort = new AbortController();
  const cancelled = client
    .callTool({ name: 'demo_wait', arguments: {} }, undefined, { signal: abort.signal })
    .then(
      () => 'answered',
      (error: Error) => error,
    );
  await expect.poll(() => page.evaluate(() => (window as any).started.length)).toBe(1);
  abort.abort('stop');
  expect(await cancelled).toBeInstanceOf(Error);
  await expect.poll(() => page.evaluate(() => (window as any).stops)).toEqual(['demo.wait']);
  expect(await client.ping()).toEqual({});

  // DELETE while a call runs: the session ends and the page's tool is stopped.
  const pending = client.callTool({ name: 'demo_wait', arguments: {} }).then(
    () => 'answered',
    (error: Error) => error,
  );
  await expect.poll(() => page.evaluate(() => (window as any).started.length)).toBe(2);
  const id = transport.sessionId as string;
  await transport.terminateSession();
  await expect
    .poll(() => page.evaluate(() => (window as any).stops))
    .toEqual(['demo.wait', 'demo.wait']);
  void pending;
  const after = await raw(
    endpoint.url,
    {
      Host: new URL(endpoint.url).host,
      Authorization: endpoint.authorization,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': id,
      'Mcp-Protocol-Version': '2025-06-18',
    },
    JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
  );
  expect([after.status, codeOf(after)]).toEqual([404, 'mcp_session_unknown']);
});

test('refused without the secret, with a wrong one, a foreign Origin or a foreign Host; each after the honest request', async ({
  page,
}) => {
  const endpoint = await hostWithPage(page);
  const honest = {
    Host: new URL(endpoint.url).host,
    Authorization: endpoint.authorization,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  };
  const cases: [string, Record<string, string>, number, string][] = [
    ['no secret', { Authorization: '' }, 401, 'mcp_unauthorized'],
    ['a wrong secret', { Authorization: `${endpoint.authorization}x` }, 401, 'mcp_unauthorized'],
    ['a foreign Origin', { Origin: 'http://evil.example' }, 403, 'mcp_origin_refused'],
    [
      'a foreign Host',
      { Host: `evil.example:${new URL(endpoint.url).port}` },
      403,
      'mcp_host_refused',
    ],
  ];
  for (const [what, change, status, code] of cases) {
    const ok = await raw(endpoint.url, honest, INITIALIZE);
    expect(ok.status, `the honest request before ${what}`).toBe(200);
    expect(ok.headers['mcp-session-id']).toBeTruthy();
    expect(ok.body).toContain('"serverInfo"');
    const refused = await raw(endpoint.url, { ...honest, ...change }, INITIALIZE);
    expect([refused.status, codeOf(refused)], what).toEqual([status, code]);
    expect(refused.body).not.toContain('serverInfo');
    if (status === 401) expect(refused.headers['www-authenticate']).toBe('Bearer');
  }
  // An HTTP client with a wrong secret is refused as well (the SDK surfaces the 401).
  await expect(
    httpClient({ ...endpoint, authorization: `${endpoint.authorization}x` }),
  ).rejects.toThrow();
});
