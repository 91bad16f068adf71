/**
 * Refused upgrades, logged at most once per key (an origin, else an address) per interval: a
 * page retrying in a loop, or a flood of origins, cannot fill the log. The next line for a key
 * says how many were left out since its last one.
 */

/** One log line per key per this interval. */
const REFUSAL_LOG_INTERVAL_MS = 10_000;
const MAX_REFUSAL_KEYS = 256;

export class RefusalLog {
  #refusals = new Map<string, { at: number; suppressed: number }>();
  #log: (line: string) => void;

  constructor(log: (line: string) => void) {
    this.#log = log;
  }

  /** Logs `line` for `key` unless it logged one within the interval (then it counts it). */
  note(key: string, line: string): void {
    const now = Date.now();
    const seen = this.#refusals.get(key);
    if (seen && now - seen.at < REFUSAL_LOG_INTERVAL_MS) {
      seen.suppressed++;
      return;
    }
    if (!seen && this.#refusals.size >= MAX_REFUSAL_KEYS) {
      // Many distinct origins at once: forget the quiet ones, or all, rather than grow.
      for (const [other, entry] of this.#refusals) {
        if (now - entry.at >= REFUSAL_LOG_INTERVAL_MS) this.#refusals.delete(other);
      }
      if (this.#refusals.size >= MAX_REFUSAL_KEYS) this.#refusals.clear();
    }
    const more = seen?.suppressed ? ` (and ${seen.suppressed} more since the last line)` : '';
    this.#refusals.set(key, { at: now, suppressed: 0 });
    this.#log(`${line}${more}`);
  }
}
