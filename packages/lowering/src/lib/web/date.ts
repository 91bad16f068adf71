import type { WalkState } from '../walk-state.js';

/**
 * Date <-> RFC 3339 `date-time` (docs/browser-api.md: `format: date-time`). Lowering always writes
 * `toISOString()`: UTC, milliseconds, `Z`. Lifting accepts any RFC 3339 date-time (offsets,
 * lowercase t/z, 0 to n fraction digits) whose instant a Date holds exactly.
 */

/** RFC 3339 §5.6 `date-time`; each field's range is checked after the match. */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

export function lowerDate(value: Date, w: WalkState, at: string): string {
  const time = value.getTime();
  if (Number.isNaN(time)) w.fail('invalid_value', 'An invalid Date has no date-time form.', at);
  const year = value.getUTCFullYear();
  // RFC 3339 has four-digit years; toISOString would write +275760 or -000001.
  if (year < 0 || year > 9999) {
    w.fail('invalid_value', `Year ${year} is outside RFC 3339 (0000-9999).`, at);
  }
  w.exact += 24;
  w.items++;
  return value.toISOString();
}

export function liftDate(value: unknown, w: WalkState, at: string): Date {
  if (typeof value !== 'string') {
    w.fail('type_mismatch', 'A Date is a date-time string.', `${at}/webType`);
  }
  w.chars += value.length;
  w.items++;
  const m = DATE_TIME.exec(value);
  if (!m) w.fail('invalid_value', 'Not an RFC 3339 date-time.', `${at}/webType`);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = m[7] ?? '';
  const bad = (why: string): never => w.fail('invalid_value', why, `${at}/webType`);
  if (month < 1 || month > 12) bad('Month out of range.');
  if (day < 1 || day > daysInMonth(year, month)) bad('Day out of range for its month.');
  if (hour > 23 || minute > 59) bad('Time out of range.');
  // A Date cannot stand on a leap second (RFC 3339 allows :60): refuse rather than round.
  if (second > 59) bad('Second 60 (a leap second) has no Date.');
  if (/[1-9]/.test(fraction.slice(3))) bad('Finer than a millisecond, which a Date cannot hold.');
  let offset = 0;
  if (m[8] !== undefined) {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) bad('Offset out of range.');
    offset = (m[8] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  // Date.UTC maps years 0-99 to 1900-1999, so the year is set on its own.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Number(fraction.slice(0, 3).padEnd(3, '0')));
  return new Date(date.getTime() - offset * 60_000);
}

/** Gregorian month lengths, proleptic before 1582, as Date itself counts. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  }
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
