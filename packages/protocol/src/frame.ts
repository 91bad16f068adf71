/**
 * Writing the bridge's responses: the frame text is the one representation, written once, in
 * the wire's key order. The envelope object exists only when something reads it (a `response`
 * event listener, a test): it is that frame, parsed.
 *
 * Serializability is checked here, as the payload is serialized: a payload that cannot be
 * (nested too deep, cyclic, a function, a BigInt) is answered `tool_protocol_bridge_failed`.
 */
import type { GzipAsync } from './codec.js';
import { payloadJson, wrapCompressed } from './codec.js';
import { errorPayload } from './errors.js';
import { isoNow, randomHex } from './ids.js';
import type { ResponseEnvelope, ResponseType } from './messages.js';
import { TOOL_CAPABILITY } from './messages.js';

/** A response as the bridge wrote it. */
export interface BridgeResponse {
  /** The text frame to send, exactly as written. */
  readonly frame: string;
  readonly type: ResponseType;
  /** The response's own id (`<request id>.response`, or `tool.error.<hex>` with no request). */
  readonly id: string;
  /** The id of the request it answers (`replyTo`); null when none could be read. */
  readonly requestId: string | null;
  /** The frame parsed, on first read (then kept): for observers and tests, not the socket. */
  readonly envelope: ResponseEnvelope;
}

/** The request being answered: its id, and the session it named. */
export interface RequestInfo {
  id: string;
  sessionId: string | null;
}

export interface WriteOptions {
  /** Refuse a payload nested deeper than this (the frame's limit, allowance included). */
  maxDepth: number;
  /**
   * Every value a tool supplied in the payload was walked already (batch items and evidence
   * are, as they run): serialize without walking again.
   */
  walked?: boolean;
}

class WrittenResponse implements BridgeResponse {
  readonly frame: string;
  readonly type: ResponseType;
  readonly id: string;
  readonly requestId: string | null;
  #envelope: ResponseEnvelope | undefined;
  /** The frame's length before its payload, and the payload's JSON (compressResponse reads them). */
  readonly headLength: number;
  readonly payloadJson: string;

  constructor(
    frame: string,
    type: ResponseType,
    id: string,
    requestId: string | null,
    headLength: number,
    json: string,
  ) {
    this.frame = frame;
    this.type = type;
    this.id = id;
    this.requestId = requestId;
    this.headLength = headLength;
    this.payloadJson = json;
  }

  get envelope(): ResponseEnvelope {
    this.#envelope ??= JSON.parse(this.frame) as ResponseEnvelope;
    return this.#envelope;
  }
}

/** The response frame for `request` (none: an unreadable request, answered without replyTo). */
export function writeResponse(
  request: RequestInfo | undefined,
  type: ResponseType,
  payload: unknown,
  options: WriteOptions,
): BridgeResponse {
  let json: string;
  let responseType = type;
  try {
    json = payloadJson(payload, options);
  } catch (error) {
    responseType = 'tool.error';
    json = payloadJson(
      errorPayload(
        'tool_protocol_bridge_failed',
        `The response could not be serialized: ${describe(error)}`,
      ),
    );
  }
  const id = request ? `${request.id}.response` : `tool.error.${randomHex(16)}`;
  const sessionId = request?.sessionId ?? null;
  const head =
    `{"type":"${responseType}","id":${JSON.stringify(id)},` +
    (request ? `"replyTo":${JSON.stringify(request.id)},` : '') +
    `"sessionId":${sessionId === null ? 'null' : JSON.stringify(sessionId)},` +
    `"sentAt":"${isoNow()}","capability":"${TOOL_CAPABILITY}","payload":`;
  return new WrittenResponse(
    `${head}${json}}`,
    responseType,
    id,
    request ? request.id : null,
    head.length,
    json,
  );
}

/**
 * The response with its payload gzip-wrapped by `gzipAsync` when that pays (docs/wire.md
 * "Large payloads"), else the response itself. Never rejects: a compressor that fails leaves
 * the payload as it was, which every receiver reads.
 */
export async function compressResponse(
  response: BridgeResponse,
  gzipAsync: GzipAsync,
): Promise<BridgeResponse> {
  if (!(response instanceof WrittenResponse)) return response;
  let wrapped: string | undefined;
  try {
    wrapped = await wrapCompressed(response.payloadJson, gzipAsync);
  } catch {
    return response;
  }
  if (wrapped === undefined) return response;
  const head = response.frame.slice(0, response.headLength);
  return new WrittenResponse(
    `${head}${wrapped}}`,
    response.type,
    response.id,
    response.requestId,
    response.headLength,
    wrapped,
  );
}

export function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return 'unprintable error';
  }
}
