/**
 * A small timing harness: warm up, then sample until a time budget is spent, report the median.
 * Each iteration is timed on its own so a GC pause lands in one sample instead of skewing the
 * median; work that is not being measured (building the request, checking the answer) runs
 * outside the timed region.
 */
import { performance } from 'node:perf_hooks';

export class BenchFailure extends Error {
  override name = 'BenchFailure';
}

/** A sanity check: the bench must fail loudly rather than time a wrong answer. */
export function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new BenchFailure(message);
}

export interface Timing {
  medianMs: number;
  runs: number;
  /** Sum of the timed regions, to show the row really ran for its budget. */
  totalMs: number;
}

export interface Budget {
  /** Sample until the timed regions add up to this much. */
  minTimeMs: number;
  minRuns: number;
  maxRuns: number;
  /** Stop early (after minRuns) once a row has taken this long, to bound the whole bench. */
  maxTimeMs: number;
  warmupMs: number;
  minWarmupRuns: number;
}

export const DEFAULT_BUDGET: Budget = {
  minTimeMs: 500,
  minRuns: 5,
  maxRuns: 50_000,
  maxTimeMs: 6_000,
  warmupMs: 150,
  minWarmupRuns: 3,
};

export interface Case<P, T> {
  /** Per-iteration input made outside the timed region (e.g. a request frame with a fresh id). */
  prepare: (iteration: number) => P;
  run: (input: P) => T | Promise<T>;
  /** Runs outside the timed region on every result, warm-up included; throw to fail the bench. */
  check?: (result: T, iteration: number) => void;
}

function isPromiseLike<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

async function timeOnce<P, T>(
  subject: Case<P, T>,
  iteration: number,
): Promise<{ ms: number; result: T }> {
  const input = subject.prepare(iteration);
  const start = performance.now();
  const pending = subject.run(input);
  // Synchronous work is timed without an await, whose microtask hop would be noise at 1 µs.
  const result = isPromiseLike(pending) ? await pending : pending;
  const ms = performance.now() - start;
  subject.check?.(result, iteration);
  return { ms, result };
}

export function median(values: readonly number[]): number {
  expect(values.length > 0, 'median of no samples');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Times one case: warm-up, then samples until the budget is spent. */
export async function measure<P, T>(
  subject: Case<P, T>,
  budget: Budget = DEFAULT_BUDGET,
): Promise<Timing> {
  return (await measureInterleaved([subject], budget))[0] as Timing;
}

/**
 * Times several cases in lockstep (a, b, a, b...), so a baseline sees the same machine state as
 * the code it is compared with; drift on a shared box then moves both, not the ratio.
 */
export async function measureInterleaved<const Cases extends readonly Case<any, any>[]>(
  subjects: Cases,
  budget: Budget = DEFAULT_BUDGET,
): Promise<{ [K in keyof Cases]: Timing }> {
  let iteration = 0;
  const warmStart = performance.now();
  for (
    let warm = 0;
    warm < budget.minWarmupRuns || performance.now() - warmStart < budget.warmupMs;
    warm++
  ) {
    for (const subject of subjects) await timeOnce(subject, iteration);
    iteration++;
  }
  const samples = subjects.map(() => [] as number[]);
  const totals = subjects.map(() => 0);
  const rowStart = performance.now();
  for (;;) {
    for (let k = 0; k < subjects.length; k++) {
      const { ms } = await timeOnce(subjects[k] as Case<unknown, unknown>, iteration);
      (samples[k] as number[]).push(ms);
      totals[k] = (totals[k] as number) + ms;
    }
    iteration++;
    const runs = (samples[0] as number[]).length;
    if (runs >= budget.maxRuns) break;
    if (runs < budget.minRuns) continue;
    if (totals.every((total) => total >= budget.minTimeMs)) break;
    if (performance.now() - rowStart >= budget.maxTimeMs) break;
  }
  // One Timing per case, in order: the mapped tuple type says exactly that.
  return samples.map((values, k) => ({
    medianMs: median(values),
    runs: values.length,
    totalMs: totals[k] as number,
  })) as { [K in keyof Cases]: Timing };
}

/** Times something that can only happen once (a cold start). */
export async function timeSingle<T>(
  run: () => T | Promise<T>,
  check?: (result: T) => void,
): Promise<Timing> {
  const { ms } = await timeOnce({ prepare: () => undefined, run, check }, 0);
  return { medianMs: ms, runs: 1, totalMs: ms };
}

// ---- output ------------------------------------------------------------------------------

export function formatMs(ms: number): string {
  if (ms < 1) return ms.toFixed(4);
  if (ms < 100) return ms.toFixed(2);
  return ms.toFixed(1);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(2)} MiB`;
}

export function formatPercent(ratio: number): string {
  const percent = ratio * 100;
  return `${percent < 1 ? percent.toFixed(3) : percent.toFixed(1)}%`;
}

export function formatRatio(ratio: number): string {
  return `${ratio.toFixed(2)}x`;
}

/** A markdown table with numeric-looking cells right-aligned, padded for reading in a terminal. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]) {
  const numeric = header.map((_, column) =>
    rows.every((row) => /^[-\d.,%x<>= ]*$/.test(row[column] ?? '')),
  );
  const widths = header.map((title, column) =>
    Math.max(title.length, 3, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells
      .map((cell, column) => {
        const width = widths[column] as number;
        return numeric[column] ? cell.padStart(width) : cell.padEnd(width);
      })
      .join(' | ')} |`;
  const rule = `|${widths
    .map((width, column) => `${'-'.repeat(width + 1)}${numeric[column] ? ':' : '-'}`)
    .join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
