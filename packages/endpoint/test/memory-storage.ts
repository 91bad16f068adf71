/** A `Storage` in memory, for tests of what a tab keeps in `sessionStorage`. */
export class MemoryStorage {
  #items = new Map<string, string>();
  get length() {
    return this.#items.size;
  }
  getItem(key: string) {
    return this.#items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.#items.set(key, String(value));
  }
  removeItem(key: string) {
    this.#items.delete(key);
  }
  clear() {
    this.#items.clear();
  }
  key(index: number) {
    return [...this.#items.keys()][index] ?? null;
  }
}
