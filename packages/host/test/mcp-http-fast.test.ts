import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import { createHost } from '../src/index.js';
import { FakePage, type McpEndpoint, mcpRequest, serveMcp, tool } from './helpers.js';

// The /mcp fast path (src/mcp/http-fast.ts) against the SDK's transport: one real host and
// page socket (FakePage), two /mcp endpoints over it on real node:http servers, one with the
// fast path and one without, asked the same requests by raw node:http clients. What each
// answers is compared as a client reads it: status, header names and values in order (the
// session id and Date aside), and the body. The message framing (Content-Length or chunked)
// is left out: the SDK's own follows the timing (an answer there at once gets a length).

const ORIGIN = 'http://localhost:5402';
const SECRET = 'mcp-secret-for-the-fast-path-tests-0123456789';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Endpoint = McpEndpoint;

/** The page: an echo, a tool that reports progress and waits for `release`, and a slow one. */
async function setUp() {
  const host = await createHost({ origins: [ORIGIN] });
  cleanups.push(() => host.close());
  let gate = latch();
  const stops: unknown[] = [];
  const started: string[] = [];
  let page: FakePage | undefined;
  page = await FakePage.connect(host.url, {
    origin: ORIGIN,
    tools: [
      tool('demo.echo', (args) => args),
      tool('demo.steps', () => gate.wait.then(() => 'stepped')),
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
    intercept: (message) => {
      if (message.type !== 'tool.call' || message.payload?.toolId !== 'demo.steps') return;
      if (message.payload.progress !== true) return;
      for (const progress of [1, 2]) {
        page?.send({
          type: 'session.progress',
          id: `progress-${progress}-${Math.random()}`,
          sentAt: new Date().toISOString(),
          payload: { requestId: message.id, progress, total: 2, message: `step ${progress}` },
        });
      }
      return undefined;
    },
  });
  cleanups.push(() => page?.socket.terminate());
  await host.waitForSession({ filter: (s) => s.catalog.get('demo.wait') !== undefined });
  const logs: string[] = [];
  const serve = (fastPath: boolean) =>
    serveMcp(host, cleanups, { secret: SECRET, fastPath, log: (line) => logs.push(line) });
  return {
    fast: await serve(true),
    sdk: await serve(false),
    page: page as FakePage,
    stops,
    started,
    logs,
    release() {
      gate.open();
      gate = latch();
    },
  };
}

interface Answer {
  status: number;
  /** Header names as sent and their values, in order, without Date. */
  headers: string[];
  body: string;
  sessionId: string | undefined;
}

interface Asked {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Called with the body so far on each chunk. */
  onData?: (body: string) => void;
}

/** One request with exactly these headers, read to its end. */
async function ask(port: number, options: Asked): Promise<Answer> {
  const answer = await mcpRequest(port, options);
  const headers: string[] = [];
  const raw = answer.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index] as string;
    const lower = name.toLowerCase();
    if (lower === 'date') continue;
    if (lower === 'content-length' || lower === 'transfer-encoding') continue;
    const value = lower === 'mcp-session-id' ? '<session>' : raw[index + 1];
    headers.push(`${name}: ${value}`);
  }
  const id = answer.headers['mcp-session-id'];
  return {
    status: answer.status,
    headers,
    body: answer.body,
    sessionId: typeof id === 'string' ? id : undefined,
  };
}

