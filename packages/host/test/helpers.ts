/**
 * A page stand-in for host tests: a real `ws` client in Node that sends `session.open` and
 * answers with @toolwire/protocol's page-side bridge, recording every frame the host sends.
 */

import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { connect, createServer as createNetServer } from 'node:net';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import type {
  BridgeTool,
  BridgeToolDefinition,
  Guard,
  GuardPreset,
  GuardReport,
  ToolPolicy,
} from '@toolwire/protocol';
import {
  catalogChanged,
  createNonce,
  createToolBridge,
  credentialSecret,
  hostProof,
  pageProof,
  readSessionCancel,
  secretId,
  sessionOpen,
  sessionProgress,
} from '@toolwire/protocol';
import { createAjvProvider } from '@toolwire/protocol/ajv';
import { WebSocket } from 'ws';
import { until } from '../../../test-support/wait.js';
import type { Host, McpBridge, McpToolSource } from '../src/index.js';
import { createMcpBridge } from '../src/index.js';
import { nodeHmac } from '../src/internal.js';
import { createMcpHttp, type McpHttp } from '../src/mcp/http.js';
import { attachMcpWire, type McpWire } from '../src/mcp/http-wire.js';

/** What a paired page dials with (docs/wire.md "The handshake"), and what it proves with. */
export type PageSecret =
  | { code: string }
  | { credential: string }
  | { token: string }
  /** A delegate of an extension's credential: `of` its id, `secret` the derived key. */
  | { delegate: { of: string; secret: string } };

export interface Handshake {
  /** The secret the proofs are keyed by. */
  key: string;
  /** This socket's nonce. */
  nonce: string;
  /** The port the page dialed. */
  port: number | string;
  /** A pairing code's socket: the page derives its credential from the welcome. */
  code?: boolean;
}

/**
 * The address a page dials with `secret`, named by its id (the token itself), and a fresh nonce;
 * and the handshake FakePage then runs. `base` is the host's ws:// address without a secret.
 */
export function handshakeUrl(
  base: string,
  secret: PageSecret,
): { url: string; handshake: Handshake } {
  const url = new URL(base);
  const nonce = createNonce();
  let key: string;
  if ('code' in secret) {
    key = secret.code;
    url.searchParams.set('pair-id', secretId(nodeHmac, key));
  } else if ('credential' in secret) {
    key = secret.credential;
    url.searchParams.set('credential-id', secretId(nodeHmac, key));
  } else if ('delegate' in secret) {
    key = secret.delegate.secret;
    url.searchParams.set('delegate-of', secret.delegate.of);
  } else {
    key = secret.token;
    url.searchParams.set('token', key);
  }
  url.searchParams.set('nonce', nonce);
  return {
    url: url.toString(),
    handshake: { key, nonce, port: url.port, ...('code' in secret ? { code: true } : {}) },
  };
}

export function tool(
  id: string,
  execute: BridgeTool['execute'] = (args) => args,
  overrides: Partial<BridgeToolDefinition> = {},
  availability?: BridgeTool['availability'],
): BridgeTool {
  return {
    definition: {
      id,
      name: id,
      description: `The ${id} tool.`,
      category: id.split('.')[0] ?? 'general',
      policy: 'read',
      argumentsSchema: { type: 'object' },
      resultSchema: {},
      ...overrides,
    },
    execute,
    ...(availability ? { availability } : {}),
  };
}

export interface FakePageOptions {
  tools?: BridgeTool[];
  guard?: GuardPreset | Guard;
  origin?: string;
  /** The page's session key in session.open (default: random per page). */
  key?: string;
  /** The tab session.open names (default: `origin`, http://fake.test/, "Fake"). */
  tab?: { origin?: string; url?: string; title?: string };
  /** Send session.open (default true). */
  open?: boolean;
  /** Report the guard and the tools it hides in session.open, as the endpoint does. */
  reportGuard?: boolean;
  /** Check every call against the grant the host's session.welcome names, as the endpoint does. */
  applyGrant?: boolean;
  /**
   * Sees each request before the bridge: return a response envelope to send instead, `'hold'`
   * to never answer, or undefined to let the bridge answer.
   */
  intercept?: (message: any) => object | 'hold' | undefined;
  /**
   * Run the handshake as the endpoint does: session.open waits for the welcome, whose proof is
   * checked (`hostProven`), and carries the page's proof (`proof` replaces it, for tests that
   * lie).
   */
  handshake?: Handshake & { proof?: (welcome: any) => string | undefined };
}

