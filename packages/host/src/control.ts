/**
 * The control API: how `toolwire sessions|tools|call|batch` (and `toolwire mcp` attaching to a
 * running host) talk to a running `toolwire host` (issue 7).
 *
 * 1. Plain HTTP + JSON on 127.0.0.1 only, whatever interface the page socket binds.
 * 2. The host's token is required: `Authorization: Bearer TOKEN` (or `?token=`), compared in
 *    constant time. A request with an `Origin` header is refused (browsers send one; the CLI
 *    never does), and so is a `Host` header that is not a loopback name (DNS rebinding).
 * 3. `GET /v1/sessions`, `POST /v1/tools {session?, detail?, query?}`,
 *    `POST /v1/call {session?, toolId, arguments?, after?}`,
 *    `POST /v1/batch {session?, calls, continueOnError?}`,
 *    `GET /v1/changes?after=N`: a long poll (up to 20 s) for a change counter that moves when a
 *    session opens or closes or a catalog changes (`toolwire mcp --attach` follows it).
 *    Answers are `{ok: true, ...}` or `{ok: false, error: {code, message, retryable, details}}`:
 *    HTTP 200 when the tool or the page said no, 404 `session_not_connected` when there is no
 *    such session, 400 for a malformed request, 401/403 for the checks of 2.
 * 4. No `session` means the newest open session; an id prefix is enough when it is unique.
 * 5. The state file (`controlStatePath`) tells the CLI where the API is: written 0600 by the
 *    host, holding the port and the token, removed when that host exits.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CallPayload, JsonValue } from '@toolwire/protocol';
import { isPlainObject, POLICY_RANK, ToolProtocolError } from '@toolwire/protocol';
import type { HostTool } from './catalog-cache.js';
import type { Host } from './host.js';
import type { HostSession } from './session.js';
import { tokensEqual } from './token.js';

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** What the state file holds. */
export interface ControlState {
  pid: number;
  /** `http://127.0.0.1:PORT` */
  controlUrl: string;
  port: number;
  token: string;
  /** The page connect URL (with the token). */
  wsUrl: string;
}

/** `$TOOLWIRE_STATE`, else `$XDG_RUNTIME_DIR/toolwire-host.json`, else one in the temp dir. */
export function controlStatePath(env: Record<string, string | undefined> = process.env): string {
  if (env.TOOLWIRE_STATE) return env.TOOLWIRE_STATE;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'toolwire-host.json');
  const user = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return join(tmpdir(), `toolwire-host-${user}.json`);
}

/** Writes the state file with mode 0600 (a new file renamed into place: never a wider mode). */
export function writeControlState(path: string, state: ControlState): void {
  const temporary = join(dirname(path), `.toolwire-${randomBytes(6).toString('hex')}.tmp`);
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

export function readControlState(path: string): ControlState | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8'));
    if (
      isPlainObject(value) &&
      typeof value.controlUrl === 'string' &&
      typeof value.token === 'string'
    ) {
      return value as unknown as ControlState;
    }
  } catch {
    // missing or unreadable: no host
  }
  return undefined;
}

