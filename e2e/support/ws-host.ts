/**
 * A minimal real host for endpoint tests: a `ws` server on 127.0.0.1 whose every connection
 * gets a @toolwire/protocol client. (The full host, with tokens and grants, is issue 7's.) It
 * sends no welcome by itself, as other hosts of the protocol; `welcome` sends one, proven for
 * the socket's nonce when the page named one of `secrets` (docs/wire.md "The handshake").
 */
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { expect } from '@playwright/test';
import { WebSocket, WebSocketServer } from 'ws';
import type {
  SessionWelcomePayload,
  ToolClient,
  Transport,
} from '../../packages/protocol/src/index.js';
import {
  createNonce,
  createToolClient,
  hostProof,
  secretId,
  sessionWelcome,
} from '../../packages/protocol/src/index.js';

const nodeHmac = (key: string, message: string): Uint8Array =>
  createHmac('sha256', key).update(message).digest();

export interface HostConnection {
  /** The address the page dialed (path and query). */
  url: URL;
  /** Sends `session.welcome`, with the proof when the page dialed with a nonce and a known secret. */
  welcome(payload?: Partial<SessionWelcomePayload>): void;
  socket: WebSocket;
  client: ToolClient;
  /** Frames the client did not correlate: session.open, tool.catalog.changed, anything else. */
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
}

function transportOf(socket: WebSocket): Transport {
  const transport: Transport = {
    send: (frame) => socket.send(frame),
    close: () => socket.close(1000),
  };
  socket.on('message', (data, isBinary) => {
    if (!isBinary) transport.onmessage?.(data.toString());
  });
  socket.on('close', (code, reason) => transport.onclose?.({ code, reason: reason.toString() }));
  return transport;
}

export class TestHost {
  server: WebSocketServer | undefined;
  port = 0;
  connections: HostConnection[] = [];
  /** Pairing codes and tokens a page may name (`?pair-id=`, `?token=`). */
  secrets: string[] = [];
  #waiters: ((connection: HostConnection) => void)[] = [];

  async start(port = 0): Promise<this> {
    const server = new WebSocketServer({ host: '127.0.0.1', port, maxPayload: 64 * 1024 * 1024 });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', () => resolve());
      server.once('error', reject);
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    server.on('connection', (socket, request) => {
      const url = new URL(request.url ?? '/', 'ws://127.0.0.1');
      const messages: any[] = [];
      const closed = new Promise<{ code: number; reason: string }>((resolve) =>
        socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
      );
      const client = createToolClient(transportOf(socket), {
        sessionId: `s-${this.connections.length + 1}`,
        onMessage: (message) => messages.push(message),
      });
      const welcome = (payload: Partial<SessionWelcomePayload> = {}) => {
        const key = this.#keyOf(url);
        const nonce = url.searchParams.get('nonce');
        const hostNonce = createNonce();
        const bound = { pageNonce: nonce ?? '', hostNonce, port: this.port };
        socket.send(
          JSON.stringify(
            sessionWelcome({
              sessionId: `s-${this.connections.length}`,
              hostRun: 'test-host',
              maxToolPolicy: 'critical',
              heartbeatIntervalMs: 0,
              ...(key !== undefined && nonce
                ? { proof: { nonce: hostNonce, mac: hostProof(nodeHmac, key, bound) } }
                : {}),
              ...payload,
            }),
          ),
        );
      };
      const connection = { url, welcome, socket, client, messages, closed };
      this.connections.push(connection);
      for (const waiter of this.#waiters.splice(0)) waiter(connection);
    });
    return this;
  }

  /** The secret the page named in `url`, if this host knows it. */
  #keyOf(url: URL): string | undefined {
    const token = url.searchParams.get('token');
    if (token !== null) return this.secrets.includes(token) ? token : undefined;
    const id = url.searchParams.get('pair-id');
    return this.secrets.find((secret) => secretId(nodeHmac, secret) === id);
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/toolwire`;
  }

  /** The next connection (or the latest one, if it already came). */
  nextConnection(after = this.connections.length): Promise<HostConnection> {
    const existing = this.connections[after];
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const client of server.clients) client.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Waits until `messages` holds one matching `predicate` (the bound is generous, never tested). */
export async function waitForMessage(
  messages: any[],
  predicate: (message: any) => boolean,
  timeoutMs = 15_000,
): Promise<any> {
  await expect
    .poll(() => messages.some(predicate), {
      timeout: timeoutMs,
      message: 'waiting for a host-side message',
    })
    .toBe(true);
  return messages.find(predicate);
}

export { WebSocket };
