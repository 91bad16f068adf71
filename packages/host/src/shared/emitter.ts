/**
 * A typed listener list: `on(type, listener)` returns its own unsubscribe. A listener that
 * throws is reported and skipped, so one bad listener cannot break a socket handler.
 */
export class Emitter<Events extends Record<string, unknown>> {
  #listeners = new Map<keyof Events, Set<(value: never) => void>>();

  on<K extends keyof Events>(type: K, listener: (value: Events[K]) => void): () => void {
    let set = this.#listeners.get(type);
    if (!set) {
      set = new Set();
      this.#listeners.set(type, set);
    }
    set.add(listener as (value: never) => void);
    return () => {
      set.delete(listener as (value: never) => void);
    };
  }

  protected emit<K extends keyof Events>(type: K, value: Events[K]): void {
    const set = this.#listeners.get(type);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as (value: Events[K]) => void)(value);
      } catch (error) {
        console.error(`toolwire host: a "${String(type)}" listener threw:`, error);
      }
    }
  }
}
