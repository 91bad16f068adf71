/**
 * Text a page controls (tool ids, titles, URLs, descriptions, results, error messages), made safe
 * to print to a terminal or a log.
 *
 * - Every character a terminal may act on becomes a visible escape: C0 controls and DEL as
 *   `\x1b`, C1 controls (U+0080-U+009F: U+009B is CSI on some terminals), bidi overrides and
 *   isolates (U+202A-U+202E, U+2066-U+2069) and the line and paragraph separators as `\u009b`.
 *   So no ESC, OSC (title, clipboard), BEL or CSI from a page ever reaches the terminal raw.
 * - `\n` and `\t` stay in a multi-line body; in a single-line cell (a table, a message) they are
 *   escaped too, so a page cannot forge a line of its own.
 * - A backslash is left as it is: escaping is idempotent (escaping twice changes nothing), and a
 *   page that writes a literal `\x1b` only gets those four harmless characters printed.
 */

// C0 but \t and \n, DEL, C1, U+2028/U+2029, bidi embeddings/overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const UNSAFE_BODY = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const UNSAFE_LINE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// What JSON.stringify leaves raw although a terminal acts on it (it escapes C0 itself).
const UNSAFE_JSON = /[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  if (code === 0x0a) return '\\n';
  if (code === 0x09) return '\\t';
  if (code === 0x0d) return '\\r';
  if (code < 0x80) return `\\x${code.toString(16).padStart(2, '0')}`;
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One line of untrusted text: every control character escaped, `\n` and `\t` included. */
export function escapeLine(text: string): string {
  return text.replace(UNSAFE_LINE, visible);
}

/** A multi-line body of untrusted text: as escapeLine, but `\n` and `\t` kept. */
export function escapeBody(text: string): string {
  return text.replace(UNSAFE_BODY, visible);
}

/**
 * JSON.stringify's output made terminal-safe and still valid JSON: the characters it leaves raw
 * (DEL, C1, bidi controls, U+2028/U+2029) can only sit inside strings, where `\uXXXX` means the
 * same character.
 */
export function escapeJson(json: string): string {
  return json.replace(
    UNSAFE_JSON,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** `JSON.stringify(value, null, indent)`, terminal-safe (escapeJson). */
export function stringifySafe(value: unknown, indent = 2): string {
  return escapeJson(JSON.stringify(value, null, indent) ?? 'null');
}
