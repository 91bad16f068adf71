/**
 * When does a new render's definition need a new registration? When its data changed: name,
 * description, schemas, annotations, exposedTo, policy... compared by value, so an inline
 * literal rebuilt on every render is the same tool. Functions are never compared (the hook
 * calls the latest `execute` / `availability` through a ref); only whether one is there counts.
 * Objects that are not plain (class instances, e.g. a Standard Schema object) compare by
 * reference: their own fields may be private state, and walking them could be costly.
 */

const references = new WeakMap<object, number>();
let nextReference = 1;

function referenceOf(value: object): string {
  let id = references.get(value);
  if (id === undefined) {
    id = nextReference++;
    references.set(value, id);
  }
  return `\u0000ref:${id}`;
}

function isPlain(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function replacer(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'function') return '\u0000function';
  if (typeof value === 'bigint') return `\u0000bigint:${value}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  if (!isPlain(value)) return referenceOf(value);
  // Sorted keys: the same data written in another order is the same tool.
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    sorted[key] = (value as Record<string, unknown>)[key];
  return sorted;
}

/** A string equal for two definitions exactly when they need the same registration. */
export function identityKey(definition: object): string {
  try {
    return JSON.stringify(definition, replacer);
  } catch {
    // A cycle (which register() refuses anyway): fall back to the object's own identity.
    return referenceOf(definition);
  }
}
