import { decodeBase64, decodedLength } from '../base64.js';
import type { WalkState } from '../walk-state.js';

/**
 * base64 text -> bytes for every binary form (buffers, Blob and image `data`). The decoded
 * size is known from the text alone, so maxBinaryBytes is enforced before any decoding.
 */
export function liftBase64(value: unknown, w: WalkState, at: string, what: string): Uint8Array {
  if (typeof value !== 'string')
    w.fail('type_mismatch', `${what} data is a base64 string.`, `${at}/webType`);
  const length = decodedLength(value);
  if (length < 0)
    w.fail('invalid_value', 'Not canonical padded base64 (RFC 4648 §4).', `${at}/webType`);
  w.checkBinary(length, `${at}/webType`, what);
  w.addExact(value.length, `${at}/webType`);
  const bytes = decodeBase64(value);
  if (!bytes)
    w.fail('invalid_value', 'Not canonical padded base64 (RFC 4648 §4).', `${at}/webType`);
  return bytes;
}
