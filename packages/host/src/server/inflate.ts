/**
 * The host's gunzip for `$ansightEncoding` responses (docs/wire.md "Large payloads"): node:zlib in C
 * instead of fflate in JavaScript (about 4x faster on a megabyte), plugged into the protocol
 * client through its `inflate` option.
 *
 * - The inflated-size limit is enforced **while** inflating: `maxOutputLength` makes zlib stop
 *   and throw as soon as its output passes the limit (at most one 64 KiB chunk past it), so a
 *   gzip bomb never inflates further. Refused with `tool_payload_too_large`, as fflate's path.
 * - Anything that is not one valid gzip member (bad header, corrupt data, a CRC or length
 *   mismatch, a truncated stream) is `tool_payload_decode_failed`, and so is output that is not
 *   valid UTF-8, exactly as the protocol's own decoder.
 */
import { isUtf8, kMaxLength } from 'node:buffer';
import { gunzipSync } from 'node:zlib';
import type { InflateText } from '@toolwire/protocol';
import { payloadTooLarge, ToolProtocolError } from '@toolwire/protocol';

/** Output chunk size: large enough that a megabyte takes 16 steps, small enough to bound overshoot. */
export const NODE_INFLATE_CHUNK_BYTES = 64 * 1024;

export const nodeInflateText: InflateText = (compressed, maxBytes) => {
  let output: Buffer;
  try {
    output = gunzipSync(compressed, {
      // zlib refuses 0 (and anything past kMaxLength); a limit of 0 is checked below.
      maxOutputLength: Math.max(1, Math.min(Math.floor(maxBytes), kMaxLength)),
      chunkSize: NODE_INFLATE_CHUNK_BYTES,
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw payloadTooLarge(maxBytes);
    }
    throw new ToolProtocolError(
      'tool_payload_decode_failed',
      'The encoded payload is not valid gzip.',
      { cause: error },
    );
  }
  if (output.byteLength > maxBytes) throw payloadTooLarge(maxBytes);
  if (!isUtf8(output)) {
    throw new ToolProtocolError(
      'tool_payload_decode_failed',
      'The decoded payload is not valid UTF-8.',
    );
  }
  return output.toString('utf8');
};
