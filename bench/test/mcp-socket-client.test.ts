import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost } from '../../packages/host/src/index.js';
import { createMcpHttp } from '../../packages/host/src/mcp/http.js';
import { FakePage, tool } from '../../packages/host/test/helpers.js';
import { connectMcpSocket, McpSocketError } from '../lib/mcp-socket-client.js';

// The bench's hand-written HTTP/1.1 client of /mcp: against a real host's /mcp (fast path on
// and off, so both a Content-Length and a chunked answer), and against a small node:http server
// that sends progress before the answer, or an answer with another id.

const ORIGIN = 'http://localhost:5403';
const SECRET = 'mcp-secret-for-the-socket-client-tests-0123456789';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(
    () => new Promise<void>((resolve) => server.close(() => resolve())),
    () => server.closeAllConnections(),
  );
  return (server.address() as AddressInfo).port;
}

/** A host with an echo page and its /mcp on a node:http server: the URL. */
async function hostMcp(fastPath: boolean): Promise<string> {
  const host = await createHost({ origins: [ORIGIN] });
  cleanups.push(() => host.close());
  const page = await FakePage.connect(host.url, {
    origin: ORIGIN,
    tools: [tool('demo.echo', (args) => args)],
  });
  cleanups.push(() => page.socket.terminate());
  await host.waitForSession({ filter: (s) => s.catalog.get('demo.echo') !== undefined });
  let port = 0;
  const mcp = await createMcpHttp(host, {
    secret: SECRET,
    port: () => port,
    maxBodyBytes: 1 << 20,
    fastPath,
    log: () => undefined,
  });
  cleanups.push(() => mcp.close());
  port = await listen(createServer((request, response) => mcp.handle(request, response)));
  return `http://127.0.0.1:${port}/mcp`;
}

const echoOf = (answer: any) => JSON.parse(answer.result.content[0].text);

/**
 * An MCP-shaped server: initialize, the initialized notice, and `tools/call` answered as a
 * chunked SSE stream with a progress frame written first; `answerId` may change the answer's id.
 */
async function sseServer(answerId: (id: number) => unknown): Promise<string> {
  const server = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => {
      const message = JSON.parse(text);
      if (message.method === 'initialize') {
        const body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} });
        response.writeHead(200, {
          'content-type': 'application/json',
          'mcp-session-id': 'session-1',
          'content-length': Buffer.byteLength(body),
        });
        response.end(body);
        return;
      }
      if (message.id === undefined) {
        response.writeHead(202).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })}\n\n`,
      );
      setImmediate(() => {
        const answer = {
          jsonrpc: '2.0',
          id: answerId(message.id),
          result: { echoed: 'é'.repeat(5000) },
        };
        response.end(`event: message\ndata: ${JSON.stringify(answer)}\n\n`);
      });
    });
  });
  return `http://127.0.0.1:${await listen(server)}/mcp`;
}

describe('the bench MCP socket client', () => {
  it('calls a tool on a real /mcp, fast path (Content-Length) and SDK transport (chunked)', async () => {
    for (const fastPath of [true, false]) {
      const client = await connectMcpSocket(await hostMcp(fastPath), SECRET);
      cleanups.push(() => client.close());
      const listed = await client.rpc('tools/list', {});
      const name = listed.result.tools
        .map((t: { name: string }) => t.name)
        .find((n: string) => n.includes('echo')) as string;
      expect(name).toBeDefined();
      for (const value of ['first', 'x'.repeat(20_000), 'third']) {
        const answer = await client.rpc('tools/call', { name, arguments: { value } });
        expect(echoOf(answer)).toEqual({ value });
      }
    }
  });

  it('refuses a wrong secret with the status, after the right one works', async () => {
    const url = await hostMcp(true);
    const honest = await connectMcpSocket(url, SECRET);
    cleanups.push(() => honest.close());
    expect((await honest.rpc('tools/list', {})).result.tools.length).toBeGreaterThan(0);
    const refused = await connectMcpSocket(url, `${SECRET}-wrong`).catch((error) => error);
    expect(refused).toBeInstanceOf(McpSocketError);
    expect(refused.code).toBe('mcp_socket_status');
    expect(refused.status).toBe(401);
    expect(refused.body).toContain('mcp_unauthorized');
  });

  it('reads progress before the answer in a chunked SSE body', async () => {
    const client = await connectMcpSocket(await sseServer((id) => id), SECRET);
    cleanups.push(() => client.close());
    for (let round = 0; round < 3; round++) {
      const answer = await client.rpc('tools/call', { name: 'any', arguments: {} });
      expect(answer.result.echoed).toBe('é'.repeat(5000));
      expect(client.before).toEqual([
        {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 1, progress: 1 },
        },
      ]);
    }
  });

  it('fails a call whose answer has another id, after one with the right id', async () => {
    let wrong = false;
    const client = await connectMcpSocket(
      await sseServer((id) => (wrong ? 'someone-else' : id)),
      SECRET,
    );
    cleanups.push(() => client.close());
    expect((await client.rpc('tools/call', { name: 'any', arguments: {} })).result).toBeDefined();
    wrong = true;
    const failed = await client.rpc('tools/call', { name: 'any', arguments: {} }).catch((e) => e);
    expect(failed).toBeInstanceOf(McpSocketError);
    expect(failed.code).toBe('mcp_socket_no_answer');
  });
});
