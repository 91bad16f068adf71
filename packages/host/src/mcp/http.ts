/**
 * MCP over Streamable HTTP, served by the host at `/mcp` on its page port
 * (`createHost({ mcp: { secret } })`), on the MCP SDK's `StreamableHTTPServerTransport`.
 *
 * 1. Every request is checked in this order before anything else reads it: `Host` must be a
 *    loopback name (`127.0.0.1`, `localhost`, `[::1]`) with the host's port or one of its
 *    forwarded ports (403 `mcp_host_refused`: DNS rebinding); `Origin`, when sent, must be a
 *    loopback `http:` origin (403 `mcp_origin_refused`); `Authorization: Bearer <secret>`,
 *    compared in constant time (401 `mcp_unauthorized`, with `WWW-Authenticate: Bearer`). The
 *    secret is the MCP endpoint's own: never the page token, never the control API's.
 * 2. Every refusal is a JSON-RPC error body (`id: null`) whose `error.data["toolwire/code"]`
 *    says which: the codes above, `mcp_session_unknown` (404, an `Mcp-Session-Id` this host
 *    does not hold, as the spec says), `mcp_session_required` (400, a request other than
 *    `initialize` without one), `mcp_session_limit` (503, a new session beyond MCP_SESSION_CAP),
 *    `mcp_body_too_large` (413, a body above the host's frame limit), `mcp_parse_error` (400)
 *    and `mcp_method_not_allowed` (405). A refused request's connection is closed. The first
 *    three are logged at most once per origin (else address) per interval (refusal-log.ts).
 * 3. Sessions are stateful (`Mcp-Session-Id`): each is its own SDK `Server` and transport, all
 *    connected to one McpService (bridge.ts), so every session sees the names, tabs and
 *    withheld explanations stdio sees, and `tools/list_changed` reaches every session that
 *    initialized, on its GET stream. POST carries requests (answers stream back as SSE), GET
 *    opens the notification stream, DELETE ends the session.
 * 4. A session's calls in flight are aborted (cancelled at the page) by `notifications/
 *    cancelled`, by DELETE, and by the client dropping the POST stream a call answers on.
 * 5. A session with no request in flight, no open GET stream and no request for MCP_IDLE_MS
 *    is closed; a later request with its id gets 404 `mcp_session_unknown` (the client
 *    initializes again).
 * 6. The server runs in the host's own process and calls its sessions directly
 *    (host-source.ts), the own-host stdio path: no hop through the control API.
 */
import * as nodeCrypto from 'node:crypto';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { RefusalLog } from '../server/refusal-log.js';
import type { McpService } from './bridge.js';
import { createMcpService } from './bridge.js';
import type { McpHost } from './host-source.js';
import { type HttpTransport, SessionTransport } from './http-fast.js';
import type { AnswerSink } from './http-wire.js';

export const MCP_PATH = '/mcp';
/** Client sessions held at once; a new one beyond them is refused (503). */
const MCP_SESSION_CAP = 32;
/** A session with nothing in flight and no GET stream for this long is closed. */
const MCP_IDLE_MS = 30 * 60_000;

type McpHttpCode =
  | 'mcp_host_refused'
  | 'mcp_origin_refused'
  | 'mcp_unauthorized'
  | 'mcp_session_unknown'
  | 'mcp_session_required'
  | 'mcp_session_limit'
  | 'mcp_body_too_large'
  | 'mcp_parse_error'
  | 'mcp_method_not_allowed';

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface McpHttpOptions {
  /** The bearer secret every request carries. */
  secret: string;
  /** The host's port (read when a request comes: the host binds it after this is made). */
  port: () => number;
  /** Ports that forward to the host (HostOptions.forwardedPorts): a `Host` may name them. */
  forwardedPorts?: readonly number[];
  /** Largest request body (the host's frame limit). */
  maxBodyBytes: number;
  log?: (line: string) => void;
  serverVersion?: string;
  /** Default MCP_SESSION_CAP. */
  sessionCap?: number;
  /** Default MCP_IDLE_MS. */
  idleMs?: number;
  /**
   * Whether the hot request shape is answered by http-fast.ts (default true). Off, every
   * request goes through the SDK's transport: the tests compare the two answers.
   */
  fastPath?: boolean;
}

