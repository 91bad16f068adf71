/**
 * The page's `session.progress` reports, per request (docs/wire.md "Deadlines, cancel and
 * progress"):
 *
 * 1. `progress` must grow: a report whose progress is not above the last one kept (or is not a
 *    finite number) is dropped.
 * 2. At most one report per 50 ms per request goes out; the latest waiting one wins.
 * 3. The last one waiting goes out before the request's answer (`settle`), and nothing after.
 *
 * Nothing exists here for a request until its first report: requests that never report (or
 * never asked) cost one `size` check at their answer.
 */
import type { SessionProgressPayload } from './messages.js';

/** A report's message is clipped to this many UTF-16 units (the host clips what it reads too). */
const MAX_MESSAGE = 2048;

/** At most one report per request this often. */
export const PROGRESS_INTERVAL_MS = 50;

interface RequestProgress {
  /** The last progress kept (sent or waiting). */
  last: number;
  /** When the last report went out. */
  sentAt: number;
  waiting: SessionProgressPayload | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class ProgressOutbox {
  #requests = new Map<string, RequestProgress>();
  #send: (report: SessionProgressPayload) => void;

  constructor(send: (report: SessionProgressPayload) => void) {
    this.#send = send;
  }

  /** A tool's report for request `requestId` (pending, and one that asked). */
  report(requestId: string, progress: number, total?: number, message?: string): void {
    if (typeof progress !== 'number' || !Number.isFinite(progress)) return;
    let state = this.#requests.get(requestId);
    if (state && !(progress > state.last)) return;
    const report: SessionProgressPayload = { requestId, progress };
    if (typeof total === 'number' && Number.isFinite(total)) report.total = total;
    if (typeof message === 'string') report.message = message.slice(0, MAX_MESSAGE);
    const now = Date.now();
    if (!state) {
      state = { last: progress, sentAt: now, waiting: undefined, timer: undefined };
      this.#requests.set(requestId, state);
      this.#send(report);
      return;
    }
    state.last = progress;
    if (state.timer === undefined && now - state.sentAt >= PROGRESS_INTERVAL_MS) {
      state.sentAt = now;
      this.#send(report);
      return;
    }
    state.waiting = report;
    state.timer ??= setTimeout(
      () => this.#flush(requestId),
      PROGRESS_INTERVAL_MS - (now - state.sentAt),
    );
  }

  /** Request `requestId` is about to be answered: its waiting report goes first, then no more. */
  settle(requestId: string): void {
    if (this.#requests.size === 0) return;
    const state = this.#requests.get(requestId);
    if (!state) return;
    this.#requests.delete(requestId);
    clearTimeout(state.timer);
    if (state.waiting) this.#send(state.waiting);
  }

  /** The connection is gone: nothing more is sent. */
  clear(): void {
    for (const state of this.#requests.values()) clearTimeout(state.timer);
    this.#requests.clear();
  }

  #flush(requestId: string): void {
    const state = this.#requests.get(requestId);
    if (!state) return;
    state.timer = undefined;
    const waiting = state.waiting;
    if (!waiting) return;
    state.waiting = undefined;
    state.sentAt = Date.now();
    this.#send(waiting);
  }
}
