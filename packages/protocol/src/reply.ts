/**
 * Reading a reply on the host side (client.ts, docs/wire.md "Host behaviour"): which pending request a
 * frame names, even one that is not JSON, and whether the reply can be used (its type answers
 * the request, its payload decodes to an object, an error carries a code), else the
 * `tool_protocol_invalid_response` to fail the request with.
 */
import type { DecodeOptions } from './codec.js';
import { decodePayloadWithInfo } from './codec.js';
import { ToolProtocolError } from './errors.js';
import type { JsonValue, ResponseType } from './messages.js';
import { isPlainObject } from './messages.js';

export interface DecodedResponse {
  type: ResponseType;
  id: string;
  replyTo: string;
  sessionId: string | null;
  sentAt: string | null;
  payload: unknown;
  /** Compression metadata when the payload arrived wrapped. */
  encoding: { originalByteCount: number | null; compressedByteCount: number | null } | null;
  /** The frame's length in UTF-16 units, for diagnostics. */
  frameLength: number;
}

/**
 * The response to a pending request, checked: its type answers the request, its payload decodes
 * to an object, a tool.error carries a code. Otherwise the coded error to fail the request with.
 */
export function readResponse(
  expected: ResponseType,
  message: Record<string, unknown>,
  replyTo: string,
  type: ResponseType,
  frame: string,
  limits: DecodeOptions,
): DecodedResponse | ToolProtocolError {
  if (type !== 'tool.error' && type !== expected) {
    return invalidResponse(
      replyTo,
      'type_mismatch',
      `Expected ${expected} or tool.error in reply to "${replyTo}", got ${type}.`,
      { expected, received: type },
    );
  }
  let decoded: ReturnType<typeof decodePayloadWithInfo>;
  try {
    decoded = decodePayloadWithInfo(message.payload, limits);
  } catch (error) {
    const codec = error instanceof ToolProtocolError ? error : undefined;
    return invalidResponse(
      replyTo,
      'payload_encoding',
      `The ${type} payload in reply to "${replyTo}" cannot be decoded: ${(error as Error)?.message}`,
      {
        causeCode: codec?.code ?? 'tool_payload_decode_failed',
        ...(codec && isPlainObject(codec.details) ? { cause: codec.details } : {}),
      },
      error,
    );
  }
  const payload = decoded.payload;
  if (!isPlainObject(payload)) {
    const what = payload === undefined ? 'no payload' : 'a payload that is not a JSON object';
    return invalidResponse(
      replyTo,
      'payload_invalid',
      `The ${type} in reply to "${replyTo}" has ${what}.`,
    );
  }
  if (type === 'tool.error' && typeof payload.code !== 'string') {
    return invalidResponse(
      replyTo,
      'payload_invalid',
      `The tool.error in reply to "${replyTo}" has no error code.`,
    );
  }
  return {
    type,
    id: typeof message.id === 'string' ? message.id : '',
    replyTo,
    sessionId: typeof message.sessionId === 'string' ? message.sessionId : null,
    sentAt: typeof message.sentAt === 'string' ? message.sentAt : null,
    payload,
    encoding: decoded.encoded
      ? {
          originalByteCount: decoded.originalByteCount,
          compressedByteCount: decoded.compressedByteCount,
        }
      : null,
    frameLength: frame.length,
  };
}

/** Why a reply could not be used (`details.reason` of `tool_protocol_invalid_response`). */
export type InvalidReason =
  | 'unreadable'
  | 'reply_to_missing'
  | 'type_invalid'
  | 'type_mismatch'
  | 'payload_encoding'
  | 'payload_invalid'
  | 'unmatched';

export function invalidResponse(
  requestId: string | null,
  reason: InvalidReason,
  message: string,
  extra: Record<string, JsonValue> = {},
  cause?: unknown,
): ToolProtocolError {
  return new ToolProtocolError('tool_protocol_invalid_response', message, {
    details: { requestId, reason, ...extra },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Page-controlled text in an error: a string, clipped; anything else as null. */
export function clip(value: unknown): string | null {
  return typeof value === 'string' ? value.slice(0, 128) : null;
}

const RESPONSE_SUFFIX = '.response';

/** `<request id>.response` -> the request id. */
export function requestIdOfResponseId(id: unknown): string | undefined {
  return typeof id === 'string' &&
    id.length > RESPONSE_SUFFIX.length &&
    id.endsWith(RESPONSE_SUFFIX)
    ? id.slice(0, -RESPONSE_SUFFIX.length)
    : undefined;
}

// Ids as this client makes them, or as callers choose them, without escapes; bounded, so a
// scan of a large broken frame stays linear.
const REPLY_TO_TEXT = /"replyTo"\s*:\s*"([^"\\]{1,512})"/g;
const RESPONSE_ID_TEXT = /"id"\s*:\s*"([^"\\]{1,512})\.response"/g;
/** Looked at per pattern: a broken frame is not searched without end. */
const MAX_ID_CANDIDATES = 16;

/**
 * The pending request a frame that is not JSON names, read from its text: `replyTo` first, then
 * an `id` ending in `.response`. Only ids of pending requests count, so text inside a payload
 * that happens to look like an envelope field cannot fail anything else.
 */
export function pendingIdIn(
  frame: string,
  pending: ReadonlyMap<string, unknown>,
): string | undefined {
  if (pending.size === 0) return undefined;
  for (const pattern of [REPLY_TO_TEXT, RESPONSE_ID_TEXT]) {
    let seen = 0;
    for (const match of frame.matchAll(pattern)) {
      const id = match[1] as string;
      if (pending.has(id)) return id;
      if (++seen >= MAX_ID_CANDIDATES) break;
    }
  }
  return undefined;
}