const headersFor = (port: number, extra: Record<string, string> = {}) => ({
  Host: `127.0.0.1:${port}`,
  Authorization: `Bearer ${SECRET}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  ...extra,
});

/** An initialized session on `endpoint`: the headers its requests carry. */
async function open(endpoint: Endpoint): Promise<Record<string, string>> {
  const initialize = await ask(endpoint.port, {
    headers: headersFor(endpoint.port),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'fast-path-test', version: '0' },
      },
    }),
  });
  expect(initialize.status).toBe(200);
  const headers = headersFor(endpoint.port, {
    'Mcp-Session-Id': initialize.sessionId as string,
    'Mcp-Protocol-Version': '2025-06-18',
  });
  const initialized = await ask(endpoint.port, {
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(initialized.status).toBe(202);
  return headers;
}

const call = (id: number | string, name: string, extra: object = {}) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: { text: 'hi', n: [1, 2] }, ...extra },
  });

/** The same request to both endpoints, each on its own session: both answers. */
async function both(
  setup: Awaited<ReturnType<typeof setUp>>,
  body: string,
  headers: (session: Record<string, string>) => Record<string, string> = (session) => session,
) {
  const fastSession = await open(setup.fast);
  const sdkSession = await open(setup.sdk);
  const fast = await ask(setup.fast.port, { headers: headers(fastSession), body });
  const sdk = await ask(setup.sdk.port, { headers: headers(sdkSession), body });
  return { fast, sdk };
}

describe('the /mcp fast path', () => {
  it('answers a tools/call and a tools/list as the SDK transport does, byte for byte', async () => {
    const setup = await setUp();
    for (const body of [
      call(5, 'demo_echo'),
      call('call-6', 'demo_echo'),
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
      // An unknown tool: the SDK's error answer, on the same stream.
      call(8, 'no_such_tool'),
    ]) {
      const before = setup.fast.mcp.fastAnswers;
      const { fast, sdk } = await both(setup, body);
      expect(setup.fast.mcp.fastAnswers).toBe(before + 1);
      expect(setup.sdk.mcp.fastAnswers).toBe(0);
      expect(fast.status).toBe(200);
      expect(fast.headers).toEqual([
        'cache-control: no-cache, no-transform',
        'connection: keep-alive',
        'content-type: text/event-stream',
        'mcp-session-id: <session>',
        'x-accel-buffering: no',
      ]);
      expect(fast.body).toMatch(/^event: message\ndata: \{.*\}\n\n$/);
      expect(fast).toEqual({ ...sdk, sessionId: fast.sessionId });
    }
  });

  it("sends the request's progress on its POST stream before the answer", async () => {
    const setup = await setUp();
    const body = call(9, 'demo_steps', { _meta: { progressToken: 'steps-token' } });
    const answers: Answer[] = [];
    for (const endpoint of [setup.fast, setup.sdk]) {
      const session = await open(endpoint);
      const before = setup.fast.mcp.fastAnswers;
      answers.push(
        await ask(endpoint.port, {
          headers: session,
          body,
          // The tool answers once both progress reports came down this stream.
          onData: (text) => {
            if (text.split('notifications/progress').length === 3) setup.release();
          },
        }),
      );
      expect(setup.fast.mcp.fastAnswers).toBe(before + (endpoint === setup.fast ? 1 : 0));
    }
    const [fast, sdk] = answers as [Answer, Answer];
    const frames = fast.body.split('\n\n').filter(Boolean);
    expect(frames.map((frame) => JSON.parse(frame.replace(/^event: message\ndata: /, '')))).toEqual(
      [
        {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 'steps-token', progress: 1, total: 2, message: 'step 1' },
        },
        {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 'steps-token', progress: 2, total: 2, message: 'step 2' },
        },
        {
          jsonrpc: '2.0',
          id: 9,
          result: { content: [{ type: 'text', text: 'stepped' }], isError: false },
        },
      ].map((message) => expect.objectContaining(message)),
    );
    expect(fast).toEqual({ ...sdk, sessionId: fast.sessionId });
  });

  it('slow calls get their headers before their answers, several at once and again later', async () => {
    const setup = await setUp();
    const session = await open(setup.fast);
    // The honest road first: a quick call is answered on the fast path.
    const quick = await ask(setup.fast.port, { headers: session, body: call(1, 'demo_echo') });
    expect(quick.body).toContain('"id":1');
    expect(setup.fast.mcp.fastAnswers).toBe(1);
    /** A call whose status is known once its headers came, before its body. */
    const slow = (id: number) => {
      const headers = latch<number>();
      const answer = latch<string>();
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port: setup.fast.port,
          path: '/mcp',
          method: 'POST',
          agent: false,
          setHost: false,
          headers: session,
        },
        (response) => {
          headers.open(response.statusCode ?? 0);
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
          });
          response.on('end', () => answer.open(text));
        },
      );
      request.on('error', (error) => answer.open(`error: ${error.message}`));
      request.end(call(id, 'demo_steps'));
      return { headers: headers.wait, answer: answer.wait };
    };
    // Two at once on one session: both get their headers while the tool still waits.
    const first = slow(2);
    const second = slow(3);
    expect([await first.headers, await second.headers]).toEqual([200, 200]);
    setup.release();
    /** The one frame of an answer, parsed. */
    const only = (text: string) => {
      expect(text).toMatch(/^event: message\ndata: \{.*\}\n\n$/);
      return JSON.parse(text.replace(/^event: message\ndata: /, ''));
    };
    const stepped = (id: number) => ({
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: 'stepped' }], isError: false },
    });
    expect(only(await first.answer)).toEqual(stepped(2));
    expect(only(await second.answer)).toEqual(stepped(3));
    // Another after the session's timer fired: it gets its headers too.
    const third = slow(4);
    expect(await third.headers).toBe(200);
    setup.release();
    expect(only(await third.answer)).toEqual(stepped(4));
    expect(setup.fast.mcp.fastAnswers).toBe(4);
  });

  it('a client dropping a fast-path stream cancels the call at the page', async () => {
    const setup = await setUp();
    const session = await open(setup.fast);
    // The honest road first: a call on the fast path is answered.
    const answered = await ask(setup.fast.port, { headers: session, body: call(1, 'demo_echo') });
    expect(answered.body).toContain('"id":1');
    expect(setup.fast.mcp.fastAnswers).toBe(1);
    // Now a long call, dropped once its headers came.
    const request = httpRequest({
      host: '127.0.0.1',
      port: setup.fast.port,
      path: '/mcp',
      method: 'POST',
      agent: false,
      setHost: false,
      headers: session,
    });
    const status = latch<number>();
    request.on('response', (response) => status.open(response.statusCode ?? 0));
    request.on('error', () => {});
    request.end(call(2, 'demo_wait'));
    expect(await status.wait).toBe(200);
    expect(setup.fast.mcp.fastAnswers).toBe(2);
    await until(() => setup.started.length === 1);
    expect(setup.stops).toEqual([]);
    request.destroy();
    await until(() => setup.stops.length === 1);
    expect(setup.page.requests('session.cancel')).toHaveLength(1);
    // The session goes on: the next call is answered.
    const after = await ask(setup.fast.port, { headers: session, body: call(3, 'demo_echo') });
    expect(after.body).toContain('"id":3');
  });

  it('DELETE with a fast-path call in flight ends its stream and stops the call, quietly', async () => {
    const setup = await setUp();
    const session = await open(setup.fast);
    // The honest road first: a call on the fast path is answered.
    const answered = await ask(setup.fast.port, { headers: session, body: call(1, 'demo_echo') });
    expect(answered.body).toContain('"id":1');
    expect(setup.fast.mcp.fastAnswers).toBe(1);
    const pending = ask(setup.fast.port, { headers: session, body: call(2, 'demo_wait') });
    await until(() => setup.started.length === 1);
    expect(setup.fast.mcp.fastAnswers).toBe(2);
    const ended = await ask(setup.fast.port, { method: 'DELETE', headers: session });
    expect(ended.status).toBe(200);
    // The call's stream ends with no answer, as the SDK ends its own streams.
    const streamed = await pending;
    expect(streamed.status).toBe(200);
    expect(streamed.body).toBe('');
    await until(() => setup.stops.length === 1);
    const gone = await ask(setup.fast.port, { headers: session, body: call(3, 'demo_echo') });
    expect(gone.status).toBe(404);
    expect(setup.logs.filter((line) => !/HTTP session \w+ (opened|ended)/.test(line))).toEqual([]);
  });

  it('leaves every other shape to the SDK, which answers it as it does without the fast path', async () => {
    const setup = await setUp();
    // The honest request first: the fast path takes it and answers as the SDK does.
    const honest = await both(setup, call(1, 'demo_echo'));
    expect(setup.fast.mcp.fastAnswers).toBe(1);
    expect(honest.fast).toEqual({ ...honest.sdk, sessionId: honest.fast.sessionId });
    const cases: [string, string, (session: Record<string, string>) => Record<string, string>][] = [
      [
        'an Accept without text/event-stream',
        call(2, 'demo_echo'),
        (session) => ({ ...session, Accept: 'application/json' }),
      ],
      [
        'a Content-Type that is not JSON',
        call(3, 'demo_echo'),
        (session) => ({ ...session, 'Content-Type': 'text/plain' }),
      ],
      [
        'a protocol version the SDK does not support',
        call(4, 'demo_echo'),
        (session) => ({ ...session, 'Mcp-Protocol-Version': '1999-01-01' }),
      ],
      ['a batch', `[${call(5, 'demo_echo')}]`, (session) => session],
      [
        'a notification',
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }),
        (session) => session,
      ],
      [
        'a response',
        JSON.stringify({ jsonrpc: '2.0', id: 'server-1', result: {} }),
        (session) => session,
      ],
      [
        'a request with a field JSON-RPC does not have',
        JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list', extra: true }),
        (session) => session,
      ],
      [
        'a second initialize',
        JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'again', version: '0' },
          },
        }),
        (session) => session,
      ],
      [
        'an unknown session',
        call(8, 'demo_echo'),
        (session) => ({ ...session, 'Mcp-Session-Id': 'not-a-session' }),
      ],
    ];
    for (const [what, body, headers] of cases) {
      const { fast, sdk } = await both(setup, body, headers);
      expect(setup.fast.mcp.fastAnswers, what).toBe(1);
      expect(fast.status, what).toBe(sdk.status);
      expect(fast, what).toEqual({ ...sdk, sessionId: fast.sessionId });
    }
  });
});
