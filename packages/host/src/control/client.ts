/**
 * The one client of the control API (server.ts), shared by the CLI's commands and by
 * `toolwire mcp --attach`.
 *
 * 1. Requests share kept-alive connections (one pool per process: KEEP_ALIVE below), so a call
 *    from `mcp --attach` costs a request on an open socket, not a TCP handshake.
 *    The server checks the secret on every request all the same (server.ts).
 *    Node never resends a request by itself; this client resends one only when it acts on no
 *    page and its reused socket broke before any answer (the host closed an idle connection as
 *    we wrote): a call or batch is never sent twice.
 * 2. Whatever stops an answer becomes a ControlFailure whose `kind` says what is known:
 *    `unreachable` (no connection was made: the request never reached a host), `cut` (connected,
 *    then broken before a whole answer: the host may have acted on it), `not-a-host` (an answer
 *    that is not the control API's JSON), or `refused` (the API's own `{ok: false, error}`).
 * 3. Callers read a failure their own way: the CLI as exit codes (cli/client.ts: 3 no host,
 *    4 outcome unknown), the MCP bridge as ToolProtocolErrors (`controlRequest` below).
 * 4. `onProgress` asks for a call's progress (`progress: true` in the body) and receives each
 *    report of the streamed answer (server.ts), read as untrusted
 *    (shared/progress.ts). An answer that is not streamed is read as ever.
 * 5. Aborting `signal` drops the connection of a request in flight: the host cancels the call
 *    it made at the page. To learn the outcome instead, send the call with a `cancelKey`
 *    (`newCancelKey()`) and `POST /v1/cancel {cancelKey}`: the call then answers
 *    `tool_call_cancelled` (the CLI's Ctrl-C).
 */
import { randomBytes } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { JsonValue } from '@toolwire/protocol';
import { isPlainObject, ToolProtocolError } from '@toolwire/protocol';
import { errnoText } from '../shared/errors.js';
import type { ProgressListener } from '../shared/progress.js';
import { increasing } from '../shared/progress.js';

export interface ControlTarget {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The control secret (never the page token). */
  token: string;
}

/** The control API's `{ok: true, ...}` answer. */
export type ControlAnswer = Record<string, unknown>;

export type ControlFailureKind = 'unreachable' | 'cut' | 'not-a-host' | 'refused';

/** The `error` of an `{ok: false}` answer, as the server writes it. */
export interface ControlErrorBody {
  code: string;
  message: string;
  retryable: boolean;
  details: JsonValue | null;
}

/** A request that brought no `{ok: true}` answer; `kind` says how far it got (header 2). */
export class ControlFailure extends Error {
  override name = 'ControlFailure';
  readonly kind: ControlFailureKind;
  /** The HTTP status, when an answer came. */
  readonly status: number | undefined;
  /** The answer as sent (`refused`): `{ok: false, error}`. */
  readonly answer: Record<string, unknown> | undefined;
  /** Why the connection failed or broke (`unreachable`, `cut`): an errno code or a message. */
  readonly reason: string | undefined;

  constructor(
    kind: ControlFailureKind,
    message: string,
    details: { status?: number; answer?: Record<string, unknown>; reason?: string } = {},
  ) {
    super(message);
    this.kind = kind;
    this.status = details.status;
    this.answer = details.answer;
    this.reason = details.reason;
  }

  /** The API's error (`refused`), its fields read defensively. */
  get error(): ControlErrorBody {
    const error = isPlainObject(this.answer?.error) ? this.answer.error : {};
    return {
      code: typeof error.code === 'string' ? error.code : `http_${this.status ?? 0}`,
      message: typeof error.message === 'string' ? error.message : '',
      retryable: error.retryable === true,
      details: (error.details ?? null) as JsonValue | null,
    };
  }
}

/**
 * Header 1: the pools. Idle sockets are unref'd (a finished CLI command exits at once) and are
 * dropped a second before the server's announced `Keep-Alive: timeout` (Node's agent reads it).
 */
