/**
 * The control API's persistent connections (issue 16 part 1). Plain requests are kept alive:
 * the client reuses one socket, the server checks the secret on every request of a connection
 * (a hostile peer on a socket that already carried an honest request gets nothing), and a
 * connection cut mid-call fails that call at once with a coded error. The channel
 * (`mcp --attach`): many requests in flight on one WebSocket, the same checks at its upgrade,
 * a cut failing what is in flight, plain requests to a host without it. Each hostile case follows the honest path on the same
 * kind of socket, so it cannot pass because nothing was sent.
 */

import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect, createServer as createNetServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { until } from '../../../test-support/wait.js';
import type { HostOptions } from '../src/index.js';
import { createHost } from '../src/index.js';
import {
  controlChannel,
  controlRequest,
  controlToolSource,
  startControlServer,
} from '../src/internal.js';
import type { McpSourceTool } from '../src/mcp/source.js';
import { cli } from './cli-helpers.js';
import { FakePage, tcpRelay, tool } from './helpers.js';

const cleanup: (() => unknown)[] = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A host with one echo page and its control API. */
async function controlledHost(options: HostOptions = {}) {
  const host = await createHost({ origins: ['*'], ...options });
  cleanup.push(() => host.close());
  const control = await startControlServer(host);
  cleanup.push(() => control.close());
  const page = await FakePage.connect(host.url, { tools: [tool('demo.echo')] });
  cleanup.push(() => page.socket.terminate());
  await host.waitForSession({ filter: (s) => s.catalog.get('demo.echo') !== undefined });
  return { host, control, target: { url: control.url, token: control.token } };
}

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** One raw TCP connection to send HTTP/1.1 requests on in turn, and read each answer. */
async function rawConnection(url: string) {
  const { port } = new URL(url);
  const socket: Socket = connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  cleanup.push(() => socket.destroy());
  let buffer = '';
  let wake: (() => void) | undefined;
  let ended = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    wake?.();
  });
  socket.on('close', () => {
    ended = true;
    wake?.();
  });
  const answer = async (): Promise<RawAnswer> => {
    for (;;) {
      const split = buffer.indexOf('\r\n\r\n');
      if (split >= 0) {
        const headers = buffer.slice(0, split);
        const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? 0);
        if (buffer.length >= split + 4 + length) {
          const body = buffer.slice(split + 4, split + 4 + length);
          buffer = buffer.slice(split + 4 + length);
          return { status: Number(headers.split(' ')[1]), headers, body };
        }
      }
      if (ended) throw new Error(`the connection closed; had: ${JSON.stringify(buffer)}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  };
  return {
    /** Sends GET /v1/sessions with these headers (no Authorization unless given). */
    async get(headers: string[] = []): Promise<RawAnswer> {
      socket.write(
        ['GET /v1/sessions HTTP/1.1', `Host: 127.0.0.1:${port}`, ...headers, '', ''].join('\r\n'),
      );
      return answer();
    },
    /** Resolves once the server has closed the connection. */
    closed: () =>
      new Promise<void>((resolve) => (ended ? resolve() : socket.once('close', () => resolve()))),
    get ended() {
      return ended;
    },
  };
}

describe('the control API over kept-alive connections', () => {
  it('keeps a connection alive across requests, and checks the secret on each', async () => {
    const { target } = await controlledHost();
    const bearer = `Authorization: Bearer ${target.token}`;

    // The honest path: two answers on one connection, which stays open.
    const raw = await rawConnection(target.url);
    const first = await raw.get([bearer]);
    expect(first.status).toBe(200);
    expect(first.headers).toMatch(/keep-alive: timeout=30/i);
    expect(JSON.parse(first.body)).toMatchObject({ ok: true, sessions: [{}] });
    expect((await raw.get([bearer])).status).toBe(200);
    expect(raw.ended).toBe(false);

    // No secret on that same, already trusted connection: refused, and the connection ends.
    const bare = await raw.get();
    expect(bare.status).toBe(401);
    expect(JSON.parse(bare.body)).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    expect(bare.headers).toMatch(/connection: close/i);
    await raw.closed();

    // A wrong secret (header or query) after an honest request: refused the same way.
    for (const wrong of ['Authorization: Bearer wrong-secret-0123456789', 'X-Nothing: 1']) {
      const again = await rawConnection(target.url);
      expect((await again.get([bearer])).status).toBe(200);
      const refused = await again.get([wrong]);
      expect(refused.status).toBe(401);
      await again.closed();
    }
    // A web page's request on a trusted connection: 403, and closed too.
    const page = await rawConnection(target.url);
    expect((await page.get([bearer])).status).toBe(200);
    expect((await page.get([bearer, 'Origin: http://evil.example'])).status).toBe(403);
    await page.closed();
  });

  it('the client reuses one connection for requests in turn', async () => {
    const { target } = await controlledHost();
    const proxy = await countingProxy(target.url);
    for (let n = 0; n < 20; n++) {
      const answer = await controlRequest(proxy.target(target.token), '/v1/call', {
        toolId: 'demo.echo',
        arguments: { n },
      });
      expect(answer).toMatchObject({ ok: true, result: { result: { n } } });
    }
    expect((await cli(['sessions', '--json'], proxy.env(target.token))).code).toBe(0);
    expect(proxy.connections()).toBe(1);
  });

  it('a kept-alive connection cut mid-call fails the call at once: tool_transport_closed', async () => {
    const { host, target } = await controlledHost();
    const slow = await FakePage.connect(host.url, {
      tools: [tool('slow.tool')],
      intercept: (message) => (message.type === 'tool.call' ? 'hold' : undefined),
    });
    cleanup.push(() => slow.socket.terminate());
    const session = await host.waitForSession({
      filter: (s) => s.catalog.get('slow.tool') !== undefined,
    });
    const proxy = await countingProxy(target.url);
    const at = proxy.target(target.token);
    // The honest path first, on the connection the call will reuse.
    const [first] = host.sessions.filter((s) => s !== session);
    expect(
      await controlRequest(at, '/v1/call', { session: first?.id, toolId: 'demo.echo' }),
    ).toMatchObject({ ok: true });
    const call = controlRequest(at, '/v1/call', { session: session.id, toolId: 'slow.tool' });
    const outcome = call.then(
      () => 'answered',
      (error) => error,
    );
    await until(() => slow.received.some((frame) => frame.type === 'tool.call'));
    proxy.cut();
    // The page holds the call and the client sets no timer: only the cut can end it.
    const error = await outcome;
    expect(error).toMatchObject({ code: 'tool_transport_closed', retryable: false });
    expect(error.message).toMatch(/outcome is unknown/);
    expect(proxy.connections()).toBe(1); // it was the kept-alive socket that broke
  });

  it('a stale kept-alive socket: a listing is resent once on a fresh one, a call never', async () => {
    // A "host" that answers the first request of each connection and cuts at the second.
    const seen: string[] = [];
    const server = createNetServer((socket) => {
      let requests = 0;
      socket.on('data', (chunk) => {
        const line = chunk.toString().split('\r\n')[0] as string;
        seen.push(line);
        if (++requests > 1) {
          socket.destroy();
          return;
        }
        const body = JSON.stringify({ ok: true, sessions: [], result: { result: {} } });
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=30\r\n\r\n${body}`,
        );
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise((resolve) => server.close(resolve)));
    const at = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 'x' };

    expect(await controlRequest(at, '/v1/sessions')).toMatchObject({ ok: true });
    expect(await controlRequest(at, '/v1/sessions')).toMatchObject({ ok: true }); // resent
    expect(seen.filter((line) => line.startsWith('GET'))).toHaveLength(3);
    // The resend went on a connection of its own; the next listing pools one again.
    expect(await controlRequest(at, '/v1/sessions')).toMatchObject({ ok: true });
    await expect(controlRequest(at, '/v1/call', { toolId: 'demo.echo' })).rejects.toMatchObject({
      code: 'tool_transport_closed',
      retryable: false,
    });
    expect(seen.filter((line) => line.startsWith('POST'))).toHaveLength(1); // sent once
  });
});

