/**
 * One page connected to the host (docs/wire.md "Transport and session", "Host behaviour"). The
 * session layer itself (the welcome, session.open, heartbeats and silence, close codes, the tool
 * client, deadlines, cancel and progress) is @toolwire/protocol's HostSessionCore; this class
 * adds what the host knows beyond one connection: the page's catalog and admission.
 *
 * 1. The host assigns the session id and puts it on every request. The page's `session.open`
 *    (who it is) is read when it comes; the host does not wait for it to query.
 * 2. A new session fetches its catalog at once (`tool.query {detail:"index"}`, then definitions);
 *    `tool.catalog.changed` pushes and the optional poll refresh it with both revisions.
 * 3. `call` refuses an id the last catalog did not list (after one conditional refresh, in case
 *    the page just added it) and an id whose policy exceeds the grant (`tool_execution_denied`,
 *    `details.deniedBy: "host-grant"`, as the page answers).
 * 4. On `tool_not_found` from the page: refresh the catalog (index without ifRevision) and
 *    retry **once**, with a new request id, if the tool is listed and granted after all.
 * 5. Responses are decoded before correlation (createToolClient); the byte counts of
 *    compressed responses are recorded in `stats`.
 * 6. A call's deadline travels in its payload (the caller's `timeoutMs`, else `callTimeoutMs`,
 *    60 s); the host fails it with `tool_timeout` 2 s after. A `tool_timeout` or
 *    `tool_transport_closed` of a call is retryable only for a `read` tool (or a request that
 *    never left); queries stay retryable. An aborted signal cancels the call on the page.
 * 7. The page's guard report (`session.open`, `tool.catalog.changed`) names the tools its guard
 *    hides: a call to one is refused as hidden by the page's guard (`tool_execution_denied`,
 *    `details.deniedBy: "page-guard"`), not as unknown.
 */
import type {
  BatchPayload,
  BatchResultPayload,
  CallPayload,
  CatalogPayload,
  CodecLimits,
  DecodedResponse,
  ErrorPayload,
  GuardReport,
  InflateText,
  ProgressReport,
  QueryPayload,
  RequestOptions,
  RequestType,
  ResultPayload,
  ToolPolicy,
  ToolRequestOptions,
  Transport,
  TransportCloseInfo,
  WelcomeProof,
} from '@toolwire/protocol';
import {
  HostSessionCore,
  isPlainObject,
  isToolCapability,
  POLICY_RANK,
  readGuardReport,
  ToolProtocolError,
} from '@toolwire/protocol';
import type { CatalogChange, HostTool } from '../catalog/cache.js';
import { CatalogCache } from '../catalog/cache.js';
import { Emitter } from '../shared/emitter.js';
import { deniedError } from '../shared/errors.js';
import { nodeInflateText } from './inflate.js';

/** What the page said about itself in `session.open` (clipped: it is the page's word only). */
export interface SessionInfo {
  sdk: { name: string; version: string };
  page: { origin: string; url: string; title: string };
  /** The page's own key, the same across its reconnects; null when it sent none. */
  key: string | null;
  /** The page's guard as it reported it; null when it sent none. */
  guard: GuardReport | null;
}

export interface SessionStats {
  requests: number;
  responses: number;
  /** Responses that were `tool.error`. */
  errors: number;
  /** Responses that arrived as `$ansightEncoding` wrappers, and their byte counts. */
  encodedResponses: number;
  originalBytes: number;
  compressedBytes: number;
}

export interface SessionEvents extends Record<string, unknown> {
  /** `session.open` arrived. */
  open: SessionInfo;
  /** A refresh changed the catalog (the first listing included). */
  catalog: CatalogChange;
  close: TransportCloseInfo;
  /** A background refresh failed (the next push, poll or call tries again). */
  error: Error;
}