const KEEP_ALIVE = {
  http: new HttpAgent({ keepAlive: true }),
  https: new HttpsAgent({ keepAlive: true }),
};

/** Paths whose request may make a page run a tool: a cut there leaves the outcome unknown. */
export function actsOnPage(path: string): boolean {
  return path === '/v1/call' || path === '/v1/batch';
}

/** What a request may carry beside its body. */
export interface ControlRequestOptions {
  /** Aborts the request; a call in flight is cancelled at the page (header 5). */
  signal?: AbortSignal;
  /** Asks for the call's progress and receives each report (header 4). */
  onProgress?: ProgressListener;
  /**
   * A call's `result` as the host's JSON text, parsed only when read (shared/raw-json.ts):
   * asked over the channel (channel.ts 7); plain requests ignore it.
   */
  rawResult?: boolean;
}

/** A key for `POST /v1/cancel`: 128 random bits (header 5). */
export function newCancelKey(): string {
  return randomBytes(16).toString('base64url');
}

/** The streamed answer's content type (server.ts). */
const STREAMED = 'application/x-ndjson';

/**
 * One request to the control API: `body` makes it a POST. Resolves the `{ok: true}` answer;
 * rejects with a ControlFailure, or with the abort reason when `signal` aborts it.
 */
export async function sendControl(
  target: ControlTarget,
  path: string,
  body?: object,
  options: ControlRequestOptions = {},
): Promise<ControlAnswer> {
  const asked = options.onProgress && body ? { ...body, progress: true } : body;
  try {
    return await exchange(target, path, asked, options);
  } catch (error) {
    // Header 1: a kept-alive socket the host had just closed; once, on a fresh one.
    if (!(error instanceof StaleSocket)) throw error;
    return exchange(target, path, asked, options, false);
  }
}

/** A reused socket broke before any answer, on a request that acts on no page (header 1). */
class StaleSocket extends Error {}

function exchange(
  target: ControlTarget,
  path: string,
  body: object | undefined,
  options: ControlRequestOptions,
  reuse = true,
): Promise<ControlAnswer> {
  const { signal } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let connected = false;
    let reused = false;
    let answering = false;
    const broken = (error: unknown) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      if (reused && !answering && !actsOnPage(path)) {
        reject(new StaleSocket());
        return;
      }
      const reason = errnoText(error);
      reject(
        connected
          ? new ControlFailure(
              'cut',
              `the host at ${target.url} closed the connection (${reason})`,
              {
                reason,
              },
            )
          : new ControlFailure('unreachable', `no toolwire host answers at ${target.url}`, {
              reason,
            }),
      );
    };
    const answered = (status: number, text: string) => {
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        answer = undefined;
      }
      try {
        resolve(readAnswer(target, status, answer));
      } catch (error) {
        reject(error);
      }
    };
    try {
      const url = new URL(path, target.url);
      const text = body === undefined ? undefined : JSON.stringify(body);
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send(
        url,
        {
          method: text === undefined ? 'GET' : 'POST',
          // A fresh connection when resending (header 1): the pool may hold more stale ones.
          agent: reuse ? (url.protocol === 'https:' ? KEEP_ALIVE.https : KEEP_ALIVE.http) : false,
          headers: {
            Authorization: `Bearer ${target.token}`,
            ...(text === undefined
              ? {}
              : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }),
          },
          ...(signal ? { signal } : {}),
        },
        (response) => {
          answering = true;
          const chunks: Buffer[] = [];
          const type = String(response.headers['content-type'] ?? '');
          if (type.startsWith(STREAMED)) {
            // Header 4: progress lines, then the answer as the last line.
            const lines = streamedLines(options.onProgress);
            response.on('data', (chunk: Buffer) => lines.push(chunk));
            response.on('end', () => answered(response.statusCode ?? 0, lines.last()));
          } else {
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              answered(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')),
            );
          }
          response.on('error', broken);
          response.on('close', () => {
            if (!response.complete) broken(new Error('the answer was cut short'));
          });
        },
      );
      request.on('socket', (socket) => {
        reused = request.reusedSocket;
        // A kept-alive socket is connected already: listen only on a new one (no listener
        // piles up on a socket that many requests reuse).
        if (!socket.connecting) connected = true;
        else
          socket.once('connect', () => {
            connected = true;
          });
      });
      request.on('error', broken);
      request.end(text);
    } catch (error) {
      broken(error); // an address no request can go to (TOOLWIRE_HOST is not checked early)
    }
  });
}