export class FakePage {
  tools: BridgeTool[];
  /** Every frame the host sent, parsed. */
  received: any[] = [];
  readonly key: string;
  readonly socket: WebSocket;
  readonly bridge;
  readonly closed: Promise<{ code: number; reason: string }>;
  /** The host's welcome proof checked out (a handshake page). */
  hostProven = false;
  /** A pairing code's socket: the credential's secret derived from the welcome. */
  credential: string | undefined;
  #options: FakePageOptions;
  /** The grant of the host's session.welcome (applyGrant). */
  #grant: ToolPolicy | undefined;
  /** Who waits for the next frame of a type (`next`). */
  #waiting: { type: string; resolve: (message: any) => void }[] = [];
  /** This page's requests, to its bridge: progress goes straight out (no pacing, unlike a real page). */
  #scope = {
    onProgress: (requestId: string, progress: number, total?: number, message?: string) =>
      this.send(
        sessionProgress({
          requestId,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        }),
      ),
  };

  private constructor(
    socket: WebSocket,
    options: FakePageOptions,
    early: { frames: string[]; listener: (data: unknown) => void },
  ) {
    this.socket = socket;
    this.#options = options;
    this.tools = options.tools ?? [];
    this.key = options.key ?? `page-${Math.random().toString(36).slice(2)}`;
    this.bridge = createToolBridge({
      validator: createAjvProvider(),
      tools: () => this.tools,
      guard: options.guard ?? 'full-access',
      ...(options.applyGrant ? { grant: () => this.#grant } : {}),
      onToolError: () => {},
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    socket.off('message', early.listener);
    socket.on('message', (data) => void this.#serve(data.toString()));
    for (const frame of early.frames) void this.#serve(frame);
  }

  static async connect(url: string, options: FakePageOptions = {}): Promise<FakePage> {
    const socket = new WebSocket(url, options.origin ? { origin: options.origin } : {});
    // The host queries at once: its first frame can arrive in the same read as the handshake,
    // before 'open' has resolved anything, so listen from the start.
    const frames: string[] = [];
    const listener = (data: unknown) => frames.push(String(data));
    socket.on('message', listener);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const page = new FakePage(socket, options, { frames, listener });
    if (options.open !== false && !options.handshake) await page.sendOpen();
    return page;
  }

  /** Connects to `base` with `secret`, running the handshake (see `handshakeUrl`). */
  static async dial(
    base: string,
    secret: PageSecret,
    options: FakePageOptions = {},
  ): Promise<FakePage> {
    const { url, handshake } = handshakeUrl(base, secret);
    return FakePage.connect(url, { ...options, handshake: { ...handshake, ...options.handshake } });
  }

  /**
   * `dial` for an address the way the host prints it (`?pair=CODE`), or a test writes it
   * (`?credential=SECRET`, `?token=TOKEN`): the secret named by its id, and the handshake run.
   */
  static async dialAddress(address: string, options: FakePageOptions = {}): Promise<FakePage> {
    const url = new URL(address);
    const secret: PageSecret | undefined = url.searchParams.has('pair')
      ? { code: url.searchParams.get('pair') as string }
      : url.searchParams.has('credential')
        ? { credential: url.searchParams.get('credential') as string }
        : url.searchParams.has('token')
          ? { token: url.searchParams.get('token') as string }
          : undefined;
    if (!secret) throw new Error(`no secret in ${address}`);
    url.search = '';
    return FakePage.dial(url.toString(), secret, options);
  }

  /** The credential's secret once the host's welcome proved itself (a code's socket). */
  async paired(): Promise<string> {
    return until(() => this.credential, 'the derived credential');
  }

  /** Sends session.open (with `proof` when given). */
  async sendOpen(proof?: string): Promise<void> {
    const options = this.#options;
    this.send(
      sessionOpen({
        sdk: { name: 'fake-page', version: '1.0.0' },
        page: {
          origin: options.origin ?? 'null',
          url: 'http://fake.test/',
          title: 'Fake',
          ...options.tab,
        },
        session: this.key,
        ...(options.reportGuard ? { guard: await this.guardReport() } : {}),
        ...(proof === undefined ? {} : { proof }),
      }),
    );
  }

  /** The welcome: its proof checked, and the page's own in session.open (a handshake page). */
  #answerWelcome(welcome: any): void {
    const handshake = this.#options.handshake;
    if (!handshake || this.#options.open === false) return;
    const hostNonce = welcome.payload?.proof?.nonce;
    const bound = { pageNonce: handshake.nonce, hostNonce, port: handshake.port };
    this.hostProven =
      typeof hostNonce === 'string' &&
      welcome.payload.proof.mac === hostProof(nodeHmac, handshake.key, bound);
    if (this.hostProven && handshake.code) {
      this.credential = credentialSecret(nodeHmac, handshake.key, bound);
    }
    const proof = handshake.proof
      ? handshake.proof(welcome)
      : typeof hostNonce === 'string'
        ? pageProof(nodeHmac, handshake.key, bound)
        : undefined;
    void this.sendOpen(proof);
  }

  /** The guard report the endpoint sends: its guard and the tools it hides. */
  async guardReport(): Promise<GuardReport> {
    const snapshot = await this.bridge.snapshot();
    const preset = typeof this.#options.guard === 'string' ? this.#options.guard : undefined;
    return { ...snapshot.guard, ...(preset ? { preset } : {}), hidden: snapshot.hidden };
  }

  send(message: object): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Replaces the tool set (as a page registering or removing tools would). */
  setTools(tools: BridgeTool[]): void {
    this.tools = tools;
    this.bridge.invalidate();
  }

  /** Pushes `tool.catalog.changed` with the current revisions. */
  async pushChanged(): Promise<void> {
    this.send(catalogChanged(await this.bridge.revisions()));
  }

  /** Frames of one request type received so far. */
  requests(type?: string): any[] {
    return this.received.filter((message) => type === undefined || message.type === type);
  }

  /** Resolves with the next frame of `type` the host sends from now on. */
  next(type: string): Promise<any> {
    return new Promise((resolve) => this.#waiting.push({ type, resolve }));
  }

  close(code = 1000): Promise<{ code: number; reason: string }> {
    this.socket.close(code);
    return this.closed;
  }

  async #serve(frame: string): Promise<void> {
    const message = JSON.parse(frame);
    this.received.push(message);
    const woken = this.#waiting.filter((waiter) => waiter.type === message.type);
    this.#waiting = this.#waiting.filter((waiter) => waiter.type !== message.type);
    for (const waiter of woken) waiter.resolve(message);
    if (message.type === 'session.welcome') {
      this.#grant = message.payload?.maxToolPolicy;
      this.#answerWelcome(message);
    }
    const intercepted = this.#options.intercept?.(message);
    if (intercepted === 'hold') return;
    const cancel = readSessionCancel(message);
    if (cancel) {
      this.bridge.cancel(cancel.requestId, this.#scope, cancel.reason);
      return;
    }
    const answer = intercepted
      ? JSON.stringify(intercepted)
      : (await this.bridge.handle(message, this.#scope))?.frame;
    if (answer === undefined || this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(answer);
  }
}

/** A tool.error response to `request`, as a page would send it. */
export function errorResponse(request: any, code: string, message = code): object {
  return {
    type: 'tool.error',
    id: `${request.id}.response`,
    replyTo: request.id,
    sessionId: request.sessionId,
    sentAt: new Date().toISOString(),
    capability: 'tool.exec',
    payload: { code, message, retryable: false, details: null },
  };
}

/**
 * An MCP client over in-memory stdio against `createMcpBridge(host)` (a Host, or any tool
 * source): `rpc` sends a request and resolves with its response, `notify` sends a
 * notification, `messages` holds all the bridge wrote (responses and notifications), `input`
 * takes raw lines. The caller closes the bridge.
 */
export async function mcpOverMemory(host: Host | McpToolSource): Promise<{
  bridge: McpBridge;
  input: PassThrough;
  messages: any[];
  rpc(method: string, params?: object): Promise<any>;
  notify(method: string, params?: object): void;
}> {
  const input = new PassThrough();
  const output = new PassThrough();
  const bridge = createMcpBridge(host, { input, output });
  await bridge.ready;
  const messages: any[] = [];
  createInterface({ input: output }).on('line', (line) => messages.push(JSON.parse(line)));
  let nextId = 1;
  const rpc = async (method: string, params?: object): Promise<any> => {
    const id = nextId++;
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    await until(() => messages.some((m) => m.id === id));
    return messages.find((m) => m.id === id);
  };
  const notify = (method: string, params?: object) => {
    input.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  };
  return { bridge, input, messages, rpc, notify };
}

/**
 * A TCP relay to 127.0.0.1:`port` (not yet listening): each client is piped to an upstream of
 * its own, and either side's end ends both. `onClient` sees each client as it arrives;
 * `sockets` holds both ends of every connection, so a test can cut them.
 */
export function tcpRelay(
  /** Where it forwards; a function is read at each connection (the target may start later). */
  port: number | (() => number),
  onClient: (client: Socket) => void = () => {},
): { server: NetServer; sockets: Set<Socket> } {
  const sockets = new Set<Socket>();
  const server = createNetServer((client) => {
    onClient(client);
    const upstream = connect(typeof port === 'function' ? port() : port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  return { server, sockets };
}

/** What `mcpRequest` read: the status, the headers (parsed and as sent, in order) and the body. */
export interface McpHttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  rawHeaders: string[];
  body: string;
}

/**
 * One request to `/mcp` on `port` with exactly these headers (Host included), through
 * node:http, read to its end. `parts`: the body written in pieces, each after the one before
 * left for the socket (chunked unless the headers give a Content-Length). `onData` hears the
 * body so far on each chunk.
 */
export function mcpRequest(
  port: number,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    parts?: readonly string[];
    onData?: (body: string) => void;
  },
): Promise<McpHttpAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: options.method ?? 'POST',
        agent: false,
        setHost: false,
        headers: options.headers ?? {},
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
          options.onData?.(body);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            rawHeaders: response.rawHeaders,
            body,
          }),
        );
      },
    );
    request.on('error', reject);
    const parts = [...(options.parts ?? [])];
    const next = (): void => {
      const part = parts.shift();
      if (part === undefined) request.end(options.body);
      else request.write(part, next);
    };
    next();
  });
}

/** `/mcp` of a host on a node:http server of its own (serveMcp). */
export interface McpEndpoint {
  port: number;
  mcp: McpHttp;
  server: Server;
  /** The socket reader (http-wire.ts), when asked for. */
  wire: McpWire | undefined;
}

/**
 * `/mcp` of `host` on a node:http server of its own on 127.0.0.1 (port 0): node:http alone,
 * or with the host's socket reader attached (`wire`). Its closing goes on `cleanups`.
 */
export async function serveMcp(
  host: Host,
  cleanups: (() => unknown)[],
  options: {
    secret: string;
    fastPath?: boolean;
    wire?: boolean;
    keepAliveMs?: number;
    maxBodyBytes?: number;
    log?: (line: string) => void;
  },
): Promise<McpEndpoint> {
  let port = 0;
  const maxBodyBytes = options.maxBodyBytes ?? 1 << 20;
  const mcp = await createMcpHttp(host, {
    secret: options.secret,
    port: () => port,
    maxBodyBytes,
    ...(options.fastPath === undefined ? {} : { fastPath: options.fastPath }),
    ...(options.log ? { log: options.log } : {}),
  });
  const server = createHttpServer((request, response) => mcp.handle(request, response));
  if (options.keepAliveMs !== undefined) server.keepAliveTimeout = options.keepAliveMs;
  const wire = options.wire
    ? attachMcpWire(server, {
        take: (headers, body, sink) => mcp.take(headers, body, sink),
        maxBodyBytes,
      })
    : undefined;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
  cleanups.push(
    () => new Promise<void>((resolve) => server.close(() => resolve())),
    () => server.closeAllConnections(),
    () => wire?.close(),
    () => mcp.close(),
  );
  return { port, mcp, server, wire };
}
