/**
 * The `$ansightEncoding` payload codec (docs/wire.md "Large payloads").
 *
 * 1. A response payload whose compact UTF-8 JSON is >= 32768 bytes is gzipped; the wrapper
 *    replaces it only when the wrapper is smaller than the original.
 * 2. Receivers decode before anything else; a payload without the marker is ordinary JSON.
 * 3. Unknown encodings, bad base64, gzip failures, bad UTF-8 and bad JSON are coded errors.
 * 4. The inflated size is bounded **while** inflating: the input is fed to a streaming gunzip
 *    in slices sized from the remaining budget and the output counted as it appears, so a gzip
 *    bomb is refused having produced at most the limit plus one small step's worth (~4 MiB).
 * 5. Nesting depth is bounded while walking the parsed value.
 * 6. Compression can also run asynchronously (`wrapCompressed` with a `GzipAsync`: the page's
 *    CompressionStream), for a bridge told whether to compress by its host (docs/wire.md
 *    "Large payloads"); the wrapper and its rules are the same.
 * 7. The gunzip step is injectable (`DecodeOptions.inflate`): a Node host passes one built on
 *    node:zlib (see @toolwire/host); the default here is fflate, so the package stays portable.
 *    The bridge loads fflate only when it needs it (deflate-load.ts) and passes it in
 *    (`decodeWith`, `inflateTextWith`), so a page that meets no compressed payload never loads it.
 */

import { decodeBase64, encodeBase64 } from '@toolwire/lowering';
import type { Gunzip as GunzipClass } from 'fflate';
import { Gunzip } from 'fflate';
import { ToolProtocolError } from './errors.js';
import { gzip } from './gzip.js';
import { assertDepth, DEFAULT_MAX_DEPTH, serializeJson } from './json.js';
import type { EncodedPayloadWrapper } from './messages.js';
import { isEncodedPayloadWrapper } from './messages.js';

export const PAYLOAD_ENCODING = 'gzip-base64-json';
export const COMPRESSION_THRESHOLD_BYTES = 32 * 1024;
export const DEFAULT_MAX_INFLATED_BYTES = 64 * 1024 * 1024;

/**
 * Compressed bytes handed to gunzip per step. Deflate expands at most ~1032:1, so a step is
 * sized from the budget left: it can never produce more than what remains (or ~4 MiB, for
 * the smallest step). Early steps are large, which keeps honest payloads fast.
 */
export const INFLATE_MIN_SLICE_BYTES = 4 * 1024;
const INFLATE_MAX_SLICE_BYTES = 256 * 1024;
const DEFLATE_MAX_RATIO = 1032;
/** The largest overshoot past the limit: one minimum step's worst-case output, plus slack. */
export const MAX_INFLATE_CHUNK_BYTES = INFLATE_MIN_SLICE_BYTES * DEFLATE_MAX_RATIO + 64 * 1024;

export interface CodecLimits {
  /** Refuse a wrapper that inflates beyond this many bytes. Default 64 MiB. */
  maxInflatedBytes?: number;
  /** Refuse JSON nested deeper than this. Default 128. */
  maxDepth?: number;
}

/**
 * Gunzips `compressed` to UTF-8 text. It must refuse output beyond `maxBytes` **while**
 * inflating (`tool_payload_too_large`) and throw `tool_payload_decode_failed` for anything that
 * is not a valid gzip stream of UTF-8; any other throw is reported as `tool_payload_decode_failed`.
 */
export type InflateText = (compressed: Uint8Array, maxBytes: number) => string;

export interface DecodeOptions extends CodecLimits {
  /** The gunzip step. Default: inflateToText (fflate, streaming, bounded). */
  inflate?: InflateText;
}

export interface EncodeOptions {
  /** Compress at or above this many UTF-8 bytes. Default 32768, as the protocol says. */
  thresholdBytes?: number;
  /** gzip level 0-9. Default 1: pages and hosts share a machine, so CPU costs more than bytes. */
  level?: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
  maxDepth?: number;
  /** Gzip here when the payload is large enough. Default true; false leaves it to the caller. */
  compress?: boolean;
  /**
   * Every value in the payload has been walked already (checkSerializable): stringify without
   * walking again. A value that throws while stringified still throws.
   */
  walked?: boolean;
}

