/**
 * The built-ins the MAIN-world reader touches with its secrets (the private port, the nonce, the
 * relay's request ids), taken when this module is evaluated: at `document_start`, before any
 * page script. The MAIN world shares its prototypes with the page, so a page can later redefine
 * `MessageEvent.prototype.data`, `Map.prototype.get`, `Array.isArray` or even
 * `Function.prototype.call`, and see (or change) whatever passes through them. Code that holds a
 * secret calls only what is here: plain functions whose `this` is bound now, never a method
 * looked up on an object when it runs.
 *
 * A reader injected into a document that had loaded already (a tab opened before the
 * extension) takes them after the page's scripts ran: then they are whatever the page left.
 *
 * What the reader hands the page's own tools (a call's input, the listing it asks for) goes
 * through the page's code anyway, and is the page's word; none of it carries a secret.
 */

const { bind, call } = Function.prototype;

/**
 * `uncurryThis(Map.prototype.get)(map, key)` calls the original `get` on `map`: a bound
 * `Function.prototype.call`, so no later change to `call`, `bind` or `apply` reaches it.
 */
const uncurryThis = bind.bind(call) as <This, Args extends unknown[], R>(
  fn: (this: This, ...args: Args) => R,
) => (self: This, ...args: Args) => R;

function getterOf<T>(proto: object, key: PropertyKey): (self: object) => T {
  const get = Object.getOwnPropertyDescriptor(proto, key)?.get;
  if (typeof get !== 'function') throw new TypeError(`No getter ${String(key)} to capture.`);
  return uncurryThis(get as (this: object) => T);
}

/** `event.data` through the original getter, whatever the page defined since. */
export const messageData: (event: MessageEvent) => unknown = getterOf(
  globalThis.MessageEvent.prototype,
  'data',
);

export const isArray: (value: unknown) => boolean = Array.isArray;

/** `JSON.stringify`, as it was: a call's result is sent to the relay as this text. */
export const jsonText: (value: unknown) => string | undefined = JSON.stringify;

/** `JSON.parse`, as it was: a call's input may come as JSON text. */
export const jsonValue: (text: string) => unknown = JSON.parse;
const hasOwn: (value: object, key: PropertyKey) => boolean = Object.hasOwn;

/**
 * An own property of a received message, or undefined: reading a key the object lacks would
 * ask `Object.prototype`, where a page's getter would get the message (and its nonce) as `this`.
 */
export function ownField(record: object, key: string): unknown {
  return hasOwn(record, key) ? (record as Record<string, unknown>)[key] : undefined;
}

const mapGet = uncurryThis(Map.prototype.get) as (
  map: Map<unknown, unknown>,
  key: unknown,
) => unknown;
const mapSet = uncurryThis(Map.prototype.set) as (
  map: Map<unknown, unknown>,
  key: unknown,
  value: unknown,
) => unknown;
const mapHas = uncurryThis(Map.prototype.has) as (
  map: Map<unknown, unknown>,
  key: unknown,
) => boolean;
const mapDelete = uncurryThis(Map.prototype.delete) as (
  map: Map<unknown, unknown>,
  key: unknown,
) => boolean;

/**
 * A map keyed by request id whose methods are the originals, taken now: the page may replace
 * `Map.prototype.set` to record the ids it is given.
 */
export class SealedMap<K, V> {
  readonly #map = new Map<K, V>();
  get(key: K): V | undefined {
    return mapGet(this.#map as Map<unknown, unknown>, key) as V | undefined;
  }
  set(key: K, value: V): void {
    mapSet(this.#map as Map<unknown, unknown>, key, value);
  }
  has(key: K): boolean {
    return mapHas(this.#map as Map<unknown, unknown>, key);
  }
  delete(key: K): void {
    mapDelete(this.#map as Map<unknown, unknown>, key);
  }
}
