/**
 * A page stand-in for host tests: a real `ws` client in Node that sends `session.open` and
 * answers with @toolwire/protocol's page-side bridge, recording every frame the host sends.
 */
import type { Server as NetServer, Socket } from 'node:net';
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
  createToolBridge,
  readSessionCancel,
  sessionOpen,
  sessionProgress,
} from '@toolwire/protocol';
import { createAjvProvider } from '@toolwire/protocol/ajv';
import { WebSocket } from 'ws';
import { until } from '../../../test-support/wait.js';
import type { Host, McpBridge, McpToolSource } from '../src/index.js';
import { createMcpBridge } from '../src/index.js';

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
}

export class FakePage {
  tools: BridgeTool[];
  /** Every frame the host sent, parsed. */
  received: any[] = [];
  readonly key: string;
  readonly socket: WebSocket;
  readonly bridge;
  readonly closed: Promise<{ code: number; reason: string }>;
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
    if (options.open !== false) {
      page.send(
        sessionOpen({
          sdk: { name: 'fake-page', version: '1.0.0' },
          page: {
            origin: options.origin ?? 'null',
            url: 'http://fake.test/',
            title: 'Fake',
            ...options.tab,
          },
          session: page.key,
          ...(options.reportGuard ? { guard: await page.guardReport() } : {}),
        }),
      );
    }
    return page;
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
    if (message.type === 'session.welcome') this.#grant = message.payload?.maxToolPolicy;
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
  port: number,
  onClient: (client: Socket) => void = () => {},
): { server: NetServer; sockets: Set<Socket> } {
  const sockets = new Set<Socket>();
  const server = createNetServer((client) => {
    onClient(client);
    const upstream = connect(port, '127.0.0.1');
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