export interface EncodedPayload {
  /** What goes in the envelope's `payload`: the original value or the wrapper. */
  payload: unknown;
  /** Compact JSON of `payload`, ready to splice into an envelope without stringifying twice. */
  json: string;
  encoded: boolean;
  originalByteCount: number;
  compressedByteCount: number | null;
}

const utf8 = new TextEncoder();

/**
 * UTF-8 bytes of `text`. encodeInto a buffer with room for mostly-ASCII text, then the rest of
 * the text into a larger one if it did not fit: about a third of the cost of `encode` on a
 * megabyte in Chromium (no intermediate copy), and never more than one reallocation.
 */
export function utf8Bytes(text: string): Uint8Array {
  const length = text.length;
  let buffer = new Uint8Array(length + (length >> 3) + 8);
  const first = utf8.encodeInto(text, buffer);
  let written = first.written;
  if (first.read < length) {
    // encodeInto never splits a surrogate pair, so the rest starts on a whole character.
    const rest = text.length - first.read;
    const larger = new Uint8Array(written + rest * 3);
    larger.set(buffer.subarray(0, written));
    written += utf8.encodeInto(text.slice(first.read), larger.subarray(written)).written;
    buffer = larger;
  }
  return buffer.subarray(0, written);
}

/**
 * Serializes a payload compactly and wraps it when that makes it smaller. Throws a plain Error
 * when the payload cannot be serialized (too deep, cyclic, BigInt): the bridge answers that
 * with `tool_protocol_bridge_failed`.
 */
export function encodePayload(payload: unknown, options: EncodeOptions = {}): EncodedPayload {
  const threshold = options.thresholdBytes ?? COMPRESSION_THRESHOLD_BYTES;
  const json = payloadJson(payload, options);
  // A string of n UTF-16 units is between n and 3n UTF-8 bytes: skip the encode when small.
  if (json.length * 3 < threshold || options.compress === false) {
    return {
      payload,
      json,
      encoded: false,
      originalByteCount: json.length,
      compressedByteCount: null,
    };
  }
  const bytes = utf8Bytes(json);
  if (bytes.byteLength < threshold) {
    return {
      payload,
      json,
      encoded: false,
      originalByteCount: bytes.byteLength,
      compressedByteCount: null,
    };
  }
  const compressed = gzip(bytes, options.level ?? 1);
  const wrapper = wrapperOf(bytes, compressed);
  const wrapperJson = JSON.stringify(wrapper);
  // The wrapper is pure ASCII, so its length is its byte count.
  if (wrapperJson.length >= bytes.byteLength) {
    return {
      payload,
      json,
      encoded: false,
      originalByteCount: bytes.byteLength,
      compressedByteCount: null,
    };
  }
  return {
    payload: wrapper,
    json: wrapperJson,
    encoded: true,
    originalByteCount: bytes.byteLength,
    compressedByteCount: compressed.byteLength,
  };
}

/**
 * A payload's compact JSON, as encodePayload writes it (never gzipped). Throws a plain Error
 * when the payload cannot be serialized (too deep, cyclic, BigInt).
 */
export function payloadJson(
  payload: unknown,
  options: Pick<EncodeOptions, 'maxDepth' | 'walked'> = {},
): string {
  return options.walked
    ? (JSON.stringify(payload) ?? 'null')
    : serializeJson(payload, options.maxDepth ?? DEFAULT_MAX_DEPTH);
}

function wrapperOf(bytes: Uint8Array, compressed: Uint8Array): EncodedPayloadWrapper {
  return {
    $ansightEncoding: PAYLOAD_ENCODING,
    contentType: 'application/json',
    originalByteCount: bytes.byteLength,
    compressedByteCount: compressed.byteLength,
    data: encodeBase64(compressed),
  };
}

/**
 * Gzips `bytes` into one gzip member (RFC 1952), asynchronously: CompressionStream('gzip') in a
 * browser, a Worker, a thread pool. The member must be one a standard gunzip reads whole.
 */
