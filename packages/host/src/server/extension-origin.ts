/**
 * A browser extension's origin, as its WebSocket's `Origin` header carries it
 * (`chrome-extension://<id>`), read from what a person types: the origin or the bare id. The
 * WHATWG URL parser gives such URLs no origin (`null`), so page origins' rule
 * (`new URL(x).origin`) cannot read them; this is the one place that does.
 *
 * A Chromium extension id is 32 letters `a` to `p` (a hash of its key, written in base 16 with
 * those letters). Anything else is refused, so a typo cannot make a code nobody can redeem.
 */
const EXTENSION_ID = /^[a-p]{32}$/;
const SCHEME = 'chrome-extension://';

/** `chrome-extension://<id>` for `value` (that origin, with or without a trailing `/`, or the id). */
export function extensionOrigin(value: string): string {
  const trimmed = value.trim().toLowerCase().replace(/\/$/, '');
  const id = trimmed.startsWith(SCHEME) ? trimmed.slice(SCHEME.length) : trimmed;
  if (!EXTENSION_ID.test(id)) {
    throw new TypeError(
      `"${value}" is not an extension id or origin (chrome-extension:// and 32 letters a-p).`,
    );
  }
  return `${SCHEME}${id}`;
}
