/**
 * The heartbeat watchdog: a host silent for three of its heartbeat intervals (a sleeping laptop,
 * a dead process behind a live proxy) is given up on.
 */
export class Watchdog {
  /** When the host was last heard from; the session writes it on every frame (no call). */
  heardAt = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** Check every `intervalMs`; call `onSilent` once after three silent intervals. 0: off. */
  start(intervalMs: number, onSilent: () => void): void {
    this.stop();
    if (intervalMs <= 0) return;
    this.#timer = setInterval(() => {
      if (Date.now() - this.heardAt >= 3 * intervalMs) {
        this.stop();
        onSilent();
      }
    }, intervalMs);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
