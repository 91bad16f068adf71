import { isPlainObject } from './plain.js';
import type { WalkState } from './walk-state.js';

/**
 * The fixed-shape objects of web types (Blob, image, Error, RegExp records) on the lift side:
 * an object with every required key, and no key outside required + optional.
 */
export function liftRecord(
  value: unknown,
  w: WalkState,
  depth: number,
  at: string,
  what: string,
  required: readonly string[],
  optional: readonly string[] = [],
): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    w.fail('type_mismatch', `Expected an object (the JSON form of ${what}).`, `${at}/webType`);
  }
  if (!isPlainObject(value)) w.fail('not_json', 'Not a JSON object.', at);
  w.enter(value, depth, at);
  for (const key of Object.keys(value)) {
    if (!required.includes(key) && !optional.includes(key)) {
      w.path.push(key);
      w.fail(
        'unexpected_property',
        `${what} records have only ${[...required, ...optional].join(', ')}.`,
        `${at}/webType`,
      );
    }
    w.chars += key.length;
    w.items++;
  }
  for (const key of required) {
    if (!Object.hasOwn(value, key)) {
      w.fail('missing_property', `${what} records need "${key}".`, `${at}/webType`);
    }
  }
  return value as Record<string, unknown>;
}

/** Runs `read` with `key` on the path, so its failures point at that field. */
export function field<T>(w: WalkState, key: string, read: () => T): T {
  w.path.push(key);
  const result = read();
  w.path.pop();
  return result;
}

/** A string field of a record, counted in the size budget. */
export function stringField(w: WalkState, value: unknown, at: string, what: string): string {
  if (typeof value !== 'string') w.fail('type_mismatch', `${what} must be a string.`, at);
  w.chars += value.length;
  w.items++;
  return value;
}

/**
 * Counts the keys of a record lower builds (its values are counted as they are made), so a
 * record's JSON size is charged like any other object's.
 */
export function countKeys(w: WalkState, keys: readonly string[]): void {
  for (const key of keys) {
    w.chars += key.length;
    w.items++;
  }
}
