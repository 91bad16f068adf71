import { countKeys, field, liftRecord, stringField } from '../record.js';
import type { WalkState } from '../walk-state.js';

/** RegExp <-> `{source, flags}` (docs/browser-api.md). `lastIndex` is state, not data: it is not sent. */

/** The flags ECMAScript defines; a flag outside them would be an engine's own extension. */
const FLAGS = /^[dgimsuvy]*$/;

export function lowerRegExp(
  value: RegExp,
  w: WalkState,
  depth: number,
  at: string,
): Record<string, string> {
  w.enter(value, depth, at);
  countKeys(w, ['source', 'flags']);
  const { source, flags } = value;
  w.chars += source.length + flags.length;
  w.items += 2;
  return { source, flags };
}

export function liftRegExp(value: unknown, w: WalkState, depth: number, at: string): RegExp {
  const rule = `${at}/webType`;
  const record = liftRecord(value, w, depth, at, 'RegExp', ['source', 'flags']);
  const source = field(w, 'source', () => stringField(w, record.source, rule, 'source'));
  const flags = field(w, 'flags', () => {
    const text = stringField(w, record.flags, rule, 'flags');
    if (!FLAGS.test(text) || new Set(text).size !== text.length) {
      w.fail('invalid_value', 'flags are distinct letters of dgimsuvy.', rule);
    }
    return text;
  });
  // Compiling is the only complete check of a source (and of flag pairs such as u with v).
  try {
    return new RegExp(source, flags);
  } catch (error) {
    w.path.push('source');
    return w.fail('invalid_value', 'source does not compile with these flags.', rule, error);
  }
}