describe('the control channel (mcp --attach)', () => {
  it('carries requests in flight together over one connection', async () => {
    const { target } = await controlledHost();
    const proxy = await countingProxy(target.url);
    const channel = controlChannel(proxy.target(target.token));
    cleanup.push(() => channel.close());
    const answers = await Promise.all(
      Array.from({ length: 64 }, (_, n) =>
        channel.request('/v1/call', { toolId: 'demo.echo', arguments: { n } }),
      ),
    );
    answers.forEach((answer, n) => {
      expect(answer).toMatchObject({ ok: true, result: { result: { n } } });
    });
    // The API's own refusals come back as they do over HTTP.
    await expect(channel.request('/v1/call', { toolId: '' })).rejects.toMatchObject({
      kind: 'refused',
      status: 400,
    });
    expect(proxy.connections()).toBe(1);
  });

  it('refuses an upgrade without the secret, with a wrong one, or from a page', async () => {
    const { target } = await controlledHost();
    const upgrade = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(`${target.url.replace('http', 'ws')}/v1/channel`, {
          headers,
        });
        socket.once('open', () => {
          socket.close();
          resolve(101);
        });
        socket.once('unexpected-response', (_, response) => resolve(response.statusCode ?? 0));
        socket.once('error', reject);
      });
    const bearer = { Authorization: `Bearer ${target.token}` };
    expect(await upgrade(bearer)).toBe(101); // the honest path
    expect(await upgrade({})).toBe(401);
    expect(await upgrade({ Authorization: 'Bearer wrong-secret-0123456789' })).toBe(401);
    expect(await upgrade({ ...bearer, Origin: 'http://evil.example' })).toBe(403);
    // A message that is not a control request closes the channel.
    const socket = new WebSocket(`${target.url.replace('http', 'ws')}/v1/channel`, {
      headers: bearer,
    });
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send('{"type":"tool.call"}');
    expect(await new Promise((resolve) => socket.once('close', resolve))).toBe(1008);
  });

  it('a channel cut mid-call fails the call at once (tool_transport_closed), then reopens', async () => {
    const { host, target } = await controlledHost({ maxToolPolicy: 'write' });
    const slow = await FakePage.connect(host.url, {
      tools: [tool('slow.write', undefined, { policy: 'write' }), tool('slow.read')],
      intercept: (message) => (message.type === 'tool.call' ? 'hold' : undefined),
    });
    cleanup.push(() => slow.socket.terminate());
    const session = await host.waitForSession({
      filter: (s) => s.catalog.get('slow.read') !== undefined,
    });
    const proxy = await countingProxy(target.url);
    const source = controlToolSource(proxy.target(target.token));
    cleanup.push(() => source.close?.());
    const entries = await source.tools(true);
    const entry = (id: string) => entries.find((one) => one.tool.id === id) as McpSourceTool;
    expect(entry('slow.write') && entry('slow.read') && entry('demo.echo')).toBeTruthy();
    expect(
      await source.call(entry('demo.echo'), { a: 1 }, new AbortController().signal),
    ).toMatchObject({ result: { a: 1 } });
    const outcome = (id: string) =>
      source.call(entry(id), {}, new AbortController().signal).then(
        () => 'answered',
        (error) => error,
      );
    const outcomes = [outcome('slow.write'), outcome('slow.read')];
    await until(() => slow.received.filter((frame) => frame.type === 'tool.call').length === 2);
    expect(session.isOpen).toBe(true);
    proxy.cut();
    // The page holds the calls and the client sets no timer: only the cut can end them. Both
    // may have run: only the read tool's call may be tried again.
    expect(await outcomes[0]).toMatchObject({ code: 'tool_transport_closed', retryable: false });
    expect(await outcomes[1]).toMatchObject({ code: 'tool_transport_closed', retryable: true });
    // The next request opens a new channel.
    expect(
      await source.call(entry('demo.echo'), { b: 2 }, new AbortController().signal),
    ).toMatchObject({ result: { b: 2 } });
    expect(proxy.connections()).toBe(2);
  });

  it('a host without the channel is asked over plain requests', async () => {
    const server = createHttpServer((_, response) => {
      const body = JSON.stringify({ ok: true, sessions: [] });
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise((resolve) => server.close(resolve)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const channel = controlChannel({ url, token: 'x' });
    cleanup.push(() => channel.close());
    expect(await channel.request('/v1/sessions')).toEqual({ ok: true, sessions: [] });
    expect(await channel.request('/v1/sessions')).toEqual({ ok: true, sessions: [] });
    // Nothing listens: unreachable, as over HTTP.
    const gone = controlChannel({ url: 'http://127.0.0.1:1', token: 'x' });
    await expect(gone.request('/v1/sessions')).rejects.toMatchObject({ kind: 'unreachable' });
  });
});

/** A TCP proxy in front of the control API: counts the connections, and can cut them. */
async function countingProxy(url: string) {
  const { port } = new URL(url);
  let count = 0;
  const { server, sockets } = tcpRelay(Number(port), () => {
    count++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  const proxied = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    target: (token: string) => ({ url: proxied, token }),
    env: (token: string) => ({ TOOLWIRE_HOST: proxied, TOOLWIRE_CONTROL_TOKEN: token }),
    connections: () => count,
    cut() {
      for (const socket of sockets) socket.destroy();
    },
  };
}
