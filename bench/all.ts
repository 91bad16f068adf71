/**
 * `pnpm bench`: every benchmark, one at a time, then one summary table of their headline figures.
 *
 * Each bench runs as its own child process (`tsx bench/<name>.bench.ts`, what `pnpm bench:<name>`
 * runs), never two at once: the machine has 2 cores and every bench times against a baseline in
 * its own process. A bench's output streams through and is kept in `bench/results/<name>.txt`;
 * its headline rows (bench/lib/summary.ts `record()`) arrive as JSON lines in
 * `bench/results/<name>.jsonl`. The table of them all is printed at the end and written to
 * `bench/results/summary.md` (and the rows to `bench/results/summary.jsonl`).
 *
 * Exits 1 when a bench process fails; the table still shows the benches that ran. Missed targets
 * are reported, never a failure.
 *
 *   pnpm bench                               every bench
 *   pnpm bench -- --only protocol,lowering   a subset, in the usual order
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatFigure, formatRatioAs, type HeadlineRow, SUMMARY_ENV } from './lib/summary.js';

/** Every bench, in the order `pnpm bench` runs them. */
const BENCHES = [
  'protocol',
  'lowering',
  'validators',
  'polyfill',
  'registration',
  'frames',
  'endpoint',
  'host',
  'extension',
] as const;
type BenchName = (typeof BENCHES)[number];

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));
const TSX_CLI = createRequire(import.meta.url).resolve('tsx/cli');

const USAGE = `usage: pnpm bench [-- --only <name>[,<name>...]]
benches: ${BENCHES.join(', ')}`;

// ---- arguments ------------------------------------------------------------------------------

function selectedBenches(argv: string[]): BenchName[] {
  // `pnpm bench -- --only x` may hand the `--` through: it separates nothing here.
  const args = argv.filter((arg) => arg !== '--');
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      only: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const names = [...(values.only ?? []), ...positionals]
    .flatMap((value) => value.split(','))
    .map((name) => name.trim().replace(/^bench:/, ''))
    .filter(Boolean);
  const unknown = names.filter((name) => !(BENCHES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    console.error(`unknown bench: ${unknown.join(', ')}\n${USAGE}`);
    process.exit(2);
  }
  return names.length === 0 ? [...BENCHES] : BENCHES.filter((name) => names.includes(name));
}

// ---- running one bench ----------------------------------------------------------------------

interface Run {
  name: BenchName;
  /** 0 when the process exited cleanly. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why it could not start, if it could not. */
  error?: string;
  seconds: number;
  output: string;
  rows: HeadlineRow[];
  /** Lines of the JSON file that did not parse. */
  badLines: number;
}

const failed = (run: Run) => run.code !== 0;

function status(run: Run): string {
  if (run.error) return `failed to start: ${run.error}`;
  if (run.signal) return `killed by ${run.signal}`;
  return run.code === 0 ? 'ok' : `FAILED (exit ${run.code})`;
}

function readRows(file: string): { rows: HeadlineRow[]; badLines: number } {
  if (!existsSync(file)) return { rows: [], badLines: 0 };
  const rows: HeadlineRow[] = [];
  let badLines = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      rows.push(JSON.parse(line) as HeadlineRow);
    } catch {
      badLines++;
    }
  }
  return { rows, badLines };
}

