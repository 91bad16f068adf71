import type { WalkState } from '../walk-state.js';

/**
 * URL <-> its href (docs/browser-api.md: `format: uri`). Lifting takes an absolute URL the URL Standard
 * parses (no base: a relative one would need a guessed base) written in URI characters only
 * (RFC 3986 §2: unreserved, reserved, `%HH`), so it never accepts what the published
 * `format: uri` refuses, such as a raw space the parser would quietly percent-encode.
 */

const URI_CHARACTERS =
  /^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;

export function lowerUrl(value: URL, w: WalkState): string {
  const href = value.href;
  w.chars += href.length;
  w.items++;
  return href;
}

export function liftUrl(value: unknown, w: WalkState, at: string): URL {
  if (typeof value !== 'string') w.fail('type_mismatch', 'A URL is a string.', `${at}/webType`);
  w.chars += value.length;
  w.items++;
  if (!URI_CHARACTERS.test(value)) {
    w.fail(
      'invalid_value',
      'Not an absolute URI (RFC 3986 characters, %-escapes).',
      `${at}/webType`,
    );
  }
  try {
    return new URL(value);
  } catch {
    return w.fail('invalid_value', 'Not a URL the URL Standard parses.', `${at}/webType`);
  }
}
