import { createHash } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import type { Host } from '../src/index.js';
import { createHost } from '../src/index.js';
import { checkMcpRequest, createMcpHttp } from '../src/mcp/http.js';
import { FakePage, type McpHttpAnswer, mcpRequest, tool } from './helpers.js';
import {
  Client,
  StreamableHTTPClientTransport,
  ToolListChangedNotificationSchema,
} from './mcp-client.js';

// MCP over Streamable HTTP at /mcp on the host's page port (src/mcp/http.ts): a real host, a
// real page socket (FakePage), the SDK's own HTTP client, and raw node:http requests where a
// test must set Host, Origin or Authorization itself.

const ORIGIN = 'http://localhost:5401';
const SECRET = 'mcp-secret-for-the-unit-tests-0123456789';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function hostWithPage(options: { mcp?: { secret: string } } = { mcp: { secret: SECRET } }) {
  const host = await createHost({ origins: [ORIGIN], ...options });
  cleanups.push(() => host.close());
  const page = await FakePage.connect(host.url, {
    origin: ORIGIN,
    tools: [tool('demo.echo', (args) => args)],
  });
  cleanups.push(() => page.socket.close());
  await host.waitForSession({ filter: (s) => s.catalog.get('demo.echo') !== undefined });
  return { host, page };
}