export interface HostSessionOptions {
  id: string;
  transport: Transport;
  /** The upgrade's Origin header: the browser's word, unlike `info.page.origin`. */
  origin: string | null;
  /** The client grant: the highest policy this host will call. */
  grant: ToolPolicy;
  /** The local timeout of catalog queries and raw requests. Default 20 s. */
  timeoutMs?: number;
  /** A call's or batch's deadline when its caller names none (the host waits 2 s more). Default 60 s. */
  callTimeoutMs?: number;
  limits?: CodecLimits;
  /** The gunzip step for compressed responses. Default: node:zlib (nodeInflateText). */
  inflate?: InflateText;
  /** Also refresh the catalog this often (for SDKs that never push). 0 = only on push. */
  pollIntervalMs?: number;
  /** This host run's id, told to the page in `session.welcome`. */
  hostRun?: string;
  /** Ping this often; three silent intervals close the session. Default 0 (off). */
  heartbeatIntervalMs?: number;
  /** The id of the pairing this page resumed (`?credential-id=`). */
  pairingId?: string;
  /** The socket came with a pairing code: a new pairing is kept once the page proved itself. */
  paired?: boolean;
  /**
   * The socket came with a delegate of an extension's credential (`?delegate-of=`): the page's
   * socket, opened by that extension's content script. `pairingId` is the extension's pairing.
   */
  delegated?: boolean;
  /** In the welcome: the host's proof that it holds the socket's secret (docs/wire.md "The handshake"). */
  proof?: WelcomeProof;
  /** In the welcome: the public id of the host's identity. */
  hostId?: string;
  /** Checks the page's proof in `session.open`: no request leaves before it passed. */
  verifyPageProof?: (proof: string | undefined) => boolean;
  /** Ask the page, in the welcome, to gzip large payloads (true) or not (false). Default: unsaid. */
  compressPayloads?: boolean;
}

/** How a call or batch is sent: its deadline, its cancel, its progress. */
export interface ToolCallOptions {
  /** Aborting it cancels the request on the page and rejects at once with `tool_call_cancelled`. */
  signal?: AbortSignal;
  /**
   * The deadline (ms) the page keeps; the host gives up 2 s later with `tool_timeout`. Default:
   * the session's `callTimeoutMs` (60 s); 0: none.
   */
  timeoutMs?: number;
  /** Asks the page for progress: each `session.progress` of the request, growing, comes here. */
  onProgress?: (report: ProgressReport) => void;
}

export interface CallOptions extends ToolCallOptions {
  callId?: string;
  after?: CallPayload['after'];
}

export interface BatchOptions extends ToolCallOptions {
  continueOnError?: boolean;
}

const MAX_INFO_TEXT = 2048;

function text(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value.slice(0, MAX_INFO_TEXT) : fallback;
}

function readInfo(payload: unknown): SessionInfo {
  const body = isPlainObject(payload) ? payload : {};
  const sdk = isPlainObject(body.sdk) ? body.sdk : {};
  const page = isPlainObject(body.page) ? body.page : {};
  return {
    sdk: { name: text(sdk.name, 'unknown'), version: text(sdk.version) },
    page: { origin: text(page.origin), url: text(page.url), title: text(page.title) },
    key: typeof body.session === 'string' && body.session !== '' ? text(body.session) : null,
    guard: readGuardReport(body.guard) ?? null,
  };
}

export class HostSession extends Emitter<SessionEvents> {
  readonly id: string;
  readonly origin: string | null;
  readonly grant: ToolPolicy;
  /**
   * The id of the pairing this session's tab holds (`toolwire pairings` shows its start):
   * undefined for the page token, and on a pairing code's socket until the page proved itself.
   */
  pairingId: string | undefined;
  /** True when this socket spent a pairing code (a new pairing, kept once the page proved itself). */
  readonly paired: boolean;
  /** True when the socket came with a delegate of an extension's pairing (`?delegate-of=`). */
  readonly delegated: boolean;
  readonly connectedAt = new Date();
  readonly catalog = new CatalogCache();
  readonly stats: SessionStats = {
    requests: 0,
    responses: 0,
    errors: 0,
    encodedResponses: 0,
    originalBytes: 0,
    compressedBytes: 0,
  };
  /** Settles (never rejects) once the first catalog refresh has finished, well or not. */
  readonly ready: Promise<void>;
  /** Resolves when the connection ends. */
  readonly closed: Promise<TransportCloseInfo>;

  #core: HostSessionCore;
  #info: SessionInfo | null = null;
  #resolveClosed!: (info: TransportCloseInfo) => void;
  #poll: ReturnType<typeof setInterval> | undefined;
  #refreshing: Promise<CatalogChange> | undefined;
  #queued: Promise<CatalogChange> | undefined;
  #queuedForce = false;
  #guard: GuardReport | null = null;

