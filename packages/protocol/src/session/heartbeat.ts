/**
 * The heartbeat of a session, for both ends (docs/wire.md "Session messages", Heartbeats): every
 * frame from the peer is a sign of life (`heardAt`, written per frame without a call); a timer
 * runs every interval and gives up on a peer silent for three of them.
 *
 * The host pings on each beat (`onBeat`); the page only listens. Where the timer can run before
 * the socket reads of the same loop turn (Node: timers come first after a stall of the process),
 * `defer` moves the decision past them (setImmediate), so an answer that waits unread counts.
 */
export interface HeartbeatOptions {
  intervalMs: number;
  /** Each beat while the peer is alive (the host's ping). */
  onBeat?: () => void;
  /** The peer was silent for three intervals: called once, the heartbeat stopped. */
  onSilent: () => void;
  /** Runs the silence decision later (Node: setImmediate); default: at once. */
  defer?: (decide: () => void) => void;
}

export class Heartbeat {
  /** When the peer was last heard from (epoch ms). */
  heardAt = Date.now();
  #timer: ReturnType<typeof setInterval> | undefined;

  /** Starts (or restarts) beating every `intervalMs`; 0 or less: off. */
  start(options: HeartbeatOptions): void {
    this.stop();
    const { intervalMs, onBeat, onSilent, defer } = options;
    if (!(intervalMs > 0)) return;
    const timer = setInterval(() => {
      if (!this.#silent(intervalMs)) {
        onBeat?.();
        return;
      }
      const decide = () => {
        if (this.#timer !== timer || !this.#silent(intervalMs)) return;
        this.stop();
        onSilent();
      };
      if (defer) defer(decide);
      else decide();
    }, intervalMs);
    (timer as { unref?: () => void }).unref?.();
    this.#timer = timer;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #silent(intervalMs: number): boolean {
    return Date.now() - this.heardAt >= 3 * intervalMs;
  }
}