export type GzipAsync = (bytes: Uint8Array) => Promise<Uint8Array>;

/**
 * The wrapper's compact JSON for a payload's compact JSON, gzipped by `gzipAsync`, under the
 * same rules as encodePayload (at least `thresholdBytes` of UTF-8, and only when the wrapper
 * is smaller); undefined when the payload goes as it is. Rejects when `gzipAsync` does.
 */
export async function wrapCompressed(
  json: string,
  gzipAsync: GzipAsync,
  thresholdBytes = COMPRESSION_THRESHOLD_BYTES,
): Promise<string | undefined> {
  if (json.length * 3 < thresholdBytes) return undefined;
  const bytes = utf8Bytes(json);
  if (bytes.byteLength < thresholdBytes) return undefined;
  const wrapperJson = JSON.stringify(wrapperOf(bytes, await gzipAsync(bytes)));
  return wrapperJson.length < bytes.byteLength ? wrapperJson : undefined;
}

export interface DecodedPayload {
  payload: unknown;
  encoded: boolean;
  originalByteCount: number | null;
  compressedByteCount: number | null;
}

/**
 * Decodes a payload that may carry `$ansightEncoding`. Plain payloads come back untouched (their
 * depth was checked when the frame was parsed, see parseFrame). Throws ToolProtocolError with
 * `tool_payload_encoding_unsupported`, `tool_payload_decode_failed`, `tool_payload_too_large`
 * or `tool_payload_too_deep`.
 */
export function decodePayload(payload: unknown, limits: DecodeOptions = {}): unknown {
  return decodePayloadWithInfo(payload, limits).payload;
}

export function decodePayloadWithInfo(
  payload: unknown,
  limits: DecodeOptions = {},
): DecodedPayload {
  return decodeWith(payload, limits, limits.inflate ?? inflateToText, decodeBase64);
}

/**
 * decodePayloadWithInfo with the gunzip and base64 steps given (loaded by the caller with fflate,
 * or another); neither is called for a payload that is not in the gzip encoding.
 */
export function decodeWith(
  payload: unknown,
  limits: CodecLimits,
  inflate: InflateText,
  decode: (text: string) => Uint8Array | undefined,
): DecodedPayload {
  if (!isEncodedPayloadWrapper(payload)) {
    return { payload, encoded: false, originalByteCount: null, compressedByteCount: null };
  }
  const wrapper = payload as Record<string, unknown>;
  if (wrapper.$ansightEncoding !== PAYLOAD_ENCODING) {
    throw new ToolProtocolError(
      'tool_payload_encoding_unsupported',
      `Unsupported tool payload encoding "${String(wrapper.$ansightEncoding).slice(0, 64)}".`,
    );
  }
  const maxBytes = limits.maxInflatedBytes ?? DEFAULT_MAX_INFLATED_BYTES;
  if (typeof wrapper.data !== 'string' || wrapper.data.length === 0) {
    throw new ToolProtocolError(
      'tool_payload_decode_failed',
      'The encoded payload has no base64 data.',
    );
  }
  // The declared size is only a hint (it can lie), but an honest oversize claim fails early.
  if (typeof wrapper.originalByteCount === 'number' && wrapper.originalByteCount > maxBytes) {
    throw payloadTooLarge(maxBytes);
  }
  const compressed = decode(wrapper.data);
  if (!compressed) {
    throw new ToolProtocolError(
      'tool_payload_decode_failed',
      'The encoded payload data is not padded base64.',
    );
  }
  const text = inflateWith(inflate, compressed, maxBytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ToolProtocolError(
      'tool_payload_decode_failed',
      'The decoded payload is not valid JSON.',
      {
        cause: error,
      },
    );
  }
  assertDepth(value, limits.maxDepth ?? DEFAULT_MAX_DEPTH);
  return {
    payload: value,
    encoded: true,
    originalByteCount:
      typeof wrapper.originalByteCount === 'number' ? wrapper.originalByteCount : null,
    compressedByteCount: compressed.byteLength,
  };
}

