/**
 * toolwire's session messages, beside the `tool.*` vocabulary (docs/wire.md "Session messages":
 * toolwire may add messages outside the tool request names; a receiver that does not know one
 * ignores it, as an unknown type).
 *
 * 1. `session.open` (page -> host, once per socket): who the page is, its own guard, and the ids
 *    its guard hides (so a host can say "hidden by the page's guard" instead of "not found").
 * 2. `session.welcome` (host -> page, first thing on every socket): the host's grant
 *    (`maxToolPolicy`, which lowers what the page will execute, never raises it), the heartbeat
 *    interval, the host run, the host's proof that it holds the socket's secret (`proof`,
 *    proof.ts) and its identity's public id (`hostId`), and whether it wants large payloads
 *    gzipped (`compressPayloads`, an extension: a non-boolean is read as absent). The page's
 *    `session.open` answers a proven welcome with its own `proof`.
 * 3. `session.ping` / `session.pong`: heartbeats both ways; any message counts as a sign of life.
 * 4. `session.cancel` (host -> page): the caller gave up on a pending `tool.call` or `tool.batch`
 *    (`requestId`, its envelope id); the page aborts it and answers `tool_call_cancelled`.
 * 5. `session.progress` (page -> host): how far a pending request that asked (`progress: true`)
 *    has got; `progress` only grows.
 * 6. `tool.catalog.changed` (page -> host): both revisions and the guard report, pushed when
 *    either changes.
 * Pure types, builders and readers (guards that also check and clip a peer's word): no runtime
 * imports. test/fixtures/session-*.json and catalog-changed.json hold each one as written.
 */
import type { ToolPolicy } from '../messages.js';
import { isPlainObject, isToolCapability, TOOL_CAPABILITY } from '../messages.js';

export const SESSION_MESSAGE_TYPES = [
  'session.open',
  'session.welcome',
  'session.ping',
  'session.pong',
  'session.cancel',
  'session.progress',
  'tool.catalog.changed',
] as const;
export type SessionMessageType = (typeof SESSION_MESSAGE_TYPES)[number];

/** The page's guard as it reports it (the page's word: it decides what it serves). */
export interface GuardReport {
  discoveryEnabled: boolean;
  executionEnabled: boolean;
  maxPolicy: ToolPolicy;
  /** The preset's name when the guard is one, for people reading it. */
  preset?: string;
  /** Tools the guard keeps out of the catalog, by id, with their policies (at most 1,000). */
  hidden: { id: string; policy: ToolPolicy }[];
}

export interface SessionOpenPayload {
  sdk: { name: string; version: string };
  page: { origin: string; url: string; title: string };
  /** The page's own key, the same across its reconnects. */
  session: string;
  guard?: GuardReport;
  /**
   * The page's proof that it holds the socket's secret (proof.ts `pageProof`), after it checked
   * the host's. Absent from a page that sent no nonce (an older page, another SDK).
   */
  proof?: string;
}

/** The host's proof in `session.welcome`: its nonce for this socket, and the MAC (proof.ts). */
export interface WelcomeProof {
  nonce: string;
  mac: string;
}

export interface SessionWelcomePayload {
  /** The host's id for this session (also on every request). */
  sessionId: string;
  /** Random per host run (a new process gets a new one). */
  hostRun: string;
  /** The host's grant. The page executes nothing above it (docs/wire.md "Authorization"). */
  maxToolPolicy: ToolPolicy;
  /** The host pings this often; a side that hears nothing for three intervals closes. 0 = off. */
  heartbeatIntervalMs: number;
  /** Only when the page sent a nonce: the host holds the socket's secret (proof.ts). */
  proof?: WelcomeProof;
  /** The public id of the host's identity, the same across its runs. */
  hostId?: string;
  /**
   * Whether the host wants large response payloads gzipped (docs/wire.md "Large payloads"), a
   * toolwire extension: absent (or not a boolean), the page keeps its own default.
   */
  compressPayloads?: boolean;
}

/** `session.cancel`: the caller gave up on request `requestId` (a pending call or batch). */
export interface SessionCancelPayload {
  requestId: string;
  /** Why, for people reading logs. */
  reason?: string;
}

/** `session.progress`: how far request `requestId` has got (`progress` only grows). */
export interface SessionProgressPayload {
  requestId: string;
  progress: number;
  total?: number;
  message?: string;
}

/** A progress report as a tool makes it and a caller receives it. */
export interface ProgressReport {
  progress: number;
  total?: number;
  message?: string;
}

export interface CatalogChangedPayload {
  revision: string;
  availabilityRevision?: string;
  guard?: GuardReport;
}

interface SessionEnvelope<T extends SessionMessageType, P> {
  type: T;
  id: string;
  sentAt: string;
  sessionId?: string | null;
  replyTo?: string | null;
  capability?: string;
  payload: P;
}

