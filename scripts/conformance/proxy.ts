/**
 * A header-adding HTTP proxy for the official MCP conformance suite, whose client cannot send an
 * `Authorization` header: every request for `/mcp` gets `Authorization: Bearer <secret>` and goes
 * on to the host; every other request passes as it is. Everything else is passed through
 * untouched, `Host` and `Origin` included (the suite's DNS-rebinding scenario sends a foreign
 * `Host`, and the host must see it), and bodies stream both ways as they come, so an SSE
 * response reaches the client event by event. The host is told the proxy's port is one that
 * forwards to it (`toolwire host --forwarded-port <port>`), so a loopback `Host` naming the
 * proxy's port is the host's own.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  /** The port the proxy listens on (127.0.0.1). */
  readonly port: number;
  /** `http://127.0.0.1:<port>/mcp`: the URL to give the suite. */
  readonly url: string;
  /** Where requests go: the host's origin (`http://127.0.0.1:45124`); settable after start. */
  target: string | undefined;
  close(): Promise<void>;
}

/** Whether `path` (a request's target) is the MCP endpoint, with or without a query. */
function isMcp(path: string | undefined): boolean {
  return path === '/mcp' || path?.startsWith('/mcp?') === true;
}

/**
 * Starts the proxy on 127.0.0.1 (`port` 0: any free port). `target` may be set later, once the
 * host it fronts has started (it needs the proxy's port first).
 */
export async function startBearerProxy(options: {
  secret: string;
  target?: string;
  port?: number;
}): Promise<BearerProxy> {
  const sockets = new Set<import('node:net').Socket>();
  const proxy: { target: string | undefined } = { target: options.target };
  const server: Server = createServer((req, res) => {
    if (proxy.target === undefined) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('no target yet\n');
      return;
    }
    const target = new URL(proxy.target);
    const headers = { ...req.headers };
    if (isMcp(req.url)) headers.authorization = `Bearer ${options.secret}`;
    const upstream = request(
      {
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        // Headers at once: an SSE stream's first event may be a while coming.
        res.flushHeaders();
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end();
    });
    // The client going away (a cancelled SSE read) closes the host's side too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    get target() {
      return proxy.target;
    },
    set target(value) {
      proxy.target = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
