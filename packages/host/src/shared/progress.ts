/**
 * A call's progress as the host's roads pass it on (the control API, `toolwire call`, the MCP
 * bridge): the protocol's `ProgressReport`, `{progress, total?, message?}`, what the page's
 * `session.progress` said of one request.
 *
 * Every road reads a report as untrusted JSON (a page, or a host, wrote it): the protocol's
 * `readProgressReport` keeps finite numbers and a string message clipped to
 * MAX_PROGRESS_MESSAGE characters, and `increasing` drops a report whose progress does not go up
 * (MCP requires that of `notifications/progress`; the page drops such reports too, a hostile
 * one may not).
 */
import type { ProgressReport } from '@toolwire/protocol';
import { readProgressReport } from '@toolwire/protocol';

export type ProgressListener = (report: ProgressReport) => void;

/** The longest message passed on; a longer one is cut. */
const MAX_PROGRESS_MESSAGE = 1024;

/** `listener` behind the protocol's reader and a rising `progress`: others are dropped. */
export function increasing(listener: ProgressListener): (value: unknown) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (value) => {
    const report = readProgressReport(value, MAX_PROGRESS_MESSAGE);
    if (!report || report.progress <= last) return;
    last = report.progress;
    listener(report);
  };
}
