/** When to try the host again after a drop: capped exponential backoff with jitter. */
import type { ConnectOptions } from './options.js';

export class Backoff {
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #initialDelayMs: number;
  #maxDelayMs: number;

  constructor(option: ConnectOptions['reconnect']) {
    const tuning = typeof option === 'object' ? option : {};
    this.#initialDelayMs = tuning.initialDelayMs ?? 250;
    this.#maxDelayMs = tuning.maxDelayMs ?? 15_000;
  }

  /** Call `retry` after the next delay; each call doubles the one after it, up to the cap. */
  schedule(retry: () => void): void {
    clearTimeout(this.#timer);
    const exponential = Math.min(
      this.#maxDelayMs,
      this.#initialDelayMs * 2 ** Math.min(this.#attempt, 16),
    );
    // Full jitter in the upper half: spread reconnect storms, never wait longer than the cap.
    const delay = exponential / 2 + Math.random() * (exponential / 2);
    this.#attempt++;
    this.#timer = setTimeout(retry, delay);
  }

  /** A connection opened (or the network came back): the next delay is the initial one. */
  reset(): void {
    this.#attempt = 0;
  }

  cancel(): void {
    clearTimeout(this.#timer);
  }
}