/** Removes the state file if it is still this process's. */
export function removeControlState(path: string, pid = process.pid): void {
  if (readControlState(path)?.pid !== pid) return;
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** A session as the control API shows it. */
export interface SessionSummary {
  id: string;
  origin: string | null;
  connectedAt: string;
  page: { url: string; title: string; origin: string } | null;
  sdk: { name: string; version: string } | null;
  tools: number;
  grant: string;
  pending: number;
}

export function summarizeSession(session: HostSession): SessionSummary {
  const info = session.info;
  return {
    id: session.id,
    origin: session.origin,
    connectedAt: session.connectedAt.toISOString(),
    page: info ? info.page : null,
    sdk: info ? info.sdk : null,
    tools: session.tools().length,
    grant: session.grant,
    pending: session.pendingCount,
  };
}

/** A tool as the control API shows it (`full` adds the definition). */
export function describeTool(
  tool: HostTool,
  session: HostSession,
  detail: 'index' | 'full',
): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    id: tool.id,
    name: tool.name,
    description: tool.description,
    category: tool.category,
    policy: tool.policy,
    granted: POLICY_RANK[tool.policy] <= POLICY_RANK[session.grant],
    available: tool.runtime === undefined,
  };
  if (tool.runtime) entry.runtime = tool.runtime;
  if (tool.keywords) entry.keywords = tool.keywords;
  if (tool.origin) entry.origin = tool.origin;
  if (detail === 'full') {
    if (tool.prerequisiteToolIds) entry.prerequisiteToolIds = tool.prerequisiteToolIds;
    entry.definitionRevision = tool.definitionRevision;
    entry.argumentsSchema = tool.argumentsSchema;
    entry.resultSchema = tool.resultSchema;
    if (tool.argumentEncoding) entry.argumentEncoding = tool.argumentEncoding;
  }
  return entry;
}

/** Case-insensitive: every word of `query` in the id, name, description, category or keywords. */
export function matchesQuery(tool: HostTool, query: string): boolean {
  const haystack = [tool.id, tool.name, tool.description, tool.category, ...(tool.keywords ?? [])]
    .join(' ')
    .toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}

class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** `id` (exact or a unique prefix) or, without one, the newest open session. */
export function pickSession(host: Host, id?: unknown): HostSession {
  const open = host.sessions.filter((session) => session.isOpen);
  if (id === undefined || id === null || id === '') {
    const newest = open.at(-1);
    if (!newest) throw new ControlError(404, 'session_not_connected', 'No page is connected.');
    return newest;
  }
  if (typeof id !== 'string') throw new ControlError(400, 'bad_request', 'session is a string.');
  const exact = open.find((session) => session.id === id);
  if (exact) return exact;
  const matches = open.filter((session) => session.id.startsWith(id));
  if (matches.length === 1) return matches[0] as HostSession;
  if (matches.length > 1) {
    throw new ControlError(400, 'session_ambiguous', `Session "${id}" matches several sessions.`);
  }
  throw new ControlError(404, 'session_not_connected', `No open session "${id}".`);
}

function errorBody(error: unknown): {
  code: string;
  message: string;
  retryable: boolean;
  details: JsonValue | null;
} {
  if (error instanceof ToolProtocolError) {
    return {
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      details: error.details,
    };
  }
  return {
    code: 'tool_protocol_bridge_failed',
    message: String((error as Error)?.message ?? error),
    retryable: false,
    details: null,
  };
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ControlError(413, 'bad_request', 'The body is too large.');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ControlError(400, 'bad_request', 'The body is not JSON.');
  }
  if (!isPlainObject(value))
    throw new ControlError(400, 'bad_request', 'The body is not an object.');
  return value;
}

/** Waits for the session's first catalog and a fresh refresh, bounded. */
async function fresh(session: HostSession): Promise<void> {
  await session.ready;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    session.refresh().catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, 2000);
    }),
  ]);
  clearTimeout(timer);
}

export interface ControlServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface ControlServerOptions {
  /** Default 0: any free port (the state file says which). */
  port?: number;
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
  try {
    writeControlState(statePath, {
      pid: process.pid,
      controlUrl: control.url,
      port: control.port,
      token: host.token,
      wsUrl: host.url,
    });
  } catch (error) {
    await control.close();
    throw error;
  }
  return {
    url: control.url,
    port: control.port,
    async close() {
      removeControlState(statePath);
      await control.close();
    },
  };
}