export type SessionOpenMessage = SessionEnvelope<'session.open', SessionOpenPayload>;
export type SessionWelcomeMessage = SessionEnvelope<'session.welcome', SessionWelcomePayload>;
export type SessionPingMessage = SessionEnvelope<'session.ping', Record<string, never>>;
export type SessionPongMessage = SessionEnvelope<'session.pong', Record<string, never>>;
export type SessionCancelMessage = SessionEnvelope<'session.cancel', SessionCancelPayload>;
export type SessionProgressMessage = SessionEnvelope<'session.progress', SessionProgressPayload>;
export type CatalogChangedMessage = SessionEnvelope<'tool.catalog.changed', CatalogChangedPayload>;
export type SessionMessage =
  | SessionOpenMessage
  | SessionWelcomeMessage
  | SessionPingMessage
  | SessionPongMessage
  | SessionCancelMessage
  | SessionProgressMessage
  | CatalogChangedMessage;

const randomPart = (): string =>
  typeof crypto !== 'undefined' && 'randomUUID' in crypto
    ? crypto.randomUUID()
    : String(Math.random()).slice(2);

function envelope<T extends SessionMessageType, P>(
  type: T,
  payload: P,
  extra: { sessionId?: string | null; replyTo?: string } = {},
): SessionEnvelope<T, P> {
  return {
    type,
    id: `${type}.${randomPart()}`,
    sentAt: new Date().toISOString(),
    ...extra,
    // The push concerns tools: hosts that filter on the capability still read it. Before the
    // payload, as in every tool envelope.
    ...(type === 'tool.catalog.changed' ? { capability: TOOL_CAPABILITY } : {}),
    payload,
  };
}

export function sessionOpen(payload: SessionOpenPayload): SessionOpenMessage {
  return envelope('session.open', payload);
}

export function sessionWelcome(payload: SessionWelcomePayload): SessionWelcomeMessage {
  return envelope('session.welcome', payload, { sessionId: payload.sessionId });
}

export function sessionPing(sessionId: string | null = null): SessionPingMessage {
  return envelope('session.ping', {}, { sessionId });
}

export function sessionPong(ping: { id: string }): SessionPongMessage {
  return envelope('session.pong', {}, { replyTo: ping.id });
}

export function sessionCancel(
  payload: SessionCancelPayload,
  sessionId: string | null = null,
): SessionCancelMessage {
  return envelope('session.cancel', payload, { sessionId });
}

export function sessionProgress(payload: SessionProgressPayload): SessionProgressMessage {
  return envelope('session.progress', payload);
}

export function catalogChanged(payload: CatalogChangedPayload): CatalogChangedMessage {
  return envelope('tool.catalog.changed', payload);
}

function isPolicy(value: unknown): value is ToolPolicy {
  return value === 'read' || value === 'write' || value === 'critical';
}

const MAX_HIDDEN = 1000;
const MAX_TEXT = 2048;

/** A guard report from the page, checked and clipped; undefined when it is not one. */
export function readGuardReport(value: unknown): GuardReport | undefined {
  if (!isPlainObject(value) || !isPolicy(value.maxPolicy)) return undefined;
  const hidden: GuardReport['hidden'] = [];
  if (Array.isArray(value.hidden)) {
    for (const item of value.hidden.slice(0, MAX_HIDDEN)) {
      if (!isPlainObject(item) || typeof item.id !== 'string' || item.id === '') continue;
      if (!isPolicy(item.policy)) continue;
      hidden.push({ id: item.id.slice(0, MAX_TEXT), policy: item.policy });
    }
  }
  const report: GuardReport = {
    discoveryEnabled: value.discoveryEnabled === true,
    executionEnabled: value.executionEnabled === true,
    maxPolicy: value.maxPolicy,
    hidden,
  };
  if (typeof value.preset === 'string' && value.preset !== '') {
    report.preset = value.preset.slice(0, 64);
  }
  return report;
}

/** A welcome from the host, checked; undefined when it is not one. */
export function readWelcome(value: unknown): SessionWelcomePayload | undefined {
  if (!isPlainObject(value) || value.type !== 'session.welcome') return undefined;
  const payload = value.payload;
  if (!isPlainObject(payload)) return undefined;
  if (typeof payload.sessionId !== 'string' || typeof payload.hostRun !== 'string') {
    return undefined;
  }
  if (!isPolicy(payload.maxToolPolicy)) return undefined;
  const interval = payload.heartbeatIntervalMs;
  const welcome: SessionWelcomePayload = {
    sessionId: payload.sessionId,
    hostRun: payload.hostRun,
    maxToolPolicy: payload.maxToolPolicy,
    heartbeatIntervalMs:
      typeof interval === 'number' && Number.isFinite(interval) && interval > 0 ? interval : 0,
  };
  const proof = payload.proof;
  if (isPlainObject(proof) && typeof proof.nonce === 'string' && typeof proof.mac === 'string') {
    welcome.proof = { nonce: proof.nonce, mac: proof.mac };
  }
  if (typeof payload.hostId === 'string' && payload.hostId !== '') {
    welcome.hostId = payload.hostId.slice(0, 128);
  }
  // Anything but a boolean is no word at all: the field is an extension, so a host that sends
  // garbage there still gets its welcome read.
  if (typeof payload.compressPayloads === 'boolean') {
    welcome.compressPayloads = payload.compressPayloads;
  }
  return welcome;
}

