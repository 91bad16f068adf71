/**
 * The frames bridge's message vocabulary. Window messages carry only the handshake;
 * everything after it travels on the MessagePort the parent hands over, which no other frame
 * can reach. Every message is checked for shape before anything reads it: frames are hostile
 * until proven otherwise.
 */

import type { CallEncoding } from '../types.js';
import { MAX_ROUTE_DEPTH } from './route.js';

export const FRAMES_TAG = 'toolwire.frames/1';

/** child -> parent, by window.postMessage: "I run toolwire; give me a port". */
export interface HelloMessage {
  tag: typeof FRAMES_TAG;
  kind: 'hello';
}

/**
 * parent -> child, by window.postMessage: "say hello again". A parent whose script ran after its
 * frames' (a deferred or late bundle) missed their hellos; it asks each frame it already has,
 * and a frame without a link answers with a fresh hello. It carries nothing else.
 */
export interface AskHelloMessage {
  tag: typeof FRAMES_TAG;
  kind: 'ask';
}

/** parent -> child, by window.postMessage with one transferred port. */
export interface WelcomeMessage {
  tag: typeof FRAMES_TAG;
  kind: 'welcome';
  /** The parent vouches: does this child's embedding grant the `tools` feature? */
  allowed: boolean;
}

/** Tool metadata as one frame reports it to another. */
export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown> | undefined;
  outputSchema: Record<string, unknown> | undefined;
  annotations: Record<string, boolean> | undefined;
  origin: string;
  agentExposed: boolean;
  /** Wire metadata (the endpoint's catalog): policy, category, keywords, prerequisites. */
  policy: 'read' | 'write' | 'critical';
  category: string | undefined;
  keywords: string[];
  prerequisites: string[];
  /** availability() as the owner evaluated it when listing; null when available. */
  runtime: Record<string, unknown> | null;
  /** The registration, so a stale handle is told apart from a re-registration. */
  key: number;
  /** Frame indices from the frame that asked down to the owner ([] = the asked frame). */
  route: number[];
}

export interface SerializedError {
  name: string;
  message: string;
  /** The wire contract's code the error carried (`toolCode`). */
  toolCode?: string;
  /** DataError's failures. */
  errors?: unknown;
  /** Another validation failure's (a result that fails its outputSchema). */
  issues?: unknown;
  /** ToolExecutionError's lowered cause and tool name. */
  cause?: unknown;
  toolName?: string;
}

/** A tool call travelling down a route. `key` -1 means "whatever is registered under the name". */
export interface CallRequest {
  op: 'call';
  route: number[];
  caller: string;
  via: string[];
  callId: string;
  name: string;
  key: number;
  /** document.modelContext calls: the owner's origin must match, the result is a JSON string. */
  origin: string | null;
  input: unknown;
  encoding: CallEncoding;
  /** The caller listens for progress: the tool's reports travel back up as `progress` messages. */
  progress?: boolean;
}

/** One progress report of a pending call, up the route the call came down. */
export interface ProgressNotice {
  callId: string;
  progress: number;
  total?: number;
  message?: string;
}

export type FrameRequest =
  | {
      op: 'list';
      route: number[];
      caller: string;
      via: string[];
      agentOnly: boolean;
      /** document.modelContext listings: the caller's fromOrigins (double opt-in); null otherwise. */
      fromOrigins: string[] | null;
      /**
       * The subtree cache (listing.ts): the token of the answer the asking frame holds for this
       * listing (0 for none). With it, the answer is a ListAnswer; without it (an older frame),
       * a bare descriptor array.
       */
      known?: number;
    }
  | CallRequest
  /** document.modelContext from a descendant: forwarded up to the top, which walks the tree. */
  | { op: 'tree-list'; caller: string; via: string[]; fromOrigins: string[] }
  | (Omit<CallRequest, 'op'> & { op: 'tree-call' });

/**
 * The answer to a `list` that carried `known`: the answerer's token for this listing, and the
 * descriptors only when they differ from the answer `known` names (absent: "what you hold").
 */
export interface ListAnswer {
  token: number;
  tools?: ToolDescriptor[];
}