/** Starts the control API for `host` on 127.0.0.1. */
export async function startControlServer(
  host: Host,
  options: ControlServerOptions = {},
): Promise<ControlServer> {
  let changes = 0;
  const waiting = new Set<() => void>();
  const changed = () => {
    changes++;
    for (const wake of [...waiting]) wake();
  };
  const unsubscribe = [
    host.on('session', changed),
    host.on('catalog', changed),
    host.on('sessionclose', changed),
  ];
  const changesAfter = (after: number): Promise<number> => {
    if (changes > after) return Promise.resolve(changes);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        waiting.delete(wake);
        resolve(changes);
      };
      const timer = setTimeout(wake, 20_000);
      waiting.add(wake);
    });
  };

  const handle = async (request: IncomingMessage, url: URL): Promise<[number, object]> => {
    const hostHeader = (request.headers.host ?? '').replace(/:\d+$/, '');
    if (!LOOPBACK_NAMES.has(hostHeader)) {
      throw new ControlError(403, 'forbidden', 'The control API answers loopback names only.');
    }
    if (request.headers.origin !== undefined) {
      throw new ControlError(403, 'forbidden', 'The control API is not for web pages.');
    }
    const auth = request.headers.authorization;
    const given = auth?.startsWith('Bearer ') ? auth.slice(7) : url.searchParams.get('token');
    if (given === null || given === undefined || !tokensEqual(given, host.token)) {
      throw new ControlError(401, 'unauthorized', 'Wrong or missing token.');
    }
    const route = `${request.method} ${url.pathname}`;
    if (route === 'GET /v1/sessions') {
      await Promise.all(host.sessions.map((session) => session.ready));
      return [200, { ok: true, sessions: host.sessions.map(summarizeSession) }];
    }
    if (route === 'GET /v1/changes') {
      const after = Number(url.searchParams.get('after') ?? '-1');
      return [200, { ok: true, changes: await changesAfter(Number.isFinite(after) ? after : -1) }];
    }
    if (!['POST /v1/tools', 'POST /v1/call', 'POST /v1/batch'].includes(route)) {
      throw new ControlError(404, 'not_found', `No ${route}.`);
    }
    const body = await readBody(request);
    const session = pickSession(host, body.session);
    if (route === 'POST /v1/tools') {
      const detail = body.detail ?? 'index';
      if (detail !== 'index' && detail !== 'full') {
        throw new ControlError(400, 'bad_request', 'detail is "index" or "full".');
      }
      await fresh(session);
      const query = typeof body.query === 'string' ? body.query : '';
      const tools = session
        .tools()
        .filter((tool) => query === '' || matchesQuery(tool, query))
        .map((tool) => describeTool(tool, session, detail));
      return [200, { ok: true, session: summarizeSession(session), tools }];
    }
    await session.ready;
    try {
      if (route === 'POST /v1/call') {
        if (typeof body.toolId !== 'string' || body.toolId === '') {
          throw new ControlError(400, 'bad_request', 'toolId is required.');
        }
        if (body.arguments !== undefined && !isPlainObject(body.arguments)) {
          throw new ControlError(400, 'bad_request', 'arguments must be an object.');
        }
        const result = await session.call(
          body.toolId,
          body.arguments as Record<string, unknown> | undefined,
          isPlainObject(body.after) ? { after: body.after as CallPayload['after'] } : {},
        );
        return [200, { ok: true, session: session.id, result }];
      }
      if (!Array.isArray(body.calls))
        throw new ControlError(400, 'bad_request', 'calls is required.');
      const result = await session.batch(
        body.calls as CallPayload[],
        body.continueOnError === true ? { continueOnError: true } : {},
      );
      return [200, { ok: true, session: session.id, result }];
    } catch (error) {
      if (error instanceof ControlError) throw error;
      return [200, { ok: false, session: session.id, error: errorBody(error) }];
    }
  };

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    handle(request, url).then(
      ([status, body]) => send(response, status, body),
      (error: unknown) => {
        if (error instanceof ControlError) {
          send(response, error.status, {
            ok: false,
            error: { code: error.code, message: error.message, retryable: false, details: null },
          });
        } else {
          send(response, 500, { ok: false, error: errorBody(error) });
        }
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const off of unsubscribe) off();
        for (const wake of [...waiting]) wake();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
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