/** A page's `session.open`, checked and clipped (it is the page's word); undefined if not one. */
export function readSessionOpen(value: unknown): SessionOpenPayload | undefined {
  if (!isPlainObject(value) || value.type !== 'session.open') return undefined;
  const payload = value.payload;
  if (!isPlainObject(payload) || !isPlainObject(payload.sdk) || !isPlainObject(payload.page)) {
    return undefined;
  }
  const { sdk, page } = payload;
  const texts = [sdk.name, sdk.version, page.origin, page.url, page.title, payload.session];
  if (!texts.every((text) => typeof text === 'string')) return undefined;
  const clip = (text: unknown) => (text as string).slice(0, MAX_TEXT);
  const open: SessionOpenPayload = {
    sdk: { name: clip(sdk.name), version: clip(sdk.version) },
    page: { origin: clip(page.origin), url: clip(page.url), title: clip(page.title) },
    session: clip(payload.session),
  };
  const guard = readGuardReport(payload.guard);
  if (guard) open.guard = guard;
  if (typeof payload.proof === 'string' && payload.proof !== '') {
    open.proof = payload.proof.slice(0, 128);
  }
  return open;
}

/** A page's `tool.catalog.changed` push, checked; undefined when it is not one. */
export function readCatalogChanged(value: unknown): CatalogChangedPayload | undefined {
  if (!isPlainObject(value) || value.type !== 'tool.catalog.changed') return undefined;
  if (!isToolCapability(value.capability) || !isPlainObject(value.payload)) return undefined;
  const { revision, availabilityRevision, guard } = value.payload;
  if (typeof revision !== 'string' || revision === '') return undefined;
  const changed: CatalogChangedPayload = { revision: revision.slice(0, MAX_TEXT) };
  if (typeof availabilityRevision === 'string' && availabilityRevision !== '') {
    changed.availabilityRevision = availabilityRevision.slice(0, MAX_TEXT);
  }
  const report = readGuardReport(guard);
  if (report) changed.guard = report;
  return changed;
}

/** A host's `session.cancel`, checked; undefined when it is not one (or names no request). */
export function readSessionCancel(value: unknown): SessionCancelPayload | undefined {
  if (!isPlainObject(value) || value.type !== 'session.cancel' || !isPlainObject(value.payload)) {
    return undefined;
  }
  const { requestId, reason } = value.payload;
  if (typeof requestId !== 'string' || requestId === '') return undefined;
  const cancel: SessionCancelPayload = { requestId };
  if (typeof reason === 'string' && reason !== '') cancel.reason = reason.slice(0, MAX_TEXT);
  return cancel;
}

/**
 * A page's `session.progress`, checked and clipped; undefined when it is not one (no request id,
 * a progress that is not a finite number). A `total` or `message` of the wrong type is dropped.
 */
export function readSessionProgress(value: unknown): SessionProgressPayload | undefined {
  if (!isPlainObject(value) || value.type !== 'session.progress' || !isPlainObject(value.payload)) {
    return undefined;
  }
  const { requestId } = value.payload;
  if (typeof requestId !== 'string' || requestId === '') return undefined;
  const report = readProgressReport(value.payload);
  return report ? { requestId, ...report } : undefined;
}

/**
 * A progress report read from a peer, `{progress, total?, message?}`: a finite `progress`, a
 * finite `total`, a string `message` clipped to `maxMessage` characters; undefined when it has
 * no finite `progress`. Every reader of progress uses it (the wire's `session.progress`, the
 * host's control API and its clients).
 */
export function readProgressReport(
  value: unknown,
  maxMessage = MAX_TEXT,
): ProgressReport | undefined {
  if (!isPlainObject(value)) return undefined;
  const { progress, total, message } = value;
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return undefined;
  const report: ProgressReport = { progress };
  if (typeof total === 'number' && Number.isFinite(total)) report.total = total;
  if (typeof message === 'string') report.message = message.slice(0, maxMessage);
  return report;
}

/** A heartbeat to answer: the pong replies to its id. */
export function isSessionPing(value: unknown): value is SessionPingMessage {
  return isPlainObject(value) && value.type === 'session.ping' && typeof value.id === 'string';
}

/** The answer to a ping (`replyTo` its id). */
export function isSessionPong(value: unknown): value is SessionPongMessage {
  return isPlainObject(value) && value.type === 'session.pong' && typeof value.replyTo === 'string';
}

export function isSessionMessageType(value: unknown): value is SessionMessageType {
  return (SESSION_MESSAGE_TYPES as readonly unknown[]).includes(value);
}
