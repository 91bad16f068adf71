/**
 * The control API: how `toolwire sessions|tools|call|batch` (and `toolwire mcp` attaching to a
 * running host) talk to a running `toolwire host` (issue 7; issue 13 parts 5, 7 and 9).
 *
 * 1. Plain HTTP + JSON on 127.0.0.1 only, whatever interface the page socket binds.
 * 2. A secret of its own is required (`Authorization: Bearer SECRET` or `?token=`), compared in
 *    constant time: 256 random bits per run, never the page token (`host.token` gets 401), and
 *    never sent to a page. A request with an `Origin` header is refused (browsers send one; the
 *    CLI never does), and so is a `Host` header that is not a loopback name (DNS rebinding).
 * 3. `GET /v1/sessions`, `POST /v1/tools {session?, detail?, query?}`,
 *    `POST /v1/call {session?, toolId, arguments?, after?}`,
 *    `POST /v1/batch {session?, calls, continueOnError?}`,
 *    `GET /v1/changes?after=N`: a long poll (up to 20 s) for a change counter that moves when a
 *    session opens or closes or a catalog changes (`toolwire mcp --attach` follows it).
 *    Answers are `{ok: true, ...}` or `{ok: false, error: {code, message, retryable, details}}`:
 *    HTTP 200 when the tool or the page said no, 404 `session_not_connected` when there is no
 *    such session, 409 `session_ambiguous` when the request does not say which of several,
 *    400 for a malformed request, 401/403 for the checks of 2.
 * 4. No `session` is fine while exactly one is open. With several, the request is refused: the
 *    newest connection is not necessarily the page the user means, and any page of an allowed
 *    origin could otherwise receive the next call's arguments. An id prefix is enough when unique.
 * 5. `GET /v1/sessions` waits for first catalogs at most SESSIONS_WAIT_MS: a silent page shows
 *    `tools: null` (loading) instead of stalling the listing.
 * 6. `close()` stops accepting, lets in-flight answers go out (a host closing first fails its
 *    pending calls, and those answers must reach the CLI), then cuts what is left after
 *    CLOSE_GRACE_MS.
 * 7. The state file (`controlStatePath`) tells the CLI where the API is: `{pid, controlUrl,
 *    port, token}` (the token is the control secret), written 0600 by the host and removed when
 *    that host exits. It is trusted only when it is a regular file of ours, mode 0600, read
 *    through a descriptor opened without following links; anything else is refused with one line
 *    (StateFileError). Without XDG_RUNTIME_DIR it lives in a private directory,
 *    `$TMPDIR/toolwire-<uid>`, which must be ours, mode 0700, and not a link.
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { CallPayload, JsonValue } from '@toolwire/protocol';
import { isPlainObject, POLICY_RANK, ToolProtocolError } from '@toolwire/protocol';
import type { HostTool } from '../catalog/cache.js';
import type { Host } from '../server/host.js';
import type { HostSession } from '../server/session.js';
import { guardName } from '../server/session.js';
import { tokensEqual } from '../shared/token.js';

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** How long `GET /v1/sessions` waits for first catalogs, in all. */
export const SESSIONS_WAIT_MS = 1000;
/** How long `close()` lets in-flight answers finish before cutting their connections. */
export const CLOSE_GRACE_MS = 2000;

/** What the state file holds. */
export interface ControlState {
  pid: number;
  /** `http://127.0.0.1:PORT` */
  controlUrl: string;
  port: number;
  /** The control API's secret (never the page token). */
  token: string;
}

/** A state file or directory that cannot be trusted (or read): `message` is the one line. */
export class StateFileError extends Error {
  override name = 'StateFileError';
}

function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/** `$TMPDIR` from `env` (so a caller's environment decides), else the OS temp dir. */
function tempRoot(env: Record<string, string | undefined>): string {
  const given = env.TMPDIR;
  return given ? given.replace(/(.)\/+$/, '$1') : tmpdir();
}

/** The private directory for the state file without XDG_RUNTIME_DIR: `$TMPDIR/toolwire-<uid>`. */
export function privateStateDir(env: Record<string, string | undefined> = process.env): string {
  return join(tempRoot(env), `toolwire-${currentUid() ?? 'user'}`);
}

