/**
 * Headline figures, machine-readable: each bench calls `record()` for the rows docs/performance.md
 * has a target for and the ones its "The latest full run" table quotes. With
 * `TOOLWIRE_BENCH_SUMMARY=<file>` set, every row is appended to that file as one JSON line
 * (bench/all.ts sets it and prints one table of them all); without it, `record()` does nothing.
 * The detailed report a bench prints is unchanged either way.
 */
import { appendFileSync } from 'node:fs';
import { formatPercent, formatRatio } from './harness.js';

export const SUMMARY_ENV = 'TOOLWIRE_BENCH_SUMMARY';

export type Unit = 'ms' | 'us' | 'B' | 'calls/s';

export interface Figure {
  value: number;
  unit: Unit;
}

/** What a target bounds: the ratio ours / baseline, or our figure itself (in its unit). */
export interface Target {
  op: '<' | '<=' | '>=';
  value: number;
  of: 'ratio' | 'figure';
}

export interface Headline {
  /** The bench's name: `protocol` for bench/protocol.bench.ts, run by `pnpm bench:protocol`. */
  bench: string;
  /** What is measured, short: the summary table's first column. */
  what: string;
  figure: Figure;
  /** The baseline measured in the same process run, if the figure has one. */
  baseline?: Figure & { name: string };
  /** How to show ours / baseline: `1.23x` (default) or `0.073%`. */
  ratioAs?: 'x' | 'percent';
  target?: Target;
  /** Overrides the verdict worked out from `target` (for a target with more to it than a bound). */
  met?: boolean;
  note?: string;
}

/** One JSON line of the summary file. */
export interface HeadlineRow extends Omit<Headline, 'met'> {
  command: string;
  /** ours / baseline; null without a baseline (or when it is not a number). */
  ratio: number | null;
  /** The target in words, e.g. `<= 1.2x`, `< 50 ms`; `-` without one. */
  targetText: string;
  /** true met, false missed, null without a target. */
  met: boolean | null;
  recordedAt: string;
}

function finite(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

/** Our figure or a baseline's, with its unit: `0.391 ms`, `1.58 us`, `8,889 B`, `8,757/s`. */
export function formatFigure(figure: Figure): string {
  const { value, unit } = figure;
  if (!Number.isFinite(value)) return String(value);
  switch (unit) {
    case 'ms':
    case 'us':
      return `${fixed(value)} ${unit}`;
    case 'B':
      return `${Math.round(value).toLocaleString('en-US')} B`;
    case 'calls/s':
      return `${Math.round(value).toLocaleString('en-US')}/s`;
  }
}

/** Three or four significant digits, never fewer than a whole number. */
function fixed(value: number): string {
  const size = Math.abs(value);
  if (size >= 1000) return Math.round(value).toLocaleString('en-US');
  if (size >= 100) return value.toFixed(1);
  if (size >= 10) return value.toFixed(2);
  if (size >= 0.1) return value.toFixed(3);
  return value.toFixed(4);
}

export function formatRatioAs(ratio: number | null, as: 'x' | 'percent' = 'x'): string {
  if (ratio === null) return '-';
  return as === 'percent' ? formatPercent(ratio) : formatRatio(ratio);
}

function targetText(headline: Headline): string {
  const { target } = headline;
  if (!target) return '-';
  const bound =
    target.of === 'figure'
      ? `${target.value.toLocaleString('en-US')} ${headline.figure.unit}`
      : headline.ratioAs === 'percent'
        ? `${target.value * 100}%`
        : `${target.value}x`;
  return `${target.op} ${bound}`;
}

function meets(value: number | null, target: Target): boolean {
  if (value === null) return false;
  if (target.op === '<') return value < target.value;
  if (target.op === '<=') return value <= target.value;
  return value >= target.value;
}

/** The full row for a headline: ratio, target text and verdict worked out. */
export function headlineRow(headline: Headline): HeadlineRow {
  const ratio = headline.baseline ? finite(headline.figure.value / headline.baseline.value) : null;
  const { target } = headline;
  const met =
    headline.met ??
    (target ? meets(target.of === 'ratio' ? ratio : finite(headline.figure.value), target) : null);
  return {
    ...headline,
    command: `pnpm bench:${headline.bench}`,
    ratio,
    targetText: targetText(headline),
    met,
    recordedAt: new Date().toISOString(),
  };
}

/**
 * Records a headline figure: one JSON line appended to `$TOOLWIRE_BENCH_SUMMARY`, or nothing
 * when it is not set. Returns the row, so a bench can print the same verdict.
 */
export function record(headline: Headline): HeadlineRow {
  const row = headlineRow(headline);
  const file = process.env[SUMMARY_ENV];
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
  return row;
}
