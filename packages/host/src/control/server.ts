/**
 * The control API's HTTP server: how `toolwire sessions|tools|call|batch` (and `toolwire mcp`
 * attaching to a running host) reach a running `toolwire host`. routes.ts says what each route
 * answers; client.ts is the one client.
 *
 * 1. Plain HTTP + JSON on 127.0.0.1 only, whatever interface the page socket binds.
 * 2. A secret of its own is required (`Authorization: Bearer SECRET` or `?token=`), compared in
 *    constant time: 256 random bits per run, never the page token (`host.token` gets 401), and
 *    never sent to a page. A request with an `Origin` header is refused (browsers send one; the
 *    CLI never does), and so is a `Host` header that is not a loopback name (DNS rebinding):
 *    401/403, before any route runs. The checks run on every request, kept-alive connection or
 *    not, and a refused request closes its connection.
 * 3. `close()` stops accepting, lets in-flight answers go out (a host closing first fails its
 *    pending calls, and those answers must reach the CLI), then cuts what is left after
 *    CLOSE_GRACE_MS.
 * 4. Connections are kept alive between requests (KEEP_ALIVE_MS, announced in `Keep-Alive`, so
 *    the client drops an idle socket before this side does): `mcp --attach` pays a request per
 *    call, not a connection.
 * 5. `GET /v1/channel` upgrades to a WebSocket that carries requests and answers as JSON
 *    messages, many in flight on one connection (channel-server.ts): what `mcp --attach` uses.
 *    The upgrade passes the same checks as a request.
 * 6. `publishControl` also announces the API in the state file (state-file.ts) the CLI reads,
 *    and removes it on close. It never replaces the file of a host whose control API answers
 *    (HostRunningError); a dead host's file is taken over. On close it removes the file only
 *    while the file still names this run.
 * 7. A request whose connection closes before its answer is written aborts its signal: the
 *    call it made is cancelled at the page (routes.ts).
 * 8. A call or batch that asked for progress (`progress: true`) is answered as it always is
 *    until the page reports progress; from the first report the answer is a stream of JSON
 *    lines (`application/x-ndjson`): `{"progress": {progress, total?, message?}}` for each
 *    report, then the answer object as one last line. A client that does not ask gets one JSON
 *    body, as ever.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Host } from '../server/host.js';
import { tokensEqual } from '../shared/token.js';
import { serveChannels } from './channel-server.js';
import { sendControl } from './client.js';
import { ControlError, controlRoutes, errorBody, readBody } from './routes.js';
import type { ControlState } from './state-file.js';
import { claimControlState, controlStatePath, newRunId, removeControlState } from './state-file.js';

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** How long `close()` lets in-flight answers finish before cutting their connections. */
const CLOSE_GRACE_MS = 2000;
/** How long an idle kept-alive connection stays open (Node's default is 5 s). */
const KEEP_ALIVE_MS = 30_000;
/** The content type of a streamed answer. */
const STREAM_CONTENT_TYPE = 'application/x-ndjson; charset=utf-8';

export interface ControlServer {
  readonly url: string;
  readonly port: number;
  /** The secret a request must carry (the state file holds it; a page never sees it). */
  readonly token: string;
  /** Stops accepting, lets in-flight answers out (up to CLOSE_GRACE_MS), then cuts the rest. */
  close(): Promise<void>;
}

export interface ControlServerOptions {
  /** Default 0: any free port (the state file says which). */
  port?: number;
  /** The control secret. Default: 256 random bits for this run. Never the page token. */
  token?: string;
}

/**
 * The control API as `toolwire host` offers it: started, and announced in the state file the
 * CLI reads (`statePath`, default `controlStatePath()`). Its `close()` removes the file first,
 * then stops the API.
 */
export async function publishControl(
  host: Host,
  options: ControlServerOptions & { statePath?: string } = {},
): Promise<ControlServer> {
  const statePath = options.statePath ?? controlStatePath();
  const control = await startControlServer(host, options);
  const runId = newRunId();
  try {
    await claimControlState(
      statePath,
      {
        pid: process.pid,
        controlUrl: control.url,
        port: control.port,
        token: control.token,
        runId,
        address: host.address,
        ...(host.mcpUrl ? { mcpUrl: host.mcpUrl } : {}),
      },
      controlAnswers,
    );
  } catch (error) {
    await control.close();
    throw error;
  }
  return {
    url: control.url,
    port: control.port,
    token: control.token,
    async close() {
      removeControlState(statePath, { runId });
      await control.close();
    },
  };
}

