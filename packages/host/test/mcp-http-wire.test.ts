import { createServer } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import { createHost } from '../src/index.js';
import { attachMcpWire } from '../src/mcp/http-wire.js';
import { FakePage, type McpEndpoint, serveMcp, tool } from './helpers.js';

// `/mcp` connections read on their sockets (src/mcp/http-wire.ts), on real sockets: one host
// and page (FakePage), two /mcp endpoints over it on real node:http servers, the same in all
// but one thing: one has the socket reader attached. Raw keep-alive connections ask both the
// same requests; what comes back is compared byte for byte (Date and session id aside). A
// quick answer's framing follows timing on both (Content-Length when it came before the
// fast path's header tick, else chunks): there the decoded body is compared, and the bytes of
// the framing only where timing is held (a call that waits until both sent their headers).

const ORIGIN = 'http://localhost:5403';
const SECRET = 'mcp-secret-for-the-wire-tests-0123456789abcdef';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Endpoint = McpEndpoint;

async function setUp(options: { keepAliveMs?: number } = {}) {
  const host = await createHost({ origins: [ORIGIN] });
  cleanups.push(() => host.close());
  let gate = latch();
  const stops: unknown[] = [];
  const page = await FakePage.connect(host.url, {
    origin: ORIGIN,
    tools: [
      tool('demo.echo', (args) => args),
      tool('demo.gated', () => gate.wait.then(() => 'opened')),
      tool(
        'demo.wait',
        (_, context) =>
          new Promise((resolve, reject) => {
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
  cleanups.push(() => page.socket.terminate());
  await host.waitForSession({ filter: (s) => s.catalog.get('demo.wait') !== undefined });
  const serve = (wire: boolean) =>
    serveMcp(host, cleanups, {
      secret: SECRET,
      wire,
      maxBodyBytes: 64 * 1024,
      ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
    });
  return {
    wire: await serve(true),
    plain: await serve(false),
    page,
    stops,
    open() {
      gate.open();
      gate = latch();
    },
  };
}

/**
 * A raw keep-alive connection: `send` writes bytes as given; `next` resolves with the next
 * whole response as it came (head and body), framed by its Content-Length or chunks.
 */
class Raw {
  readonly socket: Socket;
  #text = '';
  #waiters: ((text: string) => void)[] = [];
  readonly closed = latch();

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('latin1');
    this.socket.on('data', (text: string) => {
      this.#text += text;
      this.#drain();
    });
    this.socket.on('error', () => {});
    this.socket.on('close', () => this.closed.open());
  }

  send(text: string): void {
    this.socket.write(Buffer.from(text, 'utf8'));
  }

  next(): Promise<string> {
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      this.#drain();
    });
  }

  #drain(): void {
    while (this.#waiters.length > 0) {
      const size = responseSize(this.#text);
      if (size === undefined) return;
      const text = this.#text.slice(0, size);
      this.#text = this.#text.slice(size);
      this.#waiters.shift()?.(text);
    }
  }
}

/** The length of the first whole response in `text`, if it is all there. */
function responseSize(text: string): number | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = text.slice(0, end);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) {
    const size = end + 4 + Number(length[1]);
    return text.length >= size ? size : undefined;
  }
  if (!/\r\ntransfer-encoding: *chunked/i.test(head)) return end + 4;
  let at = end + 4;
  for (;;) {
    const line = text.indexOf('\r\n', at);
    if (line < 0) return undefined;
    const chunk = Number.parseInt(text.slice(at, line), 16);
    if (chunk === 0) return text.length >= line + 4 ? line + 4 : undefined;
    at = line + 2 + chunk + 2;
    if (text.length < at) return undefined;
  }
}

/**
 * `response` with its framing taken off (Content-Length or chunks: the body as it decodes),
 * and its Date and session id made comparable.
 */
function unframed(response: string): string {
  const end = response.indexOf('\r\n\r\n');
  const head = response
    .slice(0, end)
    .split('\r\n')
    .filter((line) => !/^(content-length|transfer-encoding):/i.test(line))
    .join('\r\n');
  let body = response.slice(end + 4);
  if (/\r\ntransfer-encoding: *chunked/i.test(response.slice(0, end))) {
    let decoded = '';
    for (let at = 0; ; ) {
      const line = body.indexOf('\r\n', at);
      const size = Number.parseInt(body.slice(at, line), 16);
      if (size === 0) break;
      decoded += body.slice(line + 2, line + 2 + size);
      at = line + 2 + size + 2;
    }
    body = decoded;
  } else {
    expect(Buffer.byteLength(body, 'latin1')).toBe(
      Number(/\r\ncontent-length: *(\d+)/i.exec(response)?.[1]),
    );
  }
  return same(`${head}\r\n\r\n${body}`);
}

/** `response` with its Date and session id made comparable. */
const same = (response: string) =>
  response
    .replace(/\r\nDate: [^\r]*/, '\r\nDate: <date>')
    .replace(/(mcp-session-id: )[0-9a-f-]{36}/gi, '$1<session>');

const headFor = (port: number, extra: Record<string, string> = {}) => ({
  Host: `127.0.0.1:${port}`,
  Authorization: `Bearer ${SECRET}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  ...extra,
});

/** One request's bytes: `POST /mcp` with `headers` and `body` (Content-Length added). */
function post(headers: Record<string, string>, body: string, path = '/mcp'): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `POST ${path} HTTP/1.1\r\n${lines.join('')}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

const call = (id: number | string, name: string, args: object = { text: 'hi', n: [1, 2] }) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'wire-test', version: '0' },
  },
});