/**
 * A streamed answer read line by line (header 4): each `{progress}` line goes to `onProgress`
 * as it comes; `last()` is the line after the last progress report, the answer.
 */
function streamedLines(onProgress: ProgressListener | undefined) {
  const report = onProgress ? increasing(onProgress) : () => {};
  let rest = '';
  let answer = '';
  const line = (text: string) => {
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      answer = text; // not JSON: read as the answer, which then fails as not-a-host
      return;
    }
    if (isPlainObject(value) && 'progress' in value && !('ok' in value)) report(value.progress);
    else answer = text;
  };
  return {
    push(chunk: Buffer) {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const text of lines) line(text);
    },
    last() {
      line(rest);
      rest = '';
      return answer;
    },
  };
}

/** The control API's JSON answer as resolved, or the ControlFailure it stands for (header 2). */
export function readAnswer(target: ControlTarget, status: number, answer: unknown): ControlAnswer {
  if (!isPlainObject(answer)) {
    throw new ControlFailure('not-a-host', `${target.url} is not a toolwire host`, { status });
  }
  if (answer.ok === true) return answer;
  const error = isPlainObject(answer.error) ? answer.error : {};
  const message = typeof error.message === 'string' ? error.message : '';
  throw new ControlFailure('refused', message, { status, answer });
}

/**
 * One control API request, its failures as ToolProtocolErrors (what the MCP bridge reports):
 * the host's own code when it answered; `session_not_connected` (retryable) when no host could
 * be reached; `tool_transport_closed` when the connection broke, not retryable for a call (it
 * may have run) and retryable otherwise.
 */
export async function controlRequest(
  target: ControlTarget,
  path: string,
  body?: object,
  options: ControlRequestOptions = {},
): Promise<ControlAnswer> {
  try {
    return await sendControl(target, path, body, options);
  } catch (error) {
    if (!(error instanceof ControlFailure)) throw error;
    throw controlToolError(error, path);
  }
}

/**
 * A ControlFailure as the ToolProtocolError the MCP bridge reports (controlRequest). A call cut
 * mid-way is retryable only for a tool of `read` policy (`policy`, when the caller knows it):
 * it may have run.
 */
export function controlToolError(
  failure: ControlFailure,
  path: string,
  policy?: string,
): ToolProtocolError {
  if (failure.kind === 'refused') {
    const { code, message, retryable, details } = failure.error;
    return new ToolProtocolError(code, message, { retryable, details });
  }
  if (failure.kind === 'unreachable') {
    return new ToolProtocolError('session_not_connected', 'No toolwire host answers.', {
      retryable: true,
      cause: failure,
    });
  }
  if (failure.kind === 'cut' && actsOnPage(path)) {
    // Connected, then cut (the host died mid-call): the call may have run.
    return new ToolProtocolError(
      'tool_transport_closed',
      'The connection to the toolwire host failed during the call; its outcome is unknown (the tool may have run).',
      { retryable: policy === 'read', cause: failure },
    );
  }
  if (failure.kind === 'cut') {
    return new ToolProtocolError('tool_transport_closed', failure.message, {
      retryable: true,
      cause: failure,
    });
  }
  return new ToolProtocolError('tool_protocol_bridge_failed', failure.message, { cause: failure });
}