/** A registration came or went: whose, and to which origins it was exposed (`*` for any). */
export interface ChangeNotice {
  origin: string;
  exposedTo: string[];
  /** Did an agent-exposed tool change (document.modelContext listens only to those)? */
  agent: boolean;
}

export type PortMessage =
  | { tag: typeof FRAMES_TAG; kind: 'req'; id: number; request: FrameRequest }
  | { tag: typeof FRAMES_TAG; kind: 'res'; id: number; ok: true; value: unknown }
  | { tag: typeof FRAMES_TAG; kind: 'res'; id: number; ok: false; error: SerializedError }
  | { tag: typeof FRAMES_TAG; kind: 'abort'; callId: string }
  | ({ tag: typeof FRAMES_TAG; kind: 'progress' } & ProgressNotice)
  | ({ tag: typeof FRAMES_TAG; kind: 'changed' } & ChangeNotice)
  | { tag: typeof FRAMES_TAG; kind: 'bye' };

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isHello(data: unknown): data is HelloMessage {
  return isRecord(data) && data.tag === FRAMES_TAG && data.kind === 'hello';
}

export function isAskHello(data: unknown): data is AskHelloMessage {
  return isRecord(data) && data.tag === FRAMES_TAG && data.kind === 'ask';
}

export function isWelcome(data: unknown): data is WelcomeMessage {
  return (
    isRecord(data) &&
    data.tag === FRAMES_TAG &&
    data.kind === 'welcome' &&
    typeof data.allowed === 'boolean'
  );
}

const isRoute = (value: unknown): value is number[] =>
  Array.isArray(value) &&
  value.length <= MAX_ROUTE_DEPTH &&
  value.every((step) => Number.isInteger(step) && step >= 0 && step < 10_000);
const isOrigins = (value: unknown): value is string[] =>
  Array.isArray(value) &&
  value.length <= 64 &&
  value.every((origin) => typeof origin === 'string' && origin.length < 2048);

/** Validates a request's shape; anything else is dropped by the receiver. */
export function isFrameRequest(value: unknown): value is FrameRequest {
  if (!isRecord(value) || typeof value.caller !== 'string' || !isOrigins(value.via)) return false;
  switch (value.op) {
    case 'list':
      return (
        isRoute(value.route) &&
        typeof value.agentOnly === 'boolean' &&
        (value.fromOrigins === null || isOrigins(value.fromOrigins)) &&
        (value.known === undefined ||
          (Number.isSafeInteger(value.known) && (value.known as number) >= 0))
      );
    case 'call':
    case 'tree-call':
      return (
        isRoute(value.route) &&
        typeof value.callId === 'string' &&
        value.callId.length <= 128 &&
        typeof value.name === 'string' &&
        typeof value.key === 'number' &&
        (value.origin === null || typeof value.origin === 'string') &&
        (value.encoding === 'structured' || value.encoding === 'json') &&
        (value.progress === undefined || typeof value.progress === 'boolean')
      );
    case 'tree-list':
      return isOrigins(value.fromOrigins);
    default:
      return false;
  }
}

export function isPortMessage(value: unknown): value is PortMessage {
  if (!isRecord(value) || value.tag !== FRAMES_TAG) return false;
  switch (value.kind) {
    case 'req':
      return typeof value.id === 'number' && isFrameRequest(value.request);
    case 'res':
      return (
        typeof value.id === 'number' &&
        typeof value.ok === 'boolean' &&
        (value.ok || isRecord(value.error))
      );
    case 'abort':
      return typeof value.callId === 'string';
    case 'progress':
      // The numbers' and the message's finer checks are the receiving caller's (progress.ts).
      return (
        typeof value.callId === 'string' &&
        typeof value.progress === 'number' &&
        (value.total === undefined || typeof value.total === 'number') &&
        (value.message === undefined || typeof value.message === 'string')
      );
    case 'changed':
      return (
        typeof value.origin === 'string' &&
        isOrigins(value.exposedTo) &&
        typeof value.agent === 'boolean'
      );
    case 'bye':
      return true;
    default:
      return false;
  }
}
