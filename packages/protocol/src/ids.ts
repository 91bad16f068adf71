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

/** The second `isoPrefix` was formatted in (epoch ms at its start), and its text to the dot. */
let isoSecond = Number.NaN;
let isoPrefix = '';

/**
 * The same text as isoNow, with a Date formatted only once a second: within it only the
 * milliseconds change. Sequential calls a few hundred microseconds apart each stamp a new
 * millisecond, and formatting a Date cost a host several microseconds a request, run cold.
 * The page's answers keep isoNow: its bytes are budgeted, and this saved it little.
 */
export function isoNowBySecond(): string {
  const now = Date.now();
  const ms = now - isoSecond;
  if (ms >= 0 && ms < 1000) return `${isoPrefix}${`${1000 + ms}`.slice(1)}Z`;
  const text = new Date(now).toISOString();
  isoSecond = Math.floor(now / 1000) * 1000;
  isoPrefix = text.slice(0, -4);
  return text;
}
