/**
 * Session tokens (docs/wire.md "Transport and session"): random, >= 128 bits, one per host run, compared
 * in constant time and never logged in full.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 128 random bits as 22 base64url characters (safe in a query string unescaped). */
export function createToken(): string {
  return randomBytes(16).toString('base64url');
}

/** Constant-time equality; hashing first makes both sides the same length. */
export function tokensEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** What a log line may show of a token: its first four characters. */
export function redactToken(token: string): string {
  return `${token.slice(0, 4)}…`;
}

/** Text with every `token=` value redacted, plain or percent-encoded (for log lines). */
export function redactUrl(text: string): string {
  return text.replace(/(token(?:=|%3D))([^&#%\s]*)/gi, (_, key: string, value: string) => {
    return `${key}${redactToken(value)}`;
  });
}
