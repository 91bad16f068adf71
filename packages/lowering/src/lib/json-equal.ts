import type { Json } from '../types.js';

/** JSON Schema equality (enum, const): numbers by value, objects regardless of key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) {
      return false;
    }
  }
  return true;
}

/**
 * Index of the first item whose JSON form equals an earlier one, or -1. Scalars are compared
 * through a Set (1 and "1" stay apart); containers through their canonical text (sorted keys).
 */
export function firstDuplicate(items: readonly Json[]): number {
  const scalars = new Set<unknown>();
  let containers: Set<string> | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (typeof item === 'object' && item !== null) {
      containers ??= new Set();
      const text = canonical(item);
      if (containers.has(text)) return i;
      containers.add(text);
    } else {
      if (scalars.has(item)) return i;
      scalars.add(item);
    }
  }
  return -1;
}

/** JSON text with object keys sorted: equal values, equal text, whatever the key order. */
function canonical(value: Json): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key] as Json)}`).join(',')}}`;
}