/** Initializes a session on `raw`: the headers its requests carry. */
async function open(raw: Raw, port: number): Promise<Record<string, string>> {
  raw.send(post(headFor(port), INITIALIZE));
  const initialize = await raw.next();
  expect(initialize).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  const session = /\r\nmcp-session-id: ([^\r]+)/i.exec(initialize)?.[1] as string;
  const headers = headFor(port, {
    'Mcp-Session-Id': session,
    'Mcp-Protocol-Version': '2025-06-18',
  });
  raw.send(post(headers, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })));
  expect(await raw.next()).toMatch(/^HTTP\/1\.1 202 Accepted\r\n/);
  return headers;
}

/** A raw connection with an initialized session on `endpoint`. */
async function session(endpoint: Endpoint) {
  const raw = new Raw(endpoint.port);
  cleanups.push(() => raw.socket.destroy());
  const headers = await open(raw, endpoint.port);
  return { raw, headers };
}

const frameOf = (response: string) => {
  const data = /\r\n\r\n(?:[0-9a-f]+\r\n)?event: message\ndata: (.*)\n\n/.exec(response)?.[1];
  return data === undefined ? undefined : JSON.parse(data);
};

describe('/mcp connections read on their sockets', () => {
  it('answers hot requests byte for byte as node:http does, on one keep-alive connection', async () => {
    const setup = await setUp();
    const wire = await session(setup.wire);
    const plain = await session(setup.plain);
    // initialize and notifications/initialized went through node:http on the taken connection.
    expect(setup.wire.wire?.relayed).toBe(2);
    expect(setup.wire.wire?.answered).toBe(0);
    for (const body of [
      call(1, 'demo_echo'),
      call('two', 'demo_echo', { text: 'ünïcødé ✓', big: 'x'.repeat(5000) }),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
      call(4, 'no_such_tool'),
    ]) {
      const before = setup.wire.wire?.answered ?? 0;
      wire.raw.send(post(wire.headers, body));
      plain.raw.send(post(plain.headers, body));
      const [fromWire, fromPlain] = [await wire.raw.next(), await plain.raw.next()];
      expect(setup.wire.wire?.answered).toBe(before + 1);
      expect(fromWire).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(unframed(fromWire)).toBe(unframed(fromPlain));
    }
    expect(setup.wire.mcp.fastAnswers).toBe(4);
    expect(setup.wire.wire?.connections).toBe(1);
  });

  it('streams a slow answer in chunks as node:http does, headers first', async () => {
    const setup = await setUp();
    const wire = await session(setup.wire);
    const plain = await session(setup.plain);
    let heads = 0;
    const headers = latch();
    for (const raw of [wire.raw, plain.raw]) {
      raw.socket.on('data', (text: string) => {
        if (text.startsWith('HTTP/1.1 200') && ++heads === 2) headers.open();
      });
    }
    wire.raw.send(post(wire.headers, call(5, 'demo_gated')));
    plain.raw.send(post(plain.headers, call(5, 'demo_gated')));
    // Both get their headers while the tool still waits.
    await headers.wait;
    setup.open();
    const [fromWire, fromPlain] = [await wire.raw.next(), await plain.raw.next()];
    expect(fromWire).toMatch(/\r\nTransfer-Encoding: chunked\r\n\r\n/);
    expect(same(fromWire)).toBe(same(fromPlain));
    expect(frameOf(fromWire)).toMatchObject({ id: 5, result: { content: [{ text: 'opened' }] } });
    expect(setup.wire.wire?.answered).toBe(1);
  });

  it('answers pipelined requests in order, hot or not, on one connection', async () => {
    const setup = await setUp();
    const { raw, headers } = await session(setup.wire);
    const relayed = setup.wire.wire?.relayed ?? 0;
    raw.send(
      post(headers, call(1, 'demo_echo', { n: 1 })) +
        post(
          headers,
          JSON.stringify({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }),
        ) +
        post(headers, call(2, 'demo_echo', { n: 2 })) +
        post(headers, call(3, 'demo_echo', { n: 3 })),
    );
    const answers = [await raw.next(), await raw.next(), await raw.next(), await raw.next()];
    expect(answers.map((answer) => answer.slice(0, 21))).toEqual([
      'HTTP/1.1 200 OK\r\ncach',
      'HTTP/1.1 202 Accepted',
      'HTTP/1.1 200 OK\r\ncach',
      'HTTP/1.1 200 OK\r\ncach',
    ]);
    expect(
      [answers[0], answers[2], answers[3]].map((answer) => frameOf(answer as string).id),
    ).toEqual([1, 2, 3]);
    expect(setup.wire.wire?.answered).toBe(3);
    expect(setup.wire.wire?.relayed).toBe(relayed + 1);
  });

  it('leaves every refusal to node:http: the same status, code and closed connection', async () => {
    const setup = await setUp();
    // The honest road first: the connection is taken and a call answered on it.
    const honest = await session(setup.wire);
    honest.raw.send(post(honest.headers, call(1, 'demo_echo')));
    expect(frameOf(await honest.raw.next())).toMatchObject({ id: 1 });
    expect(setup.wire.wire?.answered).toBe(1);
    const cases: [string, (headers: Record<string, string>) => string, number, string][] = [
      [
        'a wrong secret',
        (headers) =>
          post({ ...headers, Authorization: 'Bearer wrong-secret' }, call(2, 'demo_echo')),
        401,
        'mcp_unauthorized',
      ],
      [
        'a foreign Origin',
        (headers) => post({ ...headers, Origin: 'https://evil.example' }, call(3, 'demo_echo')),
        403,
        'mcp_origin_refused',
      ],
      [
        'a foreign Host',
        (headers) => post({ ...headers, Host: 'evil.example' }, call(4, 'demo_echo')),
        403,
        'mcp_host_refused',
      ],
      [
        'a session this host does not hold',
        (headers) =>
          post(
            { ...headers, 'Mcp-Session-Id': '00000000-0000-4000-8000-000000000000' },
            call(5, 'demo_echo'),
          ),
        404,
        'mcp_session_unknown',
      ],
      [
        'a body that is not JSON',
        (headers) => post(headers, '{"jsonrpc":'),
        400,
        'mcp_parse_error',
      ],
      [
        'a body over the limit',
        (headers) => post(headers, JSON.stringify({ pad: 'x'.repeat(70 * 1024) })),
        413,
        'mcp_body_too_large',
      ],
    ];
    for (const [label, request, status, code] of cases) {
      for (const endpoint of [setup.wire, setup.plain]) {
        const { raw, headers } = await session(endpoint);
        raw.send(request(headers));
        const answer = await raw.next();
        expect(answer.slice(0, 12), label).toBe(`HTTP/1.1 ${status}`);
        expect(answer, label).toContain(`"toolwire/code":"${code}"`);
        await raw.closed.wait;
      }
    }
    expect(setup.page.requests('tool.call')).toHaveLength(1);
    expect(setup.wire.mcp.fastAnswers).toBe(1);
  });

  it('hands framing it does not read to node:http, which answers as it does anywhere', async () => {
    const setup = await setUp();
    const { raw, headers } = await session(setup.wire);
    // A chunked body: node:http reads it, and the call is answered (not on the hot path).
    const body = call(1, 'demo_echo');
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    raw.send(
      `POST /mcp HTTP/1.1\r\n${lines.join('')}Transfer-Encoding: chunked\r\n\r\n` +
        `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(frameOf(await raw.next())).toMatchObject({ id: 1, result: {} });
    expect(setup.wire.wire?.answered).toBe(0);
    // That connection is node:http's for good: the next call is answered there too.
    raw.send(post(headers, call(2, 'demo_echo')));
    expect(frameOf(await raw.next())).toMatchObject({ id: 2 });
    expect(setup.wire.wire?.answered).toBe(0);
    // Both on node:http's own fast path (a ServerResponse), as on any connection of its own.
    expect(setup.wire.mcp.fastAnswers).toBe(2);
    // Smuggling shapes and oversized heads, each on a fresh taken connection: node:http's
    // refusals, and no call reaches the page.
    const calls = setup.page.requests('tool.call').length;
    const hostile: [string, string, string][] = [
      [
        'Content-Length and Transfer-Encoding',
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${setup.wire.port}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        'HTTP/1.1 400',
      ],
      [
        'two Content-Lengths',
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${setup.wire.port}\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}x`,
        'HTTP/1.1 400',
      ],
      [
        'a folded header',
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${setup.wire.port}\r\nX-A: 1\r\n folded\r\nContent-Length: 2\r\n\r\n{}`,
        'HTTP/1.1 400',
      ],
      [
        'a head over 16 KiB',
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${setup.wire.port}\r\nX-Pad: ${'p'.repeat(17 * 1024)}\r\nContent-Length: 2\r\n\r\n{}`,
        'HTTP/1.1 431',
      ],
      [
        'a control character in a value',
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${setup.wire.port}\r\nX-A: a\x01b\r\nContent-Length: 2\r\n\r\n{}`,
        'HTTP/1.1 400',
      ],
    ];
    for (const [label, bytes, status] of hostile) {
      const hostileRaw = new Raw(setup.wire.port);
      cleanups.push(() => hostileRaw.socket.destroy());
      hostileRaw.send(bytes);
      expect((await hostileRaw.next()).slice(0, 12), label).toBe(status);
      await hostileRaw.closed.wait;
    }
    expect(setup.page.requests('tool.call')).toHaveLength(calls);
  });

  it('cancels the call at the page when the client drops a taken connection mid-call', async () => {
    const setup = await setUp();
    const { raw, headers } = await session(setup.wire);
    raw.send(post(headers, call(1, 'demo_echo')));
    expect(frameOf(await raw.next())).toMatchObject({ id: 1 });
    raw.send(post(headers, call(2, 'demo_wait')));
    await until(() => setup.page.requests('tool.call').length === 2);
    expect(setup.stops).toEqual([]);
    raw.socket.destroy();
    await until(() => setup.stops.length === 1);
    expect(setup.page.requests('session.cancel')).toHaveLength(1);
    expect(setup.wire.wire?.connections).toBe(0);
  });

  it('a half-closed client ends its call as node:http ends it; an idle connection is closed', async () => {
    const setup = await setUp({ keepAliveMs: 300 });
    for (const endpoint of [setup.wire, setup.plain]) {
      const { raw, headers } = await session(endpoint);
      raw.send(post(headers, call(1, 'demo_echo')));
      expect(frameOf(await raw.next())).toMatchObject({ id: 1 });
      const calls = setup.page.requests('tool.call').length;
      let after = '';
      raw.socket.on('data', (text: string) => {
        after += text;
      });
      raw.send(post(headers, call(2, 'demo_wait')));
      await until(() => setup.page.requests('tool.call').length === calls + 1);
      raw.socket.end();
      await raw.closed.wait;
      await until(() => setup.stops.length === (endpoint === setup.wire ? 1 : 2));
      // node:http's fast path sent the headers of the waiting call (it waited a tick); the
      // socket path's too; neither sent an answer.
      expect(after).not.toContain('"id":2');
    }
    const idle = await session(setup.wire);
    idle.raw.send(post(idle.headers, call(2, 'demo_echo')));
    expect(frameOf(await idle.raw.next())).toMatchObject({ id: 2 });
    const started = Date.now();
    await idle.raw.closed.wait;
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    // A request split across the idle time is still read (by node:http, from there on).
    const slow = await session(setup.wire);
    const bytes = post(slow.headers, call(3, 'demo_echo'));
    slow.raw.send(bytes.slice(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 450));
    slow.raw.send(bytes.slice(20));
    expect(frameOf(await slow.raw.next())).toMatchObject({ id: 3 });
  });

  it('takes a connection whose first bytes come one at a time; hands on one that is not MCP', async () => {
    const setup = await setUp();
    const raw = new Raw(setup.wire.port);
    cleanups.push(() => raw.socket.destroy());
    const bytes = post(headFor(setup.wire.port), INITIALIZE);
    for (const byte of bytes.slice(0, 12)) {
      raw.send(byte);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    raw.send(bytes.slice(12));
    expect(await raw.next()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(setup.wire.wire?.connections).toBe(1);
    // A GET on a fresh connection is node:http's from its first byte: the SDK answers it.
    const get = new Raw(setup.wire.port);
    cleanups.push(() => get.socket.destroy());
    get.send(
      `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${setup.wire.port}\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${SECRET}\r\n\r\n`,
    );
    const refused = await get.next();
    expect(refused.slice(0, 12)).toBe('HTTP/1.1 400');
    expect(refused).toContain('mcp_session_required');
    expect(setup.wire.wire?.connections).toBe(1);
  });
});

describe('the socket reader on its own', () => {
  it('a request whose answering throws closes its connection and is logged; others go on', async () => {
    const logs: string[] = [];
    let fail = false;
    const server = createServer((_, response) => response.end('node:http'));
    const wire = attachMcpWire(server, {
      take: (_headers, body, sink) => {
        if (fail) throw new Error(`could not answer ${body}`);
        sink.writeHead(200, ['content-length', '2']);
        sink.end('ok');
        return true;
      },
      maxBodyBytes: 1024,
      log: (line) => logs.push(line),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as AddressInfo).port;
    cleanups.push(
      () => new Promise<void>((resolve) => server.close(() => resolve())),
      () => server.closeAllConnections(),
      () => wire?.close(),
    );
    const ask = async (body: string) => {
      const raw = new Raw(port);
      cleanups.push(() => raw.socket.destroy());
      raw.send(post({ Host: `127.0.0.1:${port}` }, body));
      return raw;
    };
    // The honest road first: the request is answered by `take`, on the socket.
    const honest = await ask('{"n":1}');
    expect(same(await honest.next())).toBe(
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nDate: <date>\r\n\r\nok',
    );
    fail = true;
    const failing = await ask('{"n":2}');
    await failing.closed.wait;
    expect(logs).toEqual(['mcp: could not answer {"n":2}']);
    fail = false;
    const after = await ask('{"n":3}');
    expect((await after.next()).endsWith('\r\n\r\nok')).toBe(true);
    expect(wire?.answered).toBe(2);
  });
});

describe('a host serving /mcp', () => {
  it('still takes WebSocket pages on the same port, and reads its MCP connections itself', async () => {
    const host = await createHost({ origins: [ORIGIN], mcp: { secret: SECRET } });
    cleanups.push(() => host.close());
    const page = await FakePage.connect(host.url, {
      origin: ORIGIN,
      tools: [tool('demo.echo', (a) => a)],
    });
    cleanups.push(() => page.socket.terminate());
    await host.waitForSession({ filter: (s) => s.catalog.get('demo.echo') !== undefined });
    const raw = new Raw(host.port);
    cleanups.push(() => raw.socket.destroy());
    const headers = await open(raw, host.port);
    raw.send(post(headers, call(1, 'demo_echo', { via: 'host' })));
    const answer = frameOf(await raw.next());
    expect(JSON.parse(answer.result.content[0].text)).toEqual({ via: 'host' });
    // A second page connecting after MCP traffic is taken as any page is.
    const second = await FakePage.connect(host.url, {
      origin: ORIGIN,
      tools: [tool('demo.two', () => 2)],
    });
    cleanups.push(() => second.socket.terminate());
    await host.waitForSession({ filter: (s) => s.catalog.get('demo.two') !== undefined });
    // A WebSocket upgrade on a taken connection goes to the host's own upgrade check, whole:
    // one without the page token is refused there, and the connection closes.
    const path = new URL(host.url).pathname;
    const upgrade = new Raw(host.port);
    cleanups.push(() => upgrade.socket.destroy());
    await open(upgrade, host.port);
    upgrade.send(
      `GET ${path}?token=wrong HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nOrigin: ${ORIGIN}\r\n` +
        'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    expect((await upgrade.next()).slice(0, 12)).toBe('HTTP/1.1 401');
    await upgrade.closed.wait;
    // A client that connected and sent nothing yet does not hold the host open.
    const silent = new Raw(host.port);
    cleanups.push(() => silent.socket.destroy());
    await new Promise((resolve) => silent.socket.once('connect', resolve));
    const started = Date.now();
    await host.close();
    // Without that close it waited out the test (a hang, not a slow close): a bound a busy
    // machine cannot reach.
    expect(Date.now() - started).toBeLessThan(10_000);
    await raw.closed.wait;
    await silent.closed.wait;
  });
});
