/**
 * A call's progress as the host's roads pass it on (the control API, `toolwire call`, the MCP
 * bridge): the protocol's `ProgressReport`, `{progress, total?, message?}`, what the page's
 * `session.progress` said of one request.
 *
 * Every road reads a report as untrusted JSON (a page, or a host, wrote it): `readProgress`
 * keeps finite numbers and a string message clipped to MAX_PROGRESS_MESSAGE characters, and
 * `increasing` drops a report whose progress does not go up (MCP requires that of
 * `notifications/progress`; the page drops such reports too, a hostile one may not).
 */
import type { ProgressReport } from '@toolwire/protocol';

export type ProgressListener = (report: ProgressReport) => void;

/** The longest message passed on; a longer one is cut. */
const MAX_PROGRESS_MESSAGE = 1024;

/** `value` as a report, or undefined when it is not one (no finite `progress`). */
function readProgress(value: unknown): ProgressReport | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { progress, total, message } = value as Record<string, unknown>;
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return undefined;
  const report: ProgressReport = { progress };
  if (typeof total === 'number' && Number.isFinite(total)) report.total = total;
  if (typeof message === 'string') report.message = message.slice(0, MAX_PROGRESS_MESSAGE);
  return report;
}

/** `listener` behind readProgress and a rising `progress`: reports that go nowhere are dropped. */
export function increasing(listener: ProgressListener): (value: unknown) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (value) => {
    const report = readProgress(value);
    if (!report || report.progress <= last) return;
    last = report.progress;
    listener(report);
  };
}
