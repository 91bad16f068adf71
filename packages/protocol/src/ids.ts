const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** `bytes` random bytes as lowercase hex, from WebCrypto's CSPRNG. */
export function randomHex(bytes = 16): string {
  const buffer = crypto.getRandomValues(new Uint8Array(bytes));
  let hex = '';
  for (const byte of buffer) hex += HEX[byte];
  return hex;
}

let isoAt = Number.NaN;
let isoText = '';

/**
 * `new Date().toISOString()`, formatted once per millisecond: a busy endpoint stamps many
 * frames within one (formatting costs about a microsecond, more than the rest of a header).
 */
export function isoNow(): string {
  const now = Date.now();
  if (now !== isoAt) {
    isoAt = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}