export interface McpHttp {
  /** Answers one request on `/mcp`. */
  handle(request: IncomingMessage, response: ServerResponse): void;
  /** Sessions held now. */
  readonly sessionCount: number;
  /** Requests the fast path answered (http-fast.ts), for the tests. */
  readonly fastAnswers: number;
  /**
   * Answers a complete `POST /mcp` read off its socket (http-wire.ts) when it passes every
   * check `handle` makes and has the hot shape; else false, and nothing happened (the request
   * then goes to `handle` through node:http, which answers or refuses it).
   */
  take(headers: IncomingHttpHeaders, body: string, sink: AnswerSink): boolean;
  /** Ends every session (their calls in flight are aborted). */
  close(): Promise<void>;
}

interface HttpSession {
  /** The SDK transport, with the fast path beside it (http-fast.ts). */
  transport: SessionTransport;
  close(): Promise<void>;
  /** Requests being answered, and GET streams open: while either is non-zero it is not idle. */
  busy: number;
  lastSeen: number;
}

/** A refusal: status, code, message (and headers). */
export interface McpRefusal {
  status: number;
  code: McpHttpCode;
  message: string;
  headers?: Record<string, string>;
}

/** Whether `header` (a `Host` value) names a loopback host on one of `ports`. */
function loopbackHost(header: string | undefined, ports: readonly number[]): boolean {
  if (!header) return false;
  let url: URL;
  try {
    url = new URL(`http://${header}`);
  } catch {
    return false;
  }
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return false;
  return LOOPBACK_NAMES.has(url.hostname) && ports.includes(Number(url.port || 80));
}

/** Whether `origin` is a loopback `http:` origin (any port). */
function loopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && LOOPBACK_NAMES.has(url.hostname) && url.origin === origin;
}

/**
 * SHA-256 of `text`. Node's one-shot `crypto.hash` (20.12 and later) is several times cheaper
 * than a `Hash` object, and every request hashes the secret it carries; older Nodes make one.
 */
const digest = (text: string): Buffer =>
  typeof nodeCrypto.hash === 'function'
    ? nodeCrypto.hash('sha256', text, 'buffer')
    : createHash('sha256').update(text).digest();

/**
 * Who may ask (header 1): Host, then Origin, then the bearer secret. Undefined when the
 * request passes. `secret` may be given as its SHA-256 digest (hashed once, not per request);
 * the given one is hashed too, so the comparison is constant-time whatever its length. With
 * `secretBytes` (the secret's UTF-8 bytes) a given secret of that many bytes is compared with
 * them directly, in constant time, and only one of another length is hashed: what timing
 * could tell then is the secret's length, not its content (a generated secret's length is
 * public: 43 characters of base64url).
 */
