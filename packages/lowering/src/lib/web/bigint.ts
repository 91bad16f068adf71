import type { WalkState } from '../walk-state.js';

/** BigInt <-> decimal string (docs/browser-api.md: `pattern: ^-?[0-9]+$`). */

/**
 * Parsing decimal text into a BigInt costs more than linear time, so a hostile
 * 60-million-digit string could stall the page: 10,000 digits (about 33,000 bits) is the cap.
 */
const MAX_BIGINT_DIGITS = 10_000;
const DECIMAL = /^-?[0-9]+$/;

export function lowerBigInt(value: bigint, w: WalkState, at: string): string {
  const text = value.toString();
  if (text.length - (value < 0n ? 1 : 0) > MAX_BIGINT_DIGITS) {
    w.fail('invalid_value', `BigInt has more than ${MAX_BIGINT_DIGITS} digits.`, at);
  }
  w.exact += text.length;
  w.items++;
  return text;
}

export function liftBigInt(value: unknown, w: WalkState, at: string): bigint {
  if (typeof value !== 'string') {
    w.fail('type_mismatch', 'A BigInt is a decimal string.', `${at}/webType`);
  }
  w.chars += value.length;
  w.items++;
  if (!DECIMAL.test(value)) {
    w.fail('invalid_value', 'Not a decimal integer (^-?[0-9]+$).', `${at}/webType`);
  }
  if (value.length - (value.startsWith('-') ? 1 : 0) > MAX_BIGINT_DIGITS) {
    w.fail('invalid_value', `More than ${MAX_BIGINT_DIGITS} digits.`, `${at}/webType`);
  }
  return BigInt(value);
}
