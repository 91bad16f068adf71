/**
 * What each control API route answers, once server.ts has checked who asks.
 *
 * 1. `GET /v1/sessions`, `POST /v1/tools {session?, detail?, query?}`,
 *    `POST /v1/call {session?, toolId, arguments?, after?, timeoutMs?, progress?, cancelKey?}`,
 *    `POST /v1/batch {session?, calls, continueOnError?, timeoutMs?, progress?, cancelKey?}`,
 *    `POST /v1/cancel {cancelKey}`, `POST /v1/pair {page?, extension?, ttlMs?}`,
 *    `POST /v1/revoke {session} | {pairing} | {all: true}`, `GET /v1/pairings`, and
 *    `GET /v1/changes?after=N`: a long poll (up to 20 s) for a
 *    change counter that moves when a session opens or closes, its page names its tab
 *    (`session.open`) or a catalog changes (`toolwire mcp --attach` follows it).
 * 2. Answers are `{ok: true, ...}` or `{ok: false, error: {code, message, retryable, details}}`:
 *    HTTP 200 when the tool or the page said no, 404 `session_not_connected` when there is no
 *    such session, 409 `session_ambiguous` when the request does not say which of several,
 *    400 for a malformed request. A call's failure carries the code and `retryable` the
 *    session gave it, unchanged.
 * 3. No `session` is fine while exactly one is open. With several, the request is refused: the
 *    newest connection is not necessarily the page the user means, and any page of an allowed
 *    origin could otherwise receive the next call's arguments. An id prefix is enough when unique.
 * 4. `GET /v1/sessions` waits for first catalogs at most SESSIONS_WAIT_MS: a silent page shows
 *    `tools: null` (loading) instead of stalling the listing.
 * 5. A call or batch is cancelled at the page (`tool_call_cancelled`) when its asker goes away
 *    (the transport aborts `context.signal`: an HTTP request whose connection closed, a channel
 *    that dropped), or when `POST /v1/cancel` names the `cancelKey` it was sent with. A cancel
 *    that comes before its call (they travel on two connections) is remembered for
 *    CANCELLED_KEY_MS, and that call is answered `tool_call_cancelled` without running.
 * 6. Deadlines: `timeoutMs` (ms, 1..MAX_TIMEOUT_MS) travels to the page with the call; without
 *    it, the host's own (`callTimeoutMs`, 60 s unless `toolwire host --timeout` says).
 * 7. Progress: a call or batch with `progress: true` asks the page for progress reports, and
 *    each goes to `context.progress` (server.ts streams them, the channel sends them as
 *    messages) before the answer. Without it, or without a `context.progress`, nothing is asked.
 * 8. Pairings (control/pairings.ts): `GET /v1/pairings` lists the kept pairings without their
 *    secrets. `POST /v1/revoke {pairing: ID}` (an id or a unique prefix: 404
 *    `pairing_not_found`, 409 `pairing_ambiguous` naming each match) and `{all: true}` forget
 *    pairings and close their sessions with 4403.
 */
import type { IncomingMessage } from 'node:http';
import type { CallPayload, JsonValue } from '@toolwire/protocol';
import { isPlainObject, ToolProtocolError } from '@toolwire/protocol';
import { matchesSearch, searchTerms } from '../catalog/search.js';
import type { Host } from '../server/host.js';
import type { HostSession } from '../server/session.js';
import type { ProgressListener } from '../shared/progress.js';
import { within } from '../shared/within.js';
import { findPairing, pairingList, summarizePairing } from './pairings.js';
import { summarizeSession, summarizeTool, watchReady } from './views.js';

const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** The longest deadline a call may name (about 24.8 days: what a timer can wait). */
const MAX_TIMEOUT_MS = 2_147_483_647;
/** How long a cancel for a call not yet seen is remembered. */
const CANCELLED_KEY_MS = 60_000;
/** How many such cancels are remembered at most (the oldest goes first). */
const MAX_CANCELLED_KEYS = 1024;
/** A cancel key's length bounds. */
const CANCEL_KEY_LENGTH = { min: 8, max: 128 };
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

/** `id` (exact or a unique prefix) or, without one, the only open session. */
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

/** `POST /v1/revoke {pairing}` or `{all: true}`: what was revoked. */
function revokePairings(host: Host, body: Record<string, unknown>): JsonValue[] {
  if (body.session !== undefined || (body.pairing !== undefined && body.all !== undefined)) {
    throw new ControlError(400, 'bad_request', 'Name one of session, pairing or all.');
  }
  const pairings = host.pairings();
  if (body.all !== undefined) {
    if (body.all !== true) throw new ControlError(400, 'bad_request', 'all is true.');
    host.revokeAllPairings();
    return pairings.map((view) => summarizePairing(view) as unknown as JsonValue);
  }
  if (typeof body.pairing !== 'string' || body.pairing === '') {
    throw new ControlError(400, 'bad_request', 'pairing is an id (or a unique prefix).');
  }
  const match = findPairing(pairings, body.pairing);
  if (!match.found) {
    if (match.matches.length > 1) {
      throw new ControlError(
        409,
        'pairing_ambiguous',
        `Pairing "${body.pairing}" matches ${match.matches.length} pairings: ${pairingList(match.matches)}; give more of the id`,
        { pairings: match.matches.map((view) => view.id) },
      );
    }
    throw new ControlError(404, 'pairing_not_found', `No pairing "${body.pairing}".`);
  }
  host.revokePairing(match.found.id);
  return [summarizePairing(match.found) as unknown as JsonValue];
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

/** What the transport knows of one request beside its body. */
interface RequestContext {
  /** Aborted when the asker went away (its connection or channel closed). */
  signal?: AbortSignal;
  /** Sends a call's progress report to the asker before the answer; absent: none is asked. */
  progress?: ProgressListener;
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
    context?: RequestContext,
  ): Promise<[number, object]>;
  /** Stops following the host and ends every waiting long poll. */
  close(): void;
}