/**
 * `$TOOLWIRE_STATE`, else `$XDG_RUNTIME_DIR/toolwire-host.json`, else `toolwire-host.json` in
 * privateStateDir(). Never a file straight in the shared temp folder: anyone can plant one there.
 */
export function controlStatePath(env: Record<string, string | undefined> = process.env): string {
  if (env.TOOLWIRE_STATE) return env.TOOLWIRE_STATE;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'toolwire-host.json');
  return join(privateStateDir(env), 'toolwire-host.json');
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

/**
 * A directory named like the private one (`toolwire-<uid>`) must be a real directory of ours,
 * mode 0700. `create`: make it (0700) when missing. Returns false when missing (no host).
 */
function checkPrivateDir(dir: string, create: boolean): boolean {
  if (basename(dir) !== `toolwire-${currentUid() ?? 'user'}`) return true;
  if (create) {
    try {
      mkdirSync(dir, { mode: 0o700 });
      chmodSync(dir, 0o700); // ours, just made: the umask may have narrowed it
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  let stat: Stats;
  try {
    stat = lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new StateFileError(`cannot read the state directory ${dir}: ${errorCode(error)}`);
  }
  const uid = currentUid();
  const reason = stat.isSymbolicLink()
    ? 'a symbolic link'
    : !stat.isDirectory()
      ? 'not a directory'
      : uid !== undefined && stat.uid !== uid
        ? `owned by uid ${stat.uid}, not ${uid}`
        : uid !== undefined && (stat.mode & 0o777) !== 0o700
          ? `mode ${octal(stat.mode)}, not 0700`
          : undefined;
  if (reason) throw new StateFileError(`refusing the state directory ${dir}: ${reason}`);
  return true;
}

/** Why an opened state file is not to be trusted (undefined: it is). */
function distrust(stat: Stats): string | undefined {
  const uid = currentUid();
  if (!stat.isFile()) return 'not a regular file';
  if (uid === undefined) return undefined; // no owners or modes to check (Windows)
  if (stat.uid !== uid) return `owned by uid ${stat.uid}, not ${uid}`;
  if ((stat.mode & 0o077) !== 0) return `mode ${octal(stat.mode)}, not 0600`;
  return undefined;
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/**
 * Writes the state file 0600: a new file (O_EXCL, so never through a planted link) renamed into
 * place. A failed write removes its temporary file.
 */
export function writeControlState(path: string, state: ControlState): void {
  const dir = dirname(path);
  checkPrivateDir(dir, true);
  const temporary = join(dir, `.toolwire-${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    try {
      fchmodSync(fd, 0o600); // the umask narrows a mode, never widens it; be exact anyway
      writeSync(fd, `${JSON.stringify(state, null, 2)}\n`);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * The state file at `path`, or undefined when there is none. Throws StateFileError (one line
 * naming the file and the reason) when it is there but not to be trusted or not readable.
 */
export function readControlState(path: string): ControlState | undefined {
  if (!checkPrivateDir(dirname(path), false)) return undefined;
  let fd: number;
  try {
    // O_NOFOLLOW: a link is refused by open itself; O_NONBLOCK: a planted FIFO cannot hang us.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') {
      throw new StateFileError(`refusing the state file ${path}: a symbolic link`);
    }
    throw new StateFileError(`cannot read the state file ${path}: ${errorCode(error)}`);
  }
  let text: string;
  try {
    // Checked on the descriptor we read from: nothing can be swapped in between.
    const reason = distrust(fstatSync(fd));
    if (reason) throw new StateFileError(`refusing the state file ${path}: ${reason}`);
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (
    !isPlainObject(value) ||
    typeof value.controlUrl !== 'string' ||
    typeof value.token !== 'string'
  ) {
    throw new StateFileError(`refusing the state file ${path}: not a toolwire state file`);
  }
  return value as unknown as ControlState;
}

/** Removes the state file if it is still this process's. */
export function removeControlState(path: string, pid = process.pid): void {
  try {
    if (readControlState(path)?.pid !== pid) return;
    unlinkSync(path);
  } catch {
    // already gone, or not ours to remove
  }
}

/** A session as the control API shows it. */
export interface SessionSummary {
  id: string;
  origin: string | null;
  connectedAt: string;
  page: { url: string; title: string; origin: string } | null;
  sdk: { name: string; version: string } | null;
  /** null while the first catalog is loading (the page has not answered yet). */
  tools: number | null;
  grant: string;
  pending: number;
  /** The page's guard as it reported it (preset or `up to POLICY`), null if it sent none. */
  guard: string | null;
  /** Tools the page lists in-page but its guard keeps off the wire. */
  hidden: { id: string; policy: string }[];
  /** How the page got in: a link's pairing code or the tab's credential, or the page token. */
  paired: boolean;
}

/** Sessions whose first catalog refresh has settled (HostSession.ready). */
const settled = new WeakSet<HostSession>();
const watched = new WeakSet<HostSession>();

/** Starts noting when `session.ready` settles; call before awaiting it. */
function watchReady(session: HostSession): void {
  if (watched.has(session)) return;
  watched.add(session);
  void session.ready.then(() => settled.add(session));
}

/** `POST /v1/pair {page?, ttlMs?}`: a pairing link for `page`, or a code for any allowed page. */
function pairing(host: Host, body: Record<string, unknown>): Record<string, unknown> {
  const ttl = body.ttlMs;
  if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl <= 0)) {
    throw new ControlError(400, 'bad_request', 'ttlMs is a positive whole number.');
  }
  const options = ttl === undefined ? {} : { ttlMs: ttl };
  if (body.page !== undefined) {
    if (typeof body.page !== 'string') throw new ControlError(400, 'bad_request', 'page is a URL.');
    let link: ReturnType<Host['pairingLink']>;
    try {
      link = host.pairingLink(body.page, options);
    } catch {
      throw new ControlError(400, 'bad_request', `page needs an absolute http(s) URL.`);
    }
    return {
      link: link.url,
      origin: link.origin,
      expiresAt: new Date(link.expiresAt).toISOString(),
    };
  }
  const code = host.createPairingCode(options);
  const connect = new URL(host.address);
  connect.searchParams.set('pair', code.code);
  return {
    fragment: `#toolwire=${encodeURIComponent(connect.toString())}`,
    origin: null,
    expiresAt: new Date(code.expiresAt).toISOString(),
  };
}

export function summarizeSession(session: HostSession): SessionSummary {
  watchReady(session);
  const info = session.info;
  return {
    id: session.id,
    origin: session.origin,
    connectedAt: session.connectedAt.toISOString(),
    page: info ? info.page : null,
    sdk: info ? info.sdk : null,
    tools: settled.has(session) ? session.tools().length : null,
    grant: session.grant,
    pending: session.pendingCount,
    guard: session.pageGuard ? guardName(session.pageGuard) : null,
    hidden: session.pageGuard?.hidden ?? [],
    paired: session.credential !== undefined,
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
    readonly details: JsonValue | null = null,
  ) {
    super(message);
  }
}

function sessionDetail(session: HostSession): JsonValue {
  const page = session.info?.page;
  return { id: session.id, url: page?.url ?? null, title: page?.title ?? null };
}

/** One line naming each session: short id, page URL and title (raw: printers escape). */
function sessionList(sessions: readonly HostSession[]): string {
  return sessions
    .map((session) => {
      const page = session.info?.page;
      if (!page) return `${session.id.slice(0, 8)} (no session.open yet)`;
      return `${session.id.slice(0, 8)} ${page.url || '(no url)'} "${page.title}"`;
    })
    .join(', ');
}

/** `id` (exact or a unique prefix) or, without one, the only open session. */
export function pickSession(host: Host, id?: unknown): HostSession {
  const open = host.sessions.filter((session) => session.isOpen);
  if (id === undefined || id === null || id === '') {
    const only = open[0];
    if (!only) throw new ControlError(404, 'session_not_connected', 'No page is connected.');
    if (open.length > 1) {
      throw new ControlError(
        409,
        'session_ambiguous',
        `${open.length} sessions are open; pick one with --session: ${sessionList(open)}`,
        { sessions: open.map(sessionDetail) },
      );
    }
    return only;
  }
  if (typeof id !== 'string') throw new ControlError(400, 'bad_request', 'session is a string.');
  const exact = open.find((session) => session.id === id);
  if (exact) return exact;
  const matches = open.filter((session) => session.id.startsWith(id));
  if (matches.length === 1) return matches[0] as HostSession;
  if (matches.length > 1) {
    throw new ControlError(
      409,
      'session_ambiguous',
      `Session "${id}" matches ${matches.length} sessions: ${sessionList(matches)}`,
      { sessions: matches.map(sessionDetail) },
    );
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

/** Waits for `promise` (its failure ignored) or `ms`, whichever comes first. */
async function within(ms: number, promise: Promise<unknown>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** Waits for the session's first catalog and a fresh refresh, bounded. */
async function fresh(session: HostSession): Promise<void> {
  await session.ready;
  await within(2000, session.refresh());
}

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
  try {
    writeControlState(statePath, {
      pid: process.pid,
      controlUrl: control.url,
      port: control.port,
      token: control.token,
    });
  } catch (error) {
    await control.close();
    throw error;
  }
  return {
    url: control.url,
    port: control.port,
    token: control.token,
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
  const secret = options.token ?? randomBytes(32).toString('base64url');
  if (secret.length < 16) throw new TypeError('The control secret needs at least 16 characters.');
  if (tokensEqual(secret, host.token)) {
    throw new TypeError('The control API needs a secret of its own, not the page token.');
  }
  let changes = 0;
  const waiting = new Set<() => void>();
  const changed = () => {
    changes++;
    for (const wake of [...waiting]) wake();
  };
  // Noted from the start, so a summary knows whether the first catalog has loaded.
  for (const session of host.sessions) watchReady(session);
  const unsubscribe = [
    host.on('session', watchReady),
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
    if (given === null || given === undefined || !tokensEqual(given, secret)) {
      throw new ControlError(401, 'unauthorized', 'Wrong or missing token.');
    }
    const route = `${request.method} ${url.pathname}`;
    if (route === 'GET /v1/sessions') {
      // Bounded: a page that never answers its first tool.query shows as loading, not a stall.
      const sessions = host.sessions;
      for (const session of sessions) watchReady(session);
      await within(SESSIONS_WAIT_MS, Promise.all(sessions.map((session) => session.ready)));
      return [200, { ok: true, sessions: host.sessions.map(summarizeSession) }];
    }
    if (route === 'GET /v1/changes') {
      const after = Number(url.searchParams.get('after') ?? '-1');
      return [200, { ok: true, changes: await changesAfter(Number.isFinite(after) ? after : -1) }];
    }
    if (route === 'POST /v1/pair') {
      const body = await readBody(request);
      return [200, { ok: true, ...pairing(host, body) }];
    }
    if (!['POST /v1/tools', 'POST /v1/call', 'POST /v1/batch', 'POST /v1/revoke'].includes(route)) {
      throw new ControlError(404, 'not_found', `No ${route}.`);
    }
    const body = await readBody(request);
    if (route === 'POST /v1/revoke') {
      // Never "the newest": revoking names its session.
      if (typeof body.session !== 'string' || body.session === '') {
        throw new ControlError(400, 'bad_request', 'Name the session to revoke.');
      }
      const session = pickSession(host, body.session);
      const summary = summarizeSession(session);
      if (!summary.paired) {
        throw new ControlError(
          400,
          'bad_request',
          `Session ${session.id.slice(0, 8)} connected with the page token, not a pairing; there is no credential to revoke (stop the host to end it).`,
        );
      }
      host.revoke(session.id);
      return [200, { ok: true, session: summary }];
    }
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

  let closing = false;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const reply = (status: number, body: object) => {
      // Closing: this answer is the connection's last, so close() need not wait for an idle one.
      if (closing) response.setHeader('Connection', 'close');
      send(response, status, body);
    };
    handle(request, url).then(
      ([status, body]) => reply(status, body),
      (error: unknown) => {
        if (error instanceof ControlError) {
          reply(error.status, {
            ok: false,
            error: {
              code: error.code,
              message: error.message,
              retryable: false,
              details: error.details,
            },
          });
        } else {
          reply(500, { ok: false, error: errorBody(error) });
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
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    token: secret,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        closing = true;
        for (const off of unsubscribe) off();
        for (const wake of [...waiting]) wake();
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