/** Runs `tsx bench/<name>.bench.ts`, its output streamed to this terminal and to a file. */
async function runBench(name: BenchName): Promise<Run> {
  const output = join(RESULTS, `${name}.txt`);
  const summary = join(RESULTS, `${name}.jsonl`);
  rmSync(summary, { force: true });
  const file = openSync(output, 'w');
  const started = performance.now();
  const outcome = await new Promise<Pick<Run, 'code' | 'signal' | 'error'>>((resolve) => {
    const child = spawn(
      process.execPath,
      [TSX_CLI, '--conditions=@toolwire/source', `bench/${name}.bench.ts`],
      {
        cwd: ROOT,
        env: { ...process.env, [SUMMARY_ENV]: summary },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const tee = (to: NodeJS.WriteStream) => (chunk: Buffer) => {
      to.write(chunk);
      writeSync(file, chunk);
    };
    child.stdout.on('data', tee(process.stdout));
    child.stderr.on('data', tee(process.stderr));
    child.once('error', (error) => resolve({ code: null, signal: null, error: error.message }));
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  closeSync(file);
  return {
    name,
    ...outcome,
    seconds: (performance.now() - started) / 1000,
    output: relative(ROOT, output),
    ...readRows(summary),
  };
}

// ---- the table ------------------------------------------------------------------------------

/** A markdown table, padded to line up; `right` marks the columns aligned right. */
function table(header: string[], rows: string[][], right: boolean[]): string {
  const widths = header.map((title, column) =>
    Math.max(3, title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells
      .map((cell, column) =>
        right[column]
          ? cell.padStart(widths[column] as number)
          : cell.padEnd(widths[column] as number),
      )
      .join(' | ')} |`;
  const rule = `|${widths
    .map((width, column) => `${'-'.repeat(width + 1)}${right[column] ? ':' : '-'}`)
    .join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

function verdict(row: HeadlineRow): string {
  if (row.met === null) return '-';
  return row.met ? 'met' : 'MISSED';
}

function summaryTable(runs: Run[]): string {
  const rows: string[][] = [];
  for (const run of runs) {
    const command = `pnpm bench:${run.name}`;
    for (const row of run.rows) {
      rows.push([
        row.what,
        formatFigure(row.figure),
        row.baseline ? `${formatFigure(row.baseline)} (${row.baseline.name})` : '-',
        formatRatioAs(row.ratio, row.ratioAs),
        row.targetText,
        verdict(row),
        `\`${command}\``,
      ]);
    }
    // A line about the run itself rather than a figure: only its text and verdict columns.
    const note = (text: string, verdictText = '-') =>
      rows.push([text, '-', '-', '-', '-', verdictText, `\`${command}\``]);
    if (failed(run)) note(`bench:${run.name} ${status(run)}; see ${run.output}`, 'FAILED');
    else if (run.rows.length === 0) note(`bench:${run.name} recorded no headline rows`);
    if (run.badLines > 0) {
      note(`bench:${run.name}: ${run.badLines} unreadable line(s) in its .jsonl`);
    }
  }
  return table(
    ['what', 'ours', 'baseline, same run', 'ratio', 'target', 'verdict', 'command'],
    rows,
    [false, true, false, true, false, false, false],
  );
}

function runsTable(runs: Run[]): string {
  return table(
    ['bench', 'result', 'time', 'headline rows', 'full output'],
    runs.map((run) => [
      `\`pnpm bench:${run.name}\``,
      status(run),
      `${run.seconds.toFixed(1)} s`,
      String(run.rows.length),
      run.output,
    ]),
    [false, false, true, true, false],
  );
}

function tally(runs: Run[], seconds: number): string {
  const rows = runs.flatMap((run) => run.rows);
  const met = rows.filter((row) => row.met === true).length;
  const missed = rows.filter((row) => row.met === false).length;
  const failures = runs.filter(failed).length;
  return [
    `${met} of ${met + missed} targets met, ${missed} missed`,
    `${rows.length - met - missed} figure(s) without a target`,
    `${runs.length - failures} of ${runs.length} benches ran cleanly`,
    `total ${seconds.toFixed(1)} s`,
  ].join('; ');
}

// ---- main -----------------------------------------------------------------------------------

async function main(): Promise<void> {
  const benches = selectedBenches(process.argv.slice(2));
  mkdirSync(RESULTS, { recursive: true });
  const startedAt = new Date();
  const loadAtStart = os.loadavg()[0] as number;
  const started = performance.now();
  const runs: Run[] = [];
  for (const [index, name] of benches.entries()) {
    console.log(`\n===== pnpm bench:${name} (${index + 1}/${benches.length}) =====\n`);
    const run = await runBench(name);
    runs.push(run);
    console.log(`\n===== pnpm bench:${name}: ${status(run)}, ${run.seconds.toFixed(1)} s =====`);
  }
  const seconds = (performance.now() - started) / 1000;

  const cpus = os.cpus();
  const context = [
    `- ${startedAt.toISOString()}; Node ${process.version}; ${cpus.length} x ${cpus[0]?.model.trim() ?? 'unknown CPU'}; 1-minute load average ${loadAtStart.toFixed(1)} at the start, ${(os.loadavg()[0] as number).toFixed(1)} at the end`,
    `- benches: ${benches.join(', ')}${benches.length < BENCHES.length ? ` (of ${BENCHES.join(', ')})` : ''}`,
    '- ratios are ours / a baseline timed in the same process run; targets from docs/performance.md, reported, never asserted',
  ].join('\n');
  const report = [summaryTable(runs), '', runsTable(runs), '', tally(runs, seconds)].join('\n');
  console.log(`\n# pnpm bench: summary\n\n${context}\n\n${report}`);

  const summaryFile = join(RESULTS, 'summary.md');
  writeFileSync(summaryFile, `# pnpm bench: summary\n\n${context}\n\n${report}\n`);
  writeFileSync(
    join(RESULTS, 'summary.jsonl'),
    runs.flatMap((run) => run.rows.map((row) => `${JSON.stringify(row)}\n`)).join(''),
  );
  console.log(`\nwritten to ${relative(ROOT, summaryFile)}`);
  if (runs.some(failed)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error('bench/all.ts crashed:', error);
  process.exit(1);
});