/** `timeoutMs` of a call or batch: undefined, or a whole number of ms in range. */
function readTimeout(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 1 ||
    value > MAX_TIMEOUT_MS
  ) {
    throw new ControlError(
      400,
      'bad_request',
      `timeoutMs is a whole number of milliseconds, 1 to ${MAX_TIMEOUT_MS}.`,
    );
  }
  return value;
}

function readCancelKey(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (
    typeof value !== 'string' ||
    value.length < CANCEL_KEY_LENGTH.min ||
    value.length > CANCEL_KEY_LENGTH.max
  ) {
    throw new ControlError(
      400,
      'bad_request',
      `cancelKey is a string of ${CANCEL_KEY_LENGTH.min} to ${CANCEL_KEY_LENGTH.max} characters.`,
    );
  }
  return value;
}

function cancelledError(message: string): ToolProtocolError {
  return new ToolProtocolError('tool_call_cancelled', message, { retryable: false });
}

/** Calls in flight by cancel key, and cancels that came before their call. */
function cancelKeys() {
  const inFlight = new Map<string, AbortController>();
  /** Key -> when its cancel came; insertion order is age order. */
  const early = new Map<string, number>();
  const forget = (now: number) => {
    for (const [key, at] of early) {
      if (now - at < CANCELLED_KEY_MS && early.size <= MAX_CANCELLED_KEYS) break;
      early.delete(key);
    }
  };
  return {
    /** A call's controller, aborted by a cancel naming `key` (or already, by an early one). */
    enter(key: string): AbortController {
      if (inFlight.has(key)) {
        throw new ControlError(400, 'bad_request', 'cancelKey names a call already in flight.');
      }
      const controller = new AbortController();
      forget(Date.now());
      if (early.delete(key)) {
        controller.abort(cancelledError('The call was cancelled before it reached the host.'));
      }
      inFlight.set(key, controller);
      return controller;
    },
    leave(key: string, controller: AbortController): void {
      if (inFlight.get(key) === controller) inFlight.delete(key);
    },
    /** True when a call in flight had `key`; otherwise the cancel waits for its call. */
    cancel(key: string): boolean {
      const controller = inFlight.get(key);
      if (controller) {
        controller.abort(cancelledError('The call was cancelled by its caller.'));
        return true;
      }
      const now = Date.now();
      early.delete(key);
      early.set(key, now);
      forget(now);
      return false;
    },
  };
}

export function controlRoutes(host: Host): ControlRoutes {
  const cancels = cancelKeys();
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
    context: RequestContext = {},
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
    if (route === 'GET /v1/pairings') {
      const pairings = host.pairings().map((view) => summarizePairing(view));
      return [200, { ok: true, hostId: host.hostId, pairings }];
    }
    if (route === 'POST /v1/pair') {
      const body = await readJson();
      return [200, { ok: true, ...pairing(host, body) }];
    }
    if (route === 'POST /v1/cancel') {
      const key = readCancelKey((await readJson()).cancelKey);
      if (key === undefined) throw new ControlError(400, 'bad_request', 'cancelKey is required.');
      return [200, { ok: true, cancelled: cancels.cancel(key) }];
    }
    if (!['POST /v1/tools', 'POST /v1/call', 'POST /v1/batch', 'POST /v1/revoke'].includes(route)) {
      throw new ControlError(404, 'not_found', `No ${route}.`);
    }
    const body = await readJson();
    if (route === 'POST /v1/revoke' && (body.pairing !== undefined || body.all !== undefined)) {
      return [200, { ok: true, revoked: revokePairings(host, body) }];
    }
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
    if (route === 'POST /v1/call') {
      if (typeof body.toolId !== 'string' || body.toolId === '') {
        throw new ControlError(400, 'bad_request', 'toolId is required.');
      }
      if (body.arguments !== undefined && !isPlainObject(body.arguments)) {
        throw new ControlError(400, 'bad_request', 'arguments must be an object.');
      }
    } else if (!Array.isArray(body.calls)) {
      throw new ControlError(400, 'bad_request', 'calls is required.');
    }
    // The deadline, who may cancel it, and whether progress is asked for.
    const timeoutMs = readTimeout(body.timeoutMs);
    const key = readCancelKey(body.cancelKey);
    const cancel = key === undefined ? undefined : cancels.enter(key);
    const signals = [context.signal, cancel?.signal].filter((one) => one !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const request = {
      ...(signal ? { signal } : {}),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(body.progress === true && context.progress ? { onProgress: context.progress } : {}),
    };
    try {
      await session.ready;
      if (signal?.aborted) {
        throw signal.reason instanceof ToolProtocolError
          ? signal.reason
          : cancelledError('The call was cancelled: its caller went away.');
      }
      if (route === 'POST /v1/call') {
        const result = await session.call(
          body.toolId as string,
          body.arguments as Record<string, unknown> | undefined,
          {
            ...request,
            ...(isPlainObject(body.after) ? { after: body.after as CallPayload['after'] } : {}),
          },
        );
        return [200, { ok: true, session: session.id, result }];
      }
      const result = await session.batch(body.calls as CallPayload[], {
        ...request,
        ...(body.continueOnError === true ? { continueOnError: true } : {}),
      });
      return [200, { ok: true, session: session.id, result }];
    } catch (error) {
      if (error instanceof ControlError) throw error;
      return [200, { ok: false, session: session.id, error: errorBody(error) }];
    } finally {
      if (key !== undefined && cancel) cancels.leave(key, cancel);
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