/** How long a state file's control API gets to answer before its host counts as gone. */
const LIVENESS_PROBE_MS = 2000;

/**
 * Whether the host a state file names is alive: its control API answers, with the file's secret.
 * Nothing listening, something else there, or a refusal of that secret: gone. A host that is
 * there but slow counts as alive (its file is not taken from it).
 */
export async function controlAnswers(state: ControlState): Promise<boolean> {
  try {
    await sendControl({ url: state.controlUrl, token: state.token }, '/v1/sessions', undefined, {
      signal: AbortSignal.timeout(LIVENESS_PROBE_MS),
    });
    return true;
  } catch (error) {
    const kind = (error as { kind?: string }).kind;
    const status = (error as { status?: number }).status;
    if (kind === 'unreachable' || kind === 'not-a-host' || kind === 'cut') return false;
    if (status === 401 || status === 403) return false;
    return true;
  }
}

/** Starts the control API for `host` on 127.0.0.1. */
export async function startControlServer(
  host: Host,
  options: ControlServerOptions = {},
): Promise<ControlServer> {
  const secret = options.token ?? randomBytes(32).toString('base64url');
  if (secret.length < 16) throw new TypeError('The control secret needs at least 16 characters.');
  if (tokensEqual(secret, host.token)) {
    throw new TypeError('The control API needs a secret of its own, not the page token.');
  }
  const routes = controlRoutes(host);

  /** Who may ask, for a request or a channel's upgrade. */
  const check = (request: IncomingMessage, url: URL): void => {
    const hostHeader = (request.headers.host ?? '').replace(/:\d+$/, '');
    if (!LOOPBACK_NAMES.has(hostHeader)) {
      throw new ControlError(403, 'forbidden', 'The control API answers loopback names only.');
    }
    if (request.headers.origin !== undefined) {
      throw new ControlError(403, 'forbidden', 'The control API is not for web pages.');
    }
    const auth = request.headers.authorization;
    const given = auth?.startsWith('Bearer ') ? auth.slice(7) : url.searchParams.get('token');
    if (given === null || given === undefined || !tokensEqual(given, secret)) {
      throw new ControlError(401, 'unauthorized', 'Wrong or missing token.');
    }
  };

  let closing = false;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // The asker went away before its answer.
    const gone = new AbortController();
    response.once('close', () => {
      if (!response.writableEnded) gone.abort();
    });
    /** Set once the first progress report has started the stream. */
    let streaming = false;
    const progress = (report: object) => {
      if (response.writableEnded || gone.signal.aborted) return;
      if (!streaming) {
        streaming = true;
        response.writeHead(200, {
          'Content-Type': STREAM_CONTENT_TYPE,
          'Cache-Control': 'no-store',
        });
      }
      response.write(`${JSON.stringify({ progress: report })}\n`);
    };
    const reply = (status: number, body: object) => {
      // Closing: this answer is the connection's last, so close() need not wait for an idle one.
      // Refused: whoever sent it gets no connection to keep.
      if (streaming) {
        response.end(`${JSON.stringify(body)}\n`);
        return;
      }
      if (closing || status === 401 || status === 403) response.setHeader('Connection', 'close');
      send(response, status, body);
    };
    new Promise<[number, object]>((resolve) => {
      check(request, url);
      resolve(
        routes.handle(request.method ?? 'GET', url, () => readBody(request), {
          signal: gone.signal,
          progress,
        }),
      );
    }).then(
      ([status, body]) => reply(status, body),
      (error: unknown) =>
        reply(error instanceof ControlError ? error.status : 500, {
          ok: false,
          error: errorBody(error),
        }),
    );
  });
  const channels = serveChannels(server, {
    check,
    handle: routes.handle,
    closing: () => closing,
  });
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    token: secret,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        closing = true;
        routes.close();
        channels.close(CLOSE_GRACE_MS);
        // Stops accepting and drops idle connections; busy ones end after their answer.
        const grace = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        grace.unref?.();
        server.close(() => {
          clearTimeout(grace);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closed;
    },
  };
}

function send(response: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  response.end(text);
}
