import { base64Length, encodeBase64 } from '../base64.js';
import { countKeys, field, liftRecord, stringField } from '../record.js';
import type { WalkState } from '../walk-state.js';
import { liftBase64 } from './base64-text.js';

/**
 * Blob -> `{mimeType, data}`; File adds `name` and `lastModified` (docs/browser-api.md). A Blob without a
 * type is sent as `application/octet-stream` (RFC 2046 §4.5.1), so an agent always reads a
 * real MIME type; it lifts back with that type.
 */

/**
 * `type/subtype` plus optional parameters, in lowercase printable ASCII: exactly the strings
 * `Blob.type` keeps (the constructor lowercases, and blanks anything unprintable). Lifting a
 * type the Blob constructor would alter or blank is refused, not coerced.
 */
export const MIME_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(?:;[\x20-\x40\x5b-\x7e]*)?$/;
const DEFAULT_MIME_TYPE = 'application/octet-stream';

/**
 * Blob.size is known before reading, so the binary limit and the size budget are charged in
 * the synchronous walk; only the bytes themselves arrive in a task.
 */
export function lowerBlob(
  file: boolean,
  value: Blob,
  w: WalkState,
  depth: number,
  at: string,
): Record<string, unknown> {
  w.enter(value, depth, at);
  const mimeType = value.type === '' ? DEFAULT_MIME_TYPE : value.type;
  if (!MIME_TYPE.test(mimeType)) {
    w.path.push('mimeType');
    w.fail('invalid_value', `Blob type ${JSON.stringify(mimeType)} is not a MIME type.`, at);
  }
  const size = value.size;
  w.checkBinary(size, at, file ? 'File' : 'Blob');
  countKeys(w, file ? ['mimeType', 'data', 'name', 'lastModified'] : ['mimeType', 'data']);
  w.chars += mimeType.length;
  w.items++;
  w.addExact(base64Length(size), at);
  const record: Record<string, unknown> = { mimeType, data: '' };
  if (file) {
    const { name, lastModified } = value as File;
    w.chars += name.length;
    w.items += 2;
    record.name = name;
    record.lastModified = lastModified;
  }
  const path = w.capture();
  w.tasks.push(async () => {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await value.arrayBuffer());
    } catch (error) {
      w.resume(path);
      w.fail('read_failed', 'Reading the Blob failed.', at, error);
    }
    w.resume([...path, 'data']);
    if (bytes.byteLength !== size) w.fail('read_failed', 'The Blob changed size while read.', at);
    record.data = encodeBase64(bytes);
  });
  return record;
}

/**
 * Every field is checked before a Blob is made: the constructor would otherwise accept a bad
 * type silently (blanking it), and the caller would get a Blob that is not what was sent.
 */
export function liftBlob(
  file: boolean,
  value: unknown,
  w: WalkState,
  depth: number,
  at: string,
): Blob {
  const what = file ? 'File' : 'Blob';
  const record = liftRecord(
    value,
    w,
    depth,
    at,
    what,
    file ? ['mimeType', 'data', 'name'] : ['mimeType', 'data'],
    file ? ['lastModified'] : [],
  );
  const type = field(w, 'mimeType', () => {
    const text = stringField(w, record.mimeType, `${at}/webType`, 'mimeType');
    if (!MIME_TYPE.test(text)) {
      w.fail('invalid_value', 'mimeType must be a lowercase type/subtype.', `${at}/webType`);
    }
    return text;
  });
  const bytes = field(w, 'data', () => liftBase64(record.data, w, at, what));
  const name = file
    ? field(w, 'name', () => stringField(w, record.name, `${at}/webType`, 'name'))
    : '';
  const lastModified =
    record.lastModified === undefined
      ? undefined
      : field(w, 'lastModified', () => {
          const time = record.lastModified;
          if (typeof time !== 'number') {
            w.fail('type_mismatch', 'lastModified is a number.', `${at}/webType`);
          }
          if (!Number.isSafeInteger(time)) {
            w.fail('invalid_value', 'lastModified is whole milliseconds.', `${at}/webType`);
          }
          w.items++;
          return time;
        });
  if (typeof Blob !== 'function' || (file && typeof File !== 'function')) {
    w.fail('unsupported_in_environment', `This environment has no ${what}.`, at);
  }
  const parts = [bytes as Uint8Array<ArrayBuffer>];
  if (!file) return new Blob(parts, { type });
  // Without lastModified the File constructor's own default (now) applies.
  return lastModified === undefined
    ? new File(parts, name, { type })
    : new File(parts, name, { type, lastModified });
}