function inflateWith(inflate: InflateText, compressed: Uint8Array, maxBytes: number): string {
  try {
    return inflate(compressed, maxBytes);
  } catch (error) {
    if (error instanceof ToolProtocolError) throw error;
    throw new ToolProtocolError(
      'tool_payload_decode_failed',
      'The encoded payload is not valid gzip.',
      { cause: error },
    );
  }
}

export function payloadTooLarge(maxBytes: number): ToolProtocolError {
  return new ToolProtocolError(
    'tool_payload_too_large',
    `The decoded payload exceeds ${maxBytes} bytes.`,
    {
      details: { maxInflatedBytes: maxBytes },
    },
  );
}

/**
 * Gunzips `compressed` to UTF-8 text, refusing output beyond `maxBytes` as it is produced.
 * `onChunk` observes every output chunk (tests use it to check the memory bound).
 */
export function inflateToText(
  compressed: Uint8Array,
  maxBytes: number,
  onChunk?: (chunk: Uint8Array, total: number) => void,
): string {
  return inflateTextWith(Gunzip, compressed, maxBytes, onChunk);
}

/** inflateToText over a given fflate `Gunzip` (the bridge's, loaded on first need). */
export function inflateTextWith(
  Inflater: typeof GunzipClass,
  compressed: Uint8Array,
  maxBytes: number,
  onChunk?: (chunk: Uint8Array, total: number) => void,
): string {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const parts: string[] = [];
  let total = 0;
  let finished = false;
  const gunzip = new Inflater((chunk, final) => {
    total += chunk.byteLength;
    onChunk?.(chunk, total);
    if (total > maxBytes) throw payloadTooLarge(maxBytes);
    try {
      parts.push(decoder.decode(chunk, { stream: !final }));
    } catch (error) {
      throw new ToolProtocolError(
        'tool_payload_decode_failed',
        'The decoded payload is not valid UTF-8.',
        {
          cause: error,
        },
      );
    }
    if (final) finished = true;
  });
  try {
    let offset = 0;
    while (offset < compressed.byteLength && !finished) {
      const budget = Math.floor((maxBytes - total) / DEFLATE_MAX_RATIO);
      const slice = Math.max(INFLATE_MIN_SLICE_BYTES, Math.min(INFLATE_MAX_SLICE_BYTES, budget));
      const end = Math.min(offset + slice, compressed.byteLength);
      gunzip.push(compressed.subarray(offset, end), end === compressed.byteLength);
      offset = end;
    }
  } catch (error) {
    if (error instanceof ToolProtocolError) throw error;
    throw new ToolProtocolError(
      'tool_payload_decode_failed',
      'The encoded payload is not valid gzip.',
      {
        cause: error,
      },
    );
  }
  if (!finished) {
    throw new ToolProtocolError('tool_payload_decode_failed', 'The gzip stream ended early.');
  }
  return parts.join('');
}

/**
 * Parses one text frame: JSON.parse, then the depth walk. Throws `tool_payload_decode_failed`
 * for text that is not JSON and `tool_payload_too_deep` for deep nesting.
 */
export function parseFrame(text: string, limits: CodecLimits = {}): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ToolProtocolError('tool_payload_decode_failed', 'The frame is not valid JSON.', {
      cause: error,
    });
  }
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (!fewerOpeningsThan(text, maxDepth)) assertDepth(value, maxDepth);
  return value;
}

/** Frames up to this long are scanned for brackets before their parsed value is walked. */
const DEPTH_SCAN_MAX_LENGTH = 64 * 1024;

/**
 * True when `text` has at most `maxDepth` opening brackets: then nothing in it can nest deeper
 * than that (brackets inside strings only raise the count), and the walk is skipped. indexOf
 * finds them natively, so the scan costs a fraction of the walk; it stops as soon as the count
 * passes `maxDepth`, and long frames are walked as before.
 */
function fewerOpeningsThan(text: string, maxDepth: number): boolean {
  if (text.length > DEPTH_SCAN_MAX_LENGTH) return false;
  let openings = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      if (++openings > maxDepth) return false;
    }
  }
  return true;
}