export function checkMcpRequest(
  headers: IncomingMessage['headers'],
  policy: {
    secret: string | Buffer;
    /** The secret's UTF-8 bytes, when `secret` is its digest. */
    secretBytes?: Buffer;
    ports: readonly number[] | (() => readonly number[]);
    /** `Host` values that passed before (their check is not redone), kept up to 8. */
    hosts?: Set<string>;
  },
): McpRefusal | undefined {
  const host = headers.host;
  const known = host !== undefined && policy.hosts?.has(host) === true;
  const ports = () => (typeof policy.ports === 'function' ? policy.ports() : policy.ports);
  if (!known && !loopbackHost(host, ports())) {
    return {
      status: 403,
      code: 'mcp_host_refused',
      message: `The MCP endpoint answers a loopback Host with this host's port (got ${JSON.stringify(headers.host ?? null)}).`,
    };
  }
  const origin = headers.origin;
  if (origin !== undefined && !loopbackOrigin(origin)) {
    return {
      status: 403,
      code: 'mcp_origin_refused',
      message: `The MCP endpoint does not answer web pages of ${JSON.stringify(origin)}; only loopback origins.`,
    };
  }
  if (!known && host !== undefined && policy.hosts && policy.hosts.size < 8) {
    policy.hosts.add(host); // it passed the Host check
  }
  const auth = headers.authorization;
  const given = auth && /^bearer /i.test(auth) ? auth.slice(7).trim() : undefined;
  if (given === undefined || !sameSecret(given, policy)) {
    return {
      status: 401,
      code: 'mcp_unauthorized',
      message:
        given === undefined
          ? 'The MCP endpoint needs Authorization: Bearer <secret> (toolwire mcp-config prints it).'
          : 'Wrong MCP secret (toolwire mcp-config prints the current one).',
      headers: { 'WWW-Authenticate': 'Bearer' },
    };
  }
  return undefined;
}

/** Whether `given` is the secret (checkMcpRequest), compared in constant time. */
function sameSecret(
  given: string,
  policy: { secret: string | Buffer; secretBytes?: Buffer | undefined },
): boolean {
  const bytes = policy.secretBytes;
  if (bytes !== undefined && Buffer.byteLength(given) === bytes.length) {
    return timingSafeEqual(Buffer.from(given), bytes);
  }
  const expected = typeof policy.secret === 'string' ? digest(policy.secret) : policy.secret;
  return timingSafeEqual(digest(given), expected);
}

/** The JSON-RPC error body a refusal answers. */
function refusalBody(refusal: Pick<McpRefusal, 'code' | 'message'>): object {
  const code =
    refusal.code === 'mcp_parse_error'
      ? -32700
      : refusal.code === 'mcp_session_unknown'
        ? -32001
        : -32000;
  return {
    jsonrpc: '2.0',
    id: null,
    error: { code, message: refusal.message, data: { 'toolwire/code': refusal.code } },
  };
}

function refuse(response: ServerResponse, refusal: McpRefusal): void {
  const text = JSON.stringify(refusalBody(refusal));
  response.shouldKeepAlive = false;
  response.writeHead(refusal.status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    Connection: 'close',
    ...refusal.headers,
  });
  response.end(text);
}

/**
 * Reads the request body and hands it to `done` (undefined: too large, or the request
 * failed). With a Content-Length the body is handed on as soon as that many bytes came (node:
 * http delivers no more than it declares), without waiting for the stream's 'end'.
 */
function readBody(
  request: IncomingMessage,
  limit: number,
  done: (text: string | undefined) => void,
): void {
  const header = request.headers['content-length'];
  const declared = header === undefined ? Number.NaN : Number(header);
  if (declared > limit) {
    done(undefined);
    return;
  }
  let first: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  let size = 0;
  let finished = false;
  const finish = (): void => {
    finished = true;
    if (first === undefined) done('');
    else if (chunks === undefined) done(first.toString('utf8'));
    else done(Buffer.concat(chunks).toString('utf8'));
  };
  request.on('data', (chunk: Buffer) => {
    if (finished) return;
    size += chunk.length;
    if (size > limit) {
      finished = true;
      request.pause();
      done(undefined);
      return;
    }
    if (first === undefined) first = chunk;
    else if (chunks === undefined) chunks = [first, chunk];
    else chunks.push(chunk);
    if (size === declared) finish();
  });
  request.on('end', () => {
    if (!finished) finish();
  });
  request.on('error', () => {
    if (finished) return;
    finished = true;
    done(undefined);
  });
}

type Message = { method?: unknown; id?: unknown };
const messagesOf = (body: unknown): Message[] =>
  (Array.isArray(body) ? body : [body]).filter(
    (one): one is Message => typeof one === 'object' && one !== null,
  );

