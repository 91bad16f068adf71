/**
 * A tool's progress reports (docs/browser-api.md "Progress"): `context.reportProgress` on the
 * tool's side, `onProgress` on the caller's. One set of checks, made wherever a report is
 * received (here for a call in this document, again in the caller's frame for a call that
 * crossed frames, since a frame's reports are untrusted input):
 * - `progress` is a finite number greater than the call's last delivered report, else dropped;
 * - `total`, when given, is a finite number, and `message` a string, else the report is dropped;
 * - `message` is clipped to MAX_PROGRESS_MESSAGE code units (never inside a surrogate pair);
 * - nothing is delivered once the call has ended (`ended()`);
 * - a throwing `onProgress` is reported (reportError) and never reaches the tool.
 */
import type { ToolProgress } from './types.js';

export const MAX_PROGRESS_MESSAGE = 1024;

/** The `reportProgress` of a call whose caller did not ask: shared, it builds nothing. */
export function noProgress(): void {}

/** A `reportProgress` that checks each report and hands it to `onProgress` while the call runs. */
export function progressReporter(
  onProgress: (progress: ToolProgress) => void,
  ended: () => boolean,
): (progress: unknown, total?: unknown, message?: unknown) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (progress, total, message) => {
    // Number.isFinite is false for anything but a finite number (it does not coerce).
    if (
      ended() ||
      !Number.isFinite(progress) ||
      (progress as number) <= last ||
      (total !== undefined && !Number.isFinite(total)) ||
      (message !== undefined && typeof message !== 'string')
    )
      return;
    last = progress as number;
    const report: ToolProgress = { progress: last };
    if (total !== undefined) report.total = total as number;
    if (message !== undefined) {
      const clipped = (message as string).slice(0, MAX_PROGRESS_MESSAGE);
      // A high surrogate at the cut would be left without its pair.
      report.message = /[\ud800-\udbff]$/.test(clipped) ? clipped.slice(0, -1) : clipped;
    }
    try {
      onProgress(report);
    } catch (error) {
      // As a throwing event listener is: reported (where the realm can), and the call goes on.
      globalThis.reportError?.(error);
    }
  };
}