async function httpClient(host: Host, secret = SECRET) {
  const client = new Client({ name: 'unit', version: '0' });
  const transport = new StreamableHTTPClientTransport(new URL(host.mcpUrl as string), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

const raw = mcpRequest;

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

function honest(port: number, extra: Record<string, string> = {}) {
  return {
    Host: `127.0.0.1:${port}`,
    Authorization: `Bearer ${SECRET}`,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...extra,
  };
}

const codeOf = (answer: McpHttpAnswer) => JSON.parse(answer.body).error?.data?.['toolwire/code'];

describe('MCP over Streamable HTTP', () => {
  it('lists and calls a page tool under the names stdio gives', async () => {
    const { host } = await hostWithPage();
    expect(host.mcpUrl).toBe(`http://127.0.0.1:${host.port}/mcp`);
    const { client, transport } = await httpClient(host);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await client.listTools();
    expect(listed.tools.map((one) => one.name)).toEqual([
      'toolwire_pair',
      'toolwire_sessions',
      'toolwire_call',
      'demo_echo',
    ]);
    const answer = await client.callTool({ name: 'demo_echo', arguments: { text: 'hi' } });
    expect(answer.isError).toBeFalsy();
    expect(JSON.parse((answer.content as { text: string }[])[0]?.text ?? '')).toEqual({
      text: 'hi',
    });
  });

  it('without mcp, /mcp is 404 and mcpUrl undefined', async () => {
    const { host } = await hostWithPage({});
    expect(host.mcpUrl).toBeUndefined();
    const answer = await raw(host.port, { headers: honest(host.port), body: INITIALIZE });
    expect(answer.status).toBe(404);
  });

  it('refuses in order: Host, Origin, bearer; each after the honest request passed', async () => {
    const { host } = await hostWithPage();
    const port = host.port;
    const ok = await raw(port, { headers: honest(port), body: INITIALIZE });
    expect(ok.status).toBe(200);
    expect(ok.headers['mcp-session-id']).toBeTruthy();
    // Also allowed: localhost and a loopback Origin.
    const local = await raw(port, {
      headers: honest(port, { Host: `localhost:${port}`, Origin: 'http://localhost:3000' }),
      body: INITIALIZE,
    });
    expect(local.status).toBe(200);

    const foreignHost = await raw(port, {
      headers: honest(port, { Host: `evil.example:${port}`, Origin: 'http://evil.example' }),
      body: INITIALIZE,
    });
    expect([foreignHost.status, codeOf(foreignHost)]).toEqual([403, 'mcp_host_refused']);
    const otherPort = await raw(port, {
      headers: honest(port, { Host: `127.0.0.1:${port + 1}` }),
      body: INITIALIZE,
    });
    expect([otherPort.status, codeOf(otherPort)]).toEqual([403, 'mcp_host_refused']);
    // Host passes, Origin is foreign, no secret either: Origin is named first.
    const foreignOrigin = await raw(port, {
      headers: honest(port, { Origin: 'http://evil.example', Authorization: '' }),
      body: INITIALIZE,
    });
    expect([foreignOrigin.status, codeOf(foreignOrigin)]).toEqual([403, 'mcp_origin_refused']);
    const noSecret = await raw(port, {
      headers: honest(port, { Authorization: '' }),
      body: INITIALIZE,
    });
    expect([noSecret.status, codeOf(noSecret)]).toEqual([401, 'mcp_unauthorized']);
    expect(noSecret.headers['www-authenticate']).toBe('Bearer');
    const wrong = await raw(port, {
      headers: honest(port, { Authorization: `Bearer ${SECRET}x` }),
      body: INITIALIZE,
    });
    expect([wrong.status, codeOf(wrong)]).toEqual([401, 'mcp_unauthorized']);
    const pageToken = await raw(port, {
      headers: honest(port, { Authorization: `Bearer ${host.token}` }),
      body: INITIALIZE,
    });
    expect([pageToken.status, codeOf(pageToken)]).toEqual([401, 'mcp_unauthorized']);
    expect(JSON.parse(wrong.body)).toMatchObject({ jsonrpc: '2.0', id: null });
  });

  it('the check alone: Host before Origin before bearer', () => {
    const policy = { secret: SECRET, ports: [1234] };
    const all = { host: 'evil:1234', origin: 'http://evil', authorization: 'Bearer no' };
    expect(checkMcpRequest(all, policy)?.code).toBe('mcp_host_refused');
    expect(checkMcpRequest({ ...all, host: '[::1]:1234' }, policy)?.code).toBe(
      'mcp_origin_refused',
    );
    expect(
      checkMcpRequest({ ...all, host: '[::1]:1234', origin: 'http://[::1]:9' }, policy)?.code,
    ).toBe('mcp_unauthorized');
    expect(
      checkMcpRequest(
        { host: '127.0.0.1:1234', origin: 'http://127.0.0.1:9', authorization: `Bearer ${SECRET}` },
        policy,
      ),
    ).toBeUndefined();
    expect(
      checkMcpRequest({ host: '127.0.0.1:1234', origin: 'https://localhost' }, policy)?.code,
    ).toBe('mcp_origin_refused');
    expect(checkMcpRequest({ origin: 'http://localhost' }, policy)?.code).toBe('mcp_host_refused');
  });

  it('an unknown session is 404 mcp_session_unknown; DELETE ends a session', async () => {
    const { host } = await hostWithPage();
    const { client, transport } = await httpClient(host);
    await client.listTools();
    const id = transport.sessionId as string;
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const withId = (value: string) =>
      honest(host.port, { 'Mcp-Session-Id': value, 'Mcp-Protocol-Version': '2025-06-18' });
    const before = await raw(host.port, { headers: withId(id), body: list });
    expect(before.status).toBe(200);
    expect(before.body).toContain('demo_echo');
    const unknown = await raw(host.port, { headers: withId('no-such-session'), body: list });
    expect([unknown.status, codeOf(unknown)]).toEqual([404, 'mcp_session_unknown']);
    await transport.terminateSession();
    const after = await raw(host.port, { headers: withId(id), body: list });
    expect([after.status, codeOf(after)]).toEqual([404, 'mcp_session_unknown']);
    const missing = await raw(host.port, { headers: honest(host.port), body: list });
    expect([missing.status, codeOf(missing)]).toEqual([400, 'mcp_session_required']);
  });

  it('two sessions see the same names, and both hear list_changed', async () => {
    const { host, page } = await hostWithPage();
    const one = await httpClient(host);
    const two = await httpClient(host);
    const heard = [latch(), latch()];
    one.client.setNotificationHandler(ToolListChangedNotificationSchema, async () =>
      heard[0]?.open(),
    );
    two.client.setNotificationHandler(ToolListChangedNotificationSchema, async () =>
      heard[1]?.open(),
    );
    const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
    expect(await names(one.client)).toEqual(await names(two.client));
    // The GET streams are open once the client has connected; a new tool reaches both.
    page.setTools([...page.tools, tool('demo.later')]);
    await page.pushChanged();
    await Promise.all(heard.map((one) => one.wait));
    await until(async () => (await names(one.client)).includes('demo_later'));
    expect(await names(two.client)).toEqual(await names(one.client));
  });

  it("a client dropping a call's stream cancels the call at the page", async () => {
    const host = await createHost({ origins: [ORIGIN], mcp: { secret: SECRET } });
    cleanups.push(() => host.close());
    const started: string[] = [];
    const stops: unknown[] = [];
    const page = await FakePage.connect(host.url, {
      origin: ORIGIN,
      tools: [
        tool(
          'demo.wait',
          (_, context) =>
            new Promise((resolve, reject) => {
              started.push('demo.wait');
              const timer = setTimeout(() => resolve({ waited: true }), 10_000);
              context.signal.addEventListener('abort', () => {
                clearTimeout(timer);
                stops.push(context.signal.reason);
                reject(context.signal.reason);
              });
            }),
        ),
      ],
    });
    cleanups.push(() => page.socket.close());
    await host.waitForSession({ filter: (s) => s.catalog.get('demo.wait') !== undefined });
    const opened = await raw(host.port, { headers: honest(host.port), body: INITIALIZE });
    const id = opened.headers['mcp-session-id'] as string;
    const headers = honest(host.port, {
      'Mcp-Session-Id': id,
      'Mcp-Protocol-Version': '2025-06-18',
    });
    const call = (n: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: n,
        method: 'tools/call',
        params: { name: 'demo_wait', arguments: {} },
      });
    // The honest road first: the call runs, and its stream stays open while it does.
    const streamed = httpRequest({
      host: '127.0.0.1',
      port: host.port,
      path: '/mcp',
      method: 'POST',
      agent: false,
      setHost: false,
      headers,
    });
    const answered = latch<number>();
    streamed.on('response', (response) => answered.open(response.statusCode ?? 0));
    streamed.on('error', () => {});
    streamed.end(call(2));
    expect(await answered.wait).toBe(200);
    await until(() => started.length === 1);
    expect(stops).toEqual([]);
    // The client drops the stream: the page's tool sees its signal fire.
    streamed.destroy();
    await until(() => stops.length === 1);
    // The session itself lives on.
    const list = await raw(host.port, {
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(list.status).toBe(200);
    expect(list.body).toContain('demo_wait');
  });

  it('closes an idle session (no request, no GET stream); one with an open GET stream stays', async () => {
    // A host with no pages, seen as the MCP side sees one, and an idle time short enough to wait.
    const empty = {
      sessions: [],
      session: () => undefined,
      pairingLink: () => {
        throw new Error('no pairing here');
      },
      extensionPairing: () => {
        throw new Error('no pairing here');
      },
      on: () => () => {},
    };
    let port = 0;
    const mcp = await createMcpHttp(empty, {
      secret: SECRET,
      port: () => port,
      maxBodyBytes: 1 << 20,
      idleMs: 1000,
    });
    const server = createServer((request, response) => mcp.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
    cleanups.push(
      () => new Promise<void>((resolve) => server.close(() => resolve())),
      () => server.closeAllConnections(),
      () => mcp.close(),
    );
    const open = async () => {
      const answer = await raw(port, { headers: honest(port), body: INITIALIZE });
      expect(answer.status).toBe(200);
      return answer.headers['mcp-session-id'] as string;
    };
    const idle = await open();
    const streaming = await open();
    const withId = (id: string) =>
      honest(port, { 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': '2025-06-18' });
    // The GET stream of `streaming` stays open.
    const stream = httpRequest({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'GET',
      agent: false,
      setHost: false,
      headers: { ...withId(streaming), Accept: 'text/event-stream' },
    });
    const streamOpen = latch<number>();
    stream.on('response', (response) => streamOpen.open(response.statusCode ?? 0));
    stream.on('error', () => {});
    stream.end();
    expect(await streamOpen.wait).toBe(200);
    cleanups.push(() => stream.destroy());
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await raw(port, { headers: withId(idle), body: list })).status).toBe(200);
    expect(mcp.sessionCount).toBe(2);
    await until(() => mcp.sessionCount === 1);
    const gone = await raw(port, { headers: withId(idle), body: list });
    expect([gone.status, codeOf(gone)]).toEqual([404, 'mcp_session_unknown']);
    const kept = await raw(port, { headers: withId(streaming), body: list });
    expect(kept.status).toBe(200);
  });

  it('caps sessions: the one beyond the cap is 503 mcp_session_limit', async () => {
    const { host } = await hostWithPage();
    for (let n = 0; n < 32; n++) {
      const ok = await raw(host.port, { headers: honest(host.port), body: INITIALIZE });
      expect(ok.status).toBe(200);
    }
    const refused = await raw(host.port, { headers: honest(host.port), body: INITIALIZE });
    expect([refused.status, codeOf(refused)]).toEqual([503, 'mcp_session_limit']);
  });

  it('a body above the frame limit is 413 mcp_body_too_large', async () => {
    const host = await createHost({
      origins: [ORIGIN],
      mcp: { secret: SECRET },
      maxMessageBytes: 4096,
    });
    cleanups.push(() => host.close());
    const ok = await raw(host.port, { headers: honest(host.port), body: INITIALIZE });
    expect(ok.status).toBe(200);
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { pad: 'x'.repeat(5000) },
    });
    const refused = await raw(host.port, { headers: honest(host.port), body: big });
    expect([refused.status, codeOf(refused)]).toEqual([413, 'mcp_body_too_large']);
  });

  it('reads a body sent in pieces, with a Content-Length or chunked', async () => {
    const host = await createHost({
      origins: [ORIGIN],
      mcp: { secret: SECRET },
      maxMessageBytes: 4096,
    });
    cleanups.push(() => host.close());
    const whole = await raw(host.port, { headers: honest(host.port), body: INITIALIZE });
    expect(whole.status).toBe(200);
    const half = Math.floor(INITIALIZE.length / 2);
    const pieces = [INITIALIZE.slice(0, half), INITIALIZE.slice(half, half + 7)];
    const rest = INITIALIZE.slice(half + 7);
    const sized = await raw(host.port, {
      headers: honest(host.port, { 'Content-Length': String(Buffer.byteLength(INITIALIZE)) }),
      parts: pieces,
      body: rest,
    });
    expect([sized.status, sized.headers['mcp-session-id'] !== undefined]).toEqual([200, true]);
    expect(sized.body).toContain('"protocolVersion":"2025-06-18"');
    const chunked = await raw(host.port, { headers: honest(host.port), parts: pieces, body: rest });
    expect([chunked.status, chunked.headers['mcp-session-id'] !== undefined]).toEqual([200, true]);
    expect(chunked.body).toContain('"protocolVersion":"2025-06-18"');
    // Chunked (no length declared) and too large: refused once the bytes pass the limit.
    const big = await raw(host.port, {
      headers: honest(host.port),
      parts: [INITIALIZE.slice(0, -1), ` ${'x'.repeat(5000)}`],
      body: '}',
    });
    expect([big.status, codeOf(big)]).toEqual([413, 'mcp_body_too_large']);
  });

  it('compares the secret by its bytes when the lengths match, else by digests', () => {
    const headers = (secret: string) => ({
      host: '127.0.0.1:1234',
      authorization: `Bearer ${secret}`,
    });
    const digest = createHash('sha256').update(SECRET).digest();
    for (const policy of [
      { secret: SECRET, ports: [1234] },
      { secret: digest, ports: [1234] },
      { secret: digest, secretBytes: Buffer.from(SECRET), ports: [1234] },
    ]) {
      expect(checkMcpRequest(headers(SECRET), policy)).toBeUndefined();
      const sameLength = `${SECRET.slice(0, -1)}${SECRET.endsWith('x') ? 'y' : 'x'}`;
      expect(checkMcpRequest(headers(sameLength), policy)?.code).toBe('mcp_unauthorized');
      expect(checkMcpRequest(headers(`${SECRET}x`), policy)?.code).toBe('mcp_unauthorized');
      expect(checkMcpRequest(headers(SECRET.slice(1)), policy)?.code).toBe('mcp_unauthorized');
      expect(checkMcpRequest(headers(''), policy)?.code).toBe('mcp_unauthorized');
    }
  });

  it('refuses a secret that is the page token or too short', async () => {
    await expect(createHost({ token: SECRET, mcp: { secret: SECRET } })).rejects.toThrow(/own/);
    await expect(createHost({ mcp: { secret: 'short' } })).rejects.toThrow(/16/);
  });
});