/** The Streamable HTTP endpoint over `host`'s sessions (header). Loads the SDK first. */
export async function createMcpHttp(host: McpHost, options: McpHttpOptions): Promise<McpHttp> {
  const [{ StreamableHTTPServerTransport }, { SUPPORTED_PROTOCOL_VERSIONS }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const fastPath = options.fastPath ?? true;
  const log = options.log ?? (() => {});
  const cap = options.sessionCap ?? MCP_SESSION_CAP;
  const idleMs = options.idleMs ?? MCP_IDLE_MS;
  const service: McpService = createMcpService(host, {
    ...(options.serverVersion ? { serverVersion: options.serverVersion } : {}),
    log,
  });
  const secretDigest = digest(options.secret);
  /** Refusals are logged at most once per origin (else address) per interval. */
  const refusals = new RefusalLog(log);
  const sessions = new Map<string, HttpSession>();
  /** Sessions being opened (their initialize in flight): they count against the cap. */
  let opening = 0;
  let closed = false;
  let fastAnswers = 0;
  /** `Host` values that passed the check (a client sends the same one every time). */
  const knownHosts = new Set<string>();

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (session.busy === 0 && now - session.lastSeen >= idleMs) {
          log(
            `mcp: HTTP session ${id.slice(0, 8)} closed after ${Math.round(idleMs / 60_000)} idle minutes`,
          );
          sessions.delete(id);
          void session.close();
        }
      }
    },
    Math.max(1000, Math.min(60_000, Math.floor(idleMs / 4))),
  );
  sweep.unref?.();

  /** Counts `response` as the session's activity until it closes. */
  const track = (session: HttpSession, response: Pick<AnswerSink, 'once'>) => {
    session.busy++;
    session.lastSeen = Date.now();
    response.once('close', () => {
      session.busy--;
      session.lastSeen = Date.now();
    });
  };

  /** A new session for an initialize request. */
  const open = async (
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
  ): Promise<void> => {
    opening++;
    let session: HttpSession | undefined;
    try {
      const sdk: HttpTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          if (session) sessions.set(id, session);
          log(`mcp: HTTP session ${id.slice(0, 8)} opened (${sessions.size} held)`);
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
          log(`mcp: HTTP session ${id.slice(0, 8)} ended by the client`);
        },
      });
      const transport = new SessionTransport(sdk, SUPPORTED_PROTOCOL_VERSIONS);
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      };
      const client = await service.connect(transport);
      session = { transport, close: () => client.close(), busy: 0, lastSeen: Date.now() };
      track(session, response);
      await sdk.handleRequest(request, response, body);
      // An initialize the transport refused opened nothing.
      if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) {
        await client.close();
      }
    } finally {
      opening--;
    }
  };

  const secretBytes = Buffer.from(options.secret);
  const ports = () => [options.port(), ...(options.forwardedPorts ?? [])];
  const policy = { secret: secretDigest, secretBytes, ports, hosts: knownHosts };

  /** A request that failed in our code: 500 if nothing was sent yet, else the socket ends. */
  const fail = (response: ServerResponse, error: Error): void => {
    log(`mcp: ${error.message}`);
    if (!response.headersSent) {
      response.writeHead(500, { 'Content-Type': 'application/json' });
      response.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32603, message: 'Internal error' },
        }),
      );
    } else response.destroy();
  };

  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    const refusal = checkMcpRequest(request.headers, policy);
    if (refusal) {
      const from = request.headers.origin ?? request.socket.remoteAddress ?? '?';
      refusals.note(from, `mcp: refused a request from ${from}: ${refusal.status} ${refusal.code}`);
      refuse(response, refusal);
      return;
    }
    const method = request.method ?? 'GET';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      refuse(response, {
        status: 405,
        code: 'mcp_method_not_allowed',
        message: `The MCP endpoint answers POST, GET and DELETE, not ${method}.`,
        headers: { Allow: 'POST, GET, DELETE' },
      });
      return;
    }
    if (method !== 'POST') {
      route(request, response, method, undefined);
      return;
    }
    readBody(request, options.maxBodyBytes, (text) => {
      if (text === undefined) {
        refuse(response, {
          status: 413,
          code: 'mcp_body_too_large',
          message: `The request body is larger than this host's frame limit (${options.maxBodyBytes} bytes).`,
        });
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        refuse(response, {
          status: 400,
          code: 'mcp_parse_error',
          message: 'The request body is not JSON.',
        });
        return;
      }
      try {
        route(request, response, method, body);
      } catch (error) {
        fail(response, error as Error);
      }
    });
  };

  /** A request that passed the checks, with its parsed body (POST): to its session. */
  const route = (
    request: IncomingMessage,
    response: ServerResponse,
    method: string,
    body: unknown,
  ): void => {
    const header = request.headers['mcp-session-id'];
    const id = Array.isArray(header) ? header[0] : header;
    if (id === undefined) {
      const initialize = messagesOf(body).some((message) => message.method === 'initialize');
      if (method !== 'POST' || !initialize) {
        refuse(response, {
          status: 400,
          code: 'mcp_session_required',
          message: 'Send Mcp-Session-Id (from the answer to initialize), or initialize first.',
        });
        return;
      }
      if (closed || sessions.size + opening >= cap) {
        refuse(response, {
          status: 503,
          code: 'mcp_session_limit',
          message: `This host holds ${cap} MCP sessions already; end one (DELETE) or wait for one to go idle.`,
        });
        return;
      }
      open(request, response, body).catch((error: Error) => fail(response, error));
      return;
    }
    const session = sessions.get(id);
    if (!session) {
      refuse(response, {
        status: 404,
        code: 'mcp_session_unknown',
        message:
          'No such MCP session (it ended, went idle, or the host restarted): initialize again.',
      });
      return;
    }
    track(session, response);
    // The hot shape (a tools/call, one request) is answered beside the SDK (http-fast.ts),
    // which also cancels its call when the client drops the stream.
    if (
      method === 'POST' &&
      fastPath &&
      session.transport.tryFast(request.headers, response, body)
    ) {
      fastAnswers++;
      return;
    }
    if (method === 'POST') {
      // The client dropping the stream a call answers on cancels the call (header 4).
      const asked = messagesOf(body)
        .filter((message) => typeof message.method === 'string' && message.id !== undefined)
        .map((message) => message.id as string | number);
      if (asked.length > 0) {
        response.once('close', () => {
          if (response.writableFinished) return;
          for (const requestId of asked) {
            session.transport.onmessage?.({
              jsonrpc: '2.0',
              method: 'notifications/cancelled',
              params: { requestId, reason: 'the client closed the stream' },
            });
          }
        });
      }
    }
    session.transport.sdk
      .handleRequest(request, response, body)
      .catch((error: Error) => fail(response, error));
  };

  return {
    handle(request, response) {
      try {
        handle(request, response);
      } catch (error) {
        fail(response, error as Error);
      }
    },
    get sessionCount() {
      return sessions.size;
    },
    get fastAnswers() {
      return fastAnswers;
    },
    take(headers, text, sink) {
      if (!fastPath || closed || checkMcpRequest(headers, policy)) return false;
      const id = headers['mcp-session-id'];
      const session = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!session) return false;
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return false;
      }
      if (!session.transport.tryFast(headers, sink, body)) return false;
      // After: an answer sent at once closes in a microtask, when this has counted it.
      track(session, sink);
      fastAnswers++;
      return true;
    },
    async close() {
      closed = true;
      clearInterval(sweep);
      const held = [...sessions.values()];
      sessions.clear();
      await Promise.all(held.map((session) => session.close()));
      await service.close();
    },
  };
}
