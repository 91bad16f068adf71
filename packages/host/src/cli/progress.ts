/**
 * The progress line of `toolwire call` and `toolwire batch` (cli/client.ts `callPage`) on stderr.
 *
 * - Nothing for the first PROGRESS_AFTER_MS: a quick call prints no progress. Then the latest
 *   report, `progress 3/10 message` (`progress 3 message` without a total).
 * - On a terminal, one line rewritten in place (at most every PROGRESS_TTY_MS) and cleared
 *   before the outcome is printed; otherwise a line at most every PROGRESS_AFTER_MS, the latest
 *   report winning.
 * - The message is the page's: clipped and every control character made visible
 *   (shared/terminal-text.ts), so a page cannot move the cursor, retitle the terminal or forge a
 *   line.
 */
import type { Writable } from 'node:stream';
import type { ProgressReport } from '@toolwire/protocol';
import { escapeLine } from '../shared/terminal-text.js';
import { clip } from './format.js';

/** How long a call runs before its progress is shown (and, off a terminal, between lines). */
export const PROGRESS_AFTER_MS = 1000;
/** On a terminal, how often the progress line is rewritten at most. */
const PROGRESS_TTY_MS = 100;

/** `progress 3/10 message`, one terminal-safe line (the message is the page's). */
export function progressText(report: ProgressReport): string {
  const count =
    report.total === undefined ? `${report.progress}` : `${report.progress}/${report.total}`;
  const message = report.message ? ` ${clip(report.message, 200)}` : '';
  return escapeLine(`progress ${count}${message}`);
}

/** The progress line of a call on stderr (the header). */
export function progressLine(stream: Writable) {
  const tty = (stream as { isTTY?: boolean }).isTTY === true;
  const every = tty ? PROGRESS_TTY_MS : PROGRESS_AFTER_MS;
  let next = Date.now() + PROGRESS_AFTER_MS;
  let held: ProgressReport | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let shown = false;
  let done = false;
  const show = () => {
    timer = undefined;
    if (done || !held) return;
    const text = progressText(held);
    held = undefined;
    next = Date.now() + every;
    if (tty) {
      stream.write(`\r\x1b[K${text}`);
      shown = true;
    } else {
      stream.write(`${text}\n`);
    }
  };
  return {
    report(report: ProgressReport) {
      held = report;
      const wait = next - Date.now();
      if (wait <= 0) show();
      else timer ??= setTimeout(show, wait);
    },
    /** Before anything else is printed: no more progress, and the terminal's line cleared. */
    end() {
      done = true;
      clearTimeout(timer);
      if (shown) stream.write('\r\x1b[K');
    },
  };
}
