import { describe, expect, it } from 'vitest';
import { escapeBody, escapeJson, escapeLine, stringifySafe } from '../src/shared/terminal-text.js';

// Anything a terminal acts on: C0 (but \t and \n in a body), DEL, C1, bidi controls, U+2028/9.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('terminal-text', () => {
  it('leaves ordinary text alone, Unicode and backslashes included', () => {
    const honest = 'Café — 東京 ✓ C:\\path\\to "quoted" <b>';
    expect(escapeLine(honest)).toBe(honest);
    expect(escapeBody(`${honest}\n\tnext line`)).toBe(`${honest}\n\tnext line`);
    expect(escapeJson(JSON.stringify({ honest }))).toBe(JSON.stringify({ honest }));
  });

  it('makes every control visible: ESC, OSC 0 and 52, BEL, CSI (U+009B), bidi, separators', () => {
    const hostile =
      'a\x1b[31mred\x1b]0;pwned\x07b\x1b]52;c;cHduZWQ=\x07c\u009b2Jd\u202eevil\u2066x\u2069\u2028\u2029\x7f\x00\r';
    const line = escapeLine(hostile);
    expect(line).not.toMatch(RAW);
    expect(line).toBe(
      'a\\x1b[31mred\\x1b]0;pwned\\x07b\\x1b]52;c;cHduZWQ=\\x07c\\u009b2Jd\\u202eevil\\u2066x\\u2069\\u2028\\u2029\\x7f\\x00\\r',
    );
    expect(escapeBody(hostile)).toBe(line);
  });

  it('a line escapes \\n and \\t; a body keeps them', () => {
    expect(escapeLine('one\ntwo\tthree')).toBe('one\\ntwo\\tthree');
    expect(escapeBody('one\ntwo\tthree')).toBe('one\ntwo\tthree');
  });

  it('covers every C0, DEL and C1 code point and nothing next to them', () => {
    for (let code = 0; code <= 0xa0; code++) {
      const char = String.fromCharCode(code);
      const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
      expect(escapeLine(char) !== char, `U+${code.toString(16)}`).toBe(control);
    }
  });

  it('is idempotent', () => {
    const once = escapeLine('\x1b]0;x\x07\u009b');
    expect(escapeLine(once)).toBe(once);
  });

  it('JSON: C1 and bidi as \\uXXXX, still the same JSON value', () => {
    const value = { id: 'a\u009b2J\u202e\x7f\x1b', list: ['\u2028'] };
    const text = stringifySafe(value);
    expect(text).not.toMatch(RAW);
    expect(JSON.parse(text)).toEqual(value);
    expect(text).toContain('"a\\u009b2J\\u202e\\u007f\\u001b"');
  });
});