  constructor(options: HostSessionOptions) {
    super();
    this.id = options.id;
    this.origin = options.origin;
    this.grant = options.grant;
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    this.pairingId = options.pairingId;
    this.paired = options.paired === true;
    this.delegated = options.delegated === true;
    this.#core = new HostSessionCore({
      id: options.id,
      transport: options.transport,
      grant: options.grant,
      hostRun: options.hostRun ?? '',
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 0,
      ...(options.proof ? { proof: options.proof } : {}),
      ...(options.hostId === undefined ? {} : { hostId: options.hostId }),
      ...(options.verifyPageProof ? { verifyPageProof: options.verifyPageProof } : {}),
      ...(options.compressPayloads === undefined
        ? {}
        : { compressPayloads: options.compressPayloads }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.callTimeoutMs === undefined ? {} : { callTimeoutMs: options.callTimeoutMs }),
      ...(options.limits ? { limits: options.limits } : {}),
      inflate: options.inflate ?? nodeInflateText,
      onOpen: this.#onOpen,
      onMessage: this.#onMessage,
      onClose: this.#finish,
    });
    // docs/wire.md: a new session triggers tool.query {detail:"index"} at once.
    this.ready = this.refresh().then(
      () => undefined,
      () => undefined,
    );
    const every = options.pollIntervalMs ?? 0;
    if (every > 0) {
      this.#poll = setInterval(() => void this.refresh().catch(() => {}), every);
      this.#poll.unref?.();
    }
  }

  /** The page's guard as last reported (session.open, then each catalog push); null if none. */
  get pageGuard(): GuardReport | null {
    return this.#guard;
  }

  /** `session.open` as the page sent it; null until it arrives. */
  get info(): SessionInfo | null {
    return this.#info;
  }

  get isOpen(): boolean {
    return this.#core.isOpen;
  }

  get pendingCount(): number {
    return this.#core.pendingCount;
  }

  /** The tools of the last catalog, sorted by id. */
  tools(): readonly HostTool[] {
    return this.catalog.list();
  }

  /** True when the grant covers `policy`: this host calls such a tool. */
  grants(policy: ToolPolicy): boolean {
    return POLICY_RANK[policy] <= POLICY_RANK[this.grant];
  }

  /**
   * Brings the catalog up to date. A refresh asked for while one runs is queued behind it (that
   * one may have asked before the change that prompted this one); further asks join the queue.
   */
  refresh(options: { force?: boolean } = {}): Promise<CatalogChange> {
    if (!this.#refreshing) return this.#startRefresh(options.force === true);
    this.#queuedForce ||= options.force === true;
    this.#queued ??= this.#refreshing
      .catch(() => undefined)
      .then(() => {
        const force = this.#queuedForce;
        this.#queued = undefined;
        this.#queuedForce = false;
        return this.#startRefresh(force);
      });
    return this.#queued;
  }

  #startRefresh(force: boolean): Promise<CatalogChange> {
    const run = this.#runRefresh(force);
    this.#refreshing = run;
    const clear = () => {
      if (this.#refreshing === run) this.#refreshing = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  async #runRefresh(force: boolean): Promise<CatalogChange> {
    let change: CatalogChange;
    try {
      change = await this.catalog.refresh(this.#query, { force });
    } catch (error) {
      // A page that refuses discovery has, as far as this host can tell, no tools.
      if (!(error instanceof ToolProtocolError) || error.code !== 'tool_discovery_disabled') {
        this.emit('error', error as Error);
        throw error;
      }
      change = this.catalog.clear();
    }
    if (change !== 'none') this.emit('catalog', change);
    return change;
  }

  #query = async (payload: QueryPayload): Promise<CatalogPayload> =>
    (await this.#expect('tool.query', payload, {})) as CatalogPayload;

  /**
   * Calls one tool. Resolves the `tool.result` payload; rejects with a
   * ToolProtocolError carrying the page's code, or a local one.
   */
  async call(
    toolId: string,
    args?: Record<string, unknown> | null,
    options: CallOptions = {},
  ): Promise<ResultPayload> {
    const { callId, after, ...control } = options;
    // Awaited only when the catalog must be refreshed first: a listed, granted tool is sent at once.
    const admitting = this.#admit(toolId);
    if (admitting) await cancellable(admitting, control.signal);
    const payload: CallPayload = { toolId };
    if (args !== undefined) payload.arguments = args as CallPayload['arguments'];
    if (callId !== undefined) payload.callId = callId;
    if (after !== undefined) payload.after = after;
    try {
      return (await this.#send('tool.call', payload, control, toolId)) as ResultPayload;
    } catch (error) {
      if (!(error instanceof ToolProtocolError) || error.code !== 'tool_not_found') throw error;
      // The page lost the tool since our last catalog (a reload, a re-registration).
      await cancellable(
        this.refresh({ force: true }).catch(() => undefined),
        control.signal,
      );
      const refusal = this.#refusal(toolId);
      if (refusal) throw refusal.code === 'tool_not_found' ? error : refusal;
      return (await this.#send('tool.call', payload, control, toolId)) as ResultPayload;
    }
  }

  /**
   * Runs a batch (the page runs its calls in order, under one deadline). Every item naming a
   * tool is checked as a call would be before anything is sent; items that name none are the
   * page's to refuse.
   */
  async batch(calls: CallPayload[], options: BatchOptions = {}): Promise<BatchResultPayload> {
    const { continueOnError, ...control } = options;
    if (!Array.isArray(calls)) {
      throw new ToolProtocolError('tool_batch_payload_invalid', 'A batch needs a calls array.');
    }
    const toolIds: string[] = [];
    for (const [index, call] of calls.entries()) {
      if (!isPlainObject(call) || typeof call.toolId !== 'string' || call.toolId.trim() === '') {
        continue;
      }
      toolIds.push(call.toolId);
      try {
        const admitting = this.#admit(call.toolId);
        if (admitting) await cancellable(admitting, control.signal);
      } catch (error) {
        const local = error as ToolProtocolError;
        if (local.code === 'tool_call_cancelled') throw local;
        throw new ToolProtocolError(local.code, `Batch call ${index}: ${local.message}`, {
          retryable: local.retryable,
          details: { index, ...(isPlainObject(local.details) ? local.details : {}) },
        });
      }
    }
    const payload: BatchPayload = { calls };
    if (continueOnError !== undefined) payload.continueOnError = continueOnError;
    return (await this.#send('tool.batch', payload, control, toolIds)) as BatchResultPayload;
  }

  /** A raw `tool.query`, answered as the page answers it (the cache is not touched). */
  async query(payload: QueryPayload = {}, options: RequestOptions = {}): Promise<CatalogPayload> {
    return (await this.#expect('tool.query', payload, options)) as CatalogPayload;
  }

  /** Any request, no host checks; resolves whatever came back (tool.error included). */
  async request(
    type: RequestType,
    payload: unknown,
    options: RequestOptions = {},
  ): Promise<DecodedResponse> {
    this.stats.requests++;
    const response = await this.#core.request(type, payload, options);
    this.#count(response);
    return response;
  }

  /**
   * A call or batch under its deadline, its signal and its progress; the page's error thrown.
   * `control` is the caller's options as this session's own copy (it gains `idempotent`).
   */
  async #send(
    type: 'tool.call' | 'tool.batch',
    payload: CallPayload | BatchPayload,
    control: ToolRequestOptions,
    toolIds: string | readonly string[],
  ): Promise<unknown> {
    // Sent twice, only a tool that reads does nothing twice.
    if (!this.#allRead(toolIds)) control.idempotent = false;
    this.stats.requests++;
    const response = await this.#core.send(
      type,
      payload as unknown as Record<string, unknown>,
      control,
    );
    this.#count(response);
    if (response.type === 'tool.error') {
      throw ToolProtocolError.fromPayload(response.payload as ErrorPayload);
    }
    return response.payload;
  }

  /** True when every tool named is listed with the `read` policy. */
  #allRead(toolIds: string | readonly string[]): boolean {
    if (typeof toolIds === 'string') return this.catalog.get(toolIds)?.policy === 'read';
    for (const id of toolIds) if (this.catalog.get(id)?.policy !== 'read') return false;
    return true;
  }

  #count(response: DecodedResponse): void {
    const stats = this.stats;
    stats.responses++;
    if (response.type === 'tool.error') stats.errors++;
    if (response.encoding) {
      stats.encodedResponses++;
      stats.originalBytes += response.encoding.originalByteCount ?? 0;
      stats.compressedBytes += response.encoding.compressedByteCount ?? 0;
    }
  }

  /** Ends the session: pending requests fail at once with `tool_transport_closed`. */
  close(reason = 'closed by the host', code = 1000): void {
    this.#core.close(reason, code);
  }

  async #expect(type: RequestType, payload: unknown, options: RequestOptions): Promise<unknown> {
    const response = await this.request(type, payload, options);
    if (response.type === 'tool.error') {
      throw ToolProtocolError.fromPayload(response.payload as ErrorPayload);
    }
    return response.payload;
  }

  /**
   * Throws the local refusal for `toolId`, refreshing once if the catalog does not list it.
   * Synchronous (undefined) when the answer is known now; a promise only when it refreshes.
   */
  #admit(toolId: string): Promise<void> | undefined {
    if (typeof toolId !== 'string' || toolId.trim() === '') {
      throw new ToolProtocolError('tool_call_missing_id', 'A tool call needs a toolId.');
    }
    if (!this.isOpen) {
      throw new ToolProtocolError('tool_transport_closed', 'The connection is closed.');
    }
    const refusal = this.#refusal(toolId);
    if (refusal?.code === 'tool_not_found') {
      return this.refresh()
        .catch(() => undefined)
        .then(() => {
          const again = this.#refusal(toolId);
          if (again) throw again;
        });
    }
    if (refusal) throw refusal;
    return undefined;
  }

  #refusal(toolId: string): ToolProtocolError | undefined {
    const tool = this.catalog.get(toolId);
    const hidden = tool ? undefined : this.#guard?.hidden.find((entry) => entry.id === toolId);
    if (hidden && this.#guard) {
      return deniedError('page-guard', toolId, hidden.policy, guardName(this.#guard), {
        sessionId: this.id,
      });
    }
    if (!tool) {
      return new ToolProtocolError(
        'tool_not_found',
        `Tool "${toolId}" is not in this session's catalog; query the catalog before calling.`,
        { details: { toolId, sessionId: this.id, source: 'host' } },
      );
    }
    if (!this.grants(tool.policy)) {
      return deniedError('host-grant', toolId, tool.policy, this.grant, { sessionId: this.id });
    }
    return undefined;
  }

  #onOpen = (payload: unknown): void => {
    this.#info = readInfo(payload);
    this.#guard = this.#info.guard;
    this.emit('open', this.#info);
  };

  #onMessage = (message: Record<string, unknown>): void => {
    // toolwire's push (docs/wire.md "Not yet in the protocol"); a stale one costs one `unchanged`.
    if (message.type === 'tool.catalog.changed' && isToolCapability(message.capability)) {
      const payload = isPlainObject(message.payload) ? message.payload : {};
      const guard = readGuardReport(payload.guard);
      if (guard) this.#guard = guard;
      // Known only when no refresh runs: one that does may be about to commit an older state.
      if (
        !this.#refreshing &&
        payload.revision === this.catalog.revision &&
        (payload.availabilityRevision ?? null) === this.catalog.availabilityRevision
      ) {
        return;
      }
      void this.refresh().catch(() => {});
    }
  };

  #finish = (info: TransportCloseInfo): void => {
    clearInterval(this.#poll);
    this.#resolveClosed(info);
    this.emit('close', info);
  };
}

/**
 * `pending`, rejected at once with `tool_call_cancelled` when `signal` aborts first (a call
 * waiting for the catalog before it is sent is cancelled then too).
 */
function cancellable<T>(pending: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return pending;
  const cancelled = () =>
    new ToolProtocolError('tool_call_cancelled', 'The call was cancelled before it was sent.', {
      cause: signal.reason,
    });
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** `read-only`, or `read-only, discovery off` and the like: the guard as a person reads it. */
export function guardName(guard: GuardReport): string {
  const base = guard.preset ?? `up to ${guard.maxPolicy}`;
  if (!guard.discoveryEnabled) return `${base}, discovery off`;
  if (!guard.executionEnabled) return `${base}, execution off`;
  return base;
}
