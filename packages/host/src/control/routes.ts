/**
 * What each control API route answers, once server.ts has checked who asks (issue 7; issue 13
 * parts 5 and 9).
 *
 * 1. `GET /v1/sessions`, `POST /v1/tools {session?, detail?, query?}`,
 *    `POST /v1/call {session?, toolId, arguments?, after?}`,
 *    `POST /v1/batch {session?, calls, continueOnError?}`, `POST /v1/pair {page?, extension?, ttlMs?}`,
 *    `POST /v1/revoke {session}`, and `GET /v1/changes?after=N`: a long poll (up to 20 s) for a
 *    change counter that moves when a session opens or closes, its page names its tab
 *    (`session.open`) or a catalog changes (`toolwire mcp --attach` follows it).
 * 2. Answers are `{ok: true, ...}` or `{ok: false, error: {code, message, retryable, details}}`:
 *    HTTP 200 when the tool or the page said no, 404 `session_not_connected` when there is no
 *    such session, 409 `session_ambiguous` when the request does not say which of several,
 *    400 for a malformed request.
 * 3. No `session` is fine while exactly one is open. With several, the request is refused: the
 *    newest connection is not necessarily the page the user means, and any page of an allowed
 *    origin could otherwise receive the next call's arguments. An id prefix is enough when unique.
 * 4. `GET /v1/sessions` waits for first catalogs at most SESSIONS_WAIT_MS: a silent page shows
 *    `tools: null` (loading) instead of stalling the listing.
 */
import type { IncomingMessage } from 'node:http';
import type { CallPayload, JsonValue } from '@toolwire/protocol';
import { isPlainObject, ToolProtocolError } from '@toolwire/protocol';
import { matchesSearch, searchTerms } from '../catalog/search.js';
import type { Host } from '../server/host.js';
import type { HostSession } from '../server/session.js';
import { within } from '../shared/within.js';
import { summarizeSession, summarizeTool, watchReady } from './views.js';

const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** How long `GET /v1/sessions` waits for first catalogs, in all. */
const SESSIONS_WAIT_MS = 1000;
/** How long a `GET /v1/changes` long poll waits for a change. */
const CHANGES_WAIT_MS = 20_000;

/** A request the API refuses: its HTTP status and the error it answers. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: JsonValue | null = null,
  ) {
    super(message);
  }
}

/** The `error` of an `{ok: false}` answer for anything thrown while answering. */
export function errorBody(error: unknown): {
  code: string;
  message: string;
  retryable: boolean;
  details: JsonValue | null;
} {
  if (error instanceof ControlError) {
    return { code: error.code, message: error.message, retryable: false, details: error.details };
  }
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

/** `id` (exact or a unique prefix) or, without one, the only open session (requirement 3). */
function pickSession(host: Host, id?: unknown): HostSession {
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

/**
 * `POST /v1/pair {page?, extension?, ttlMs?}`: a pairing link for `page`, a pairing address for
 * a browser extension (its id or origin), or a code for any allowed page.
 */
function pairing(host: Host, body: Record<string, unknown>): Record<string, unknown> {
  const ttl = body.ttlMs;
  if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl <= 0)) {
    throw new ControlError(400, 'bad_request', 'ttlMs is a positive whole number.');
  }
  const options = ttl === undefined ? {} : { ttlMs: ttl };
  if (body.page !== undefined && body.extension !== undefined) {
    throw new ControlError(400, 'bad_request', 'Give page or extension, not both.');
  }
  if (body.extension !== undefined) {
    let link: ReturnType<Host['extensionPairing']>;
    try {
      link = host.extensionPairing(String(body.extension), options);
    } catch (error) {
      throw new ControlError(400, 'bad_request', (error as Error).message);
    }
    return {
      address: link.url,
      origin: link.origin,
      expiresAt: new Date(link.expiresAt).toISOString(),
    };
  }
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

export async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
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
  await within(2000, session.refresh());
}

export interface ControlRoutes {
  /**
   * The answer to a request that passed server.ts's checks; a refusal throws ControlError.
   * `body` reads the request's JSON object (an HTTP body, or a channel message's).
   */
  handle(
    method: string,
    url: URL,
    body: () => Promise<Record<string, unknown>>,
  ): Promise<[number, object]>;
  /** Stops following the host and ends every waiting long poll. */
  close(): void;
}

export function controlRoutes(host: Host): ControlRoutes {
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
    // The tab's identity (session.open) may come after the first catalog: a change too.
    ...host.sessions.map((session) => session.on('open', changed)),
    host.on('session', (session) => void session.on('open', changed)),
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
      const timer = setTimeout(wake, CHANGES_WAIT_MS);
      waiting.add(wake);
    });
  };

  const handle = async (
    method: string,
    url: URL,
    readJson: () => Promise<Record<string, unknown>>,
  ): Promise<[number, object]> => {
    const route = `${method} ${url.pathname}`;
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
      const body = await readJson();
      return [200, { ok: true, ...pairing(host, body) }];
    }
    if (!['POST /v1/tools', 'POST /v1/call', 'POST /v1/batch', 'POST /v1/revoke'].includes(route)) {
      throw new ControlError(404, 'not_found', `No ${route}.`);
    }
    const body = await readJson();
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
      const terms = searchTerms(typeof body.query === 'string' ? body.query : '');
      const tools = session
        .tools()
        .filter((tool) => matchesSearch(tool, terms))
        .map((tool) => summarizeTool(tool, session, detail));
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

  return {
    handle,
    close() {
      for (const off of unsubscribe) off();
      for (const wake of [...waiting]) wake();
    },
  };
}
