/**
 * `pnpm test:stress`: runs the unit suites (or chosen e2e files) several times while other
 * processes keep every core busy, and reports each test that failed in any run, with how often
 * and its first failure. A test that passes on a quiet machine and fails here depends on how
 * fast the machine is: fix it at its cause (docs/contributing.md "Tests under load").
 *
 *   pnpm test:stress                      5 runs of `vitest run`, one busy loop per core
 *   pnpm test:stress --runs 10 --load 4   10 runs, 4 busy loops
 *   pnpm test:stress --project host       one vitest project (repeatable)
 *   pnpm test:stress --shuffle            each run in a new random order (its seed is printed)
 *   pnpm test:stress --e2e [files...]     Playwright instead (run `pnpm build` first)
 *
 * Every run's report and output is kept in test-results/stress/<time>/. Exits 1 when any test
 * failed in any run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '5' },
    load: { type: 'string', default: String(availableParallelism()) },
    project: { type: 'string', multiple: true, default: [] },
    shuffle: { type: 'boolean', default: false },
    e2e: { type: 'boolean', default: false },
  },
});

const runs = positiveInteger('--runs', values.runs);
const load = positiveInteger('--load', values.load, true);
const outDir = join('test-results', 'stress', new Date().toISOString().replace(/[:.]/g, '-'));
mkdirSync(outDir, { recursive: true });

function positiveInteger(flag: string, text: string, zeroAllowed = false): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < (zeroAllowed ? 0 : 1)) {
    process.stderr.write(
      `test:stress: ${flag} takes a whole number, got ${JSON.stringify(text)}\n`,
    );
    process.exit(2);
  }
  return value;
}

/** One failure of one test: where, and what it said. */
interface Failure {
  test: string;
  message: string;
}

/** Busy loops, one per process, so the suite competes for every core as on a loaded machine. */
function startLoad(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, log: string) {
  return new Promise<number>((resolve) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: 'pipe' });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('close', (code) => {
      writeFileSync(log, Buffer.concat(chunks));
      resolve(code ?? 1);
    });
  });
}

interface VitestReport {
  testResults?: Array<{
    name: string;
    status: string;
    message?: string;
    assertionResults?: Array<{ fullName: string; status: string; failureMessages?: string[] }>;
  }>;
}

function vitestFailures(report: VitestReport): Failure[] {
  const failures: Failure[] = [];
  for (const file of report.testResults ?? []) {
    const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failed) {
      failures.push({
        test: `${relative(process.cwd(), file.name)} > ${test.fullName}`,
        message: test.failureMessages?.[0] ?? '',
      });
    }
    // A file that failed outside any test (an import error, a hook, an unhandled rejection).
    if (file.status === 'failed' && failed.length === 0) {
      failures.push({
        test: `${relative(process.cwd(), file.name)} (the file itself)`,
        message: file.message ?? '',
      });
    }
  }
  return failures;
}

interface PlaywrightSuite {
  title: string;
  file?: string;
  specs?: Array<{
    title: string;
    tests: Array<{
      projectName: string;
      results: Array<{ status: string; error?: { message?: string } }>;
    }>;
  }>;
  suites?: PlaywrightSuite[];
}

function playwrightFailures(
  report: { suites?: PlaywrightSuite[]; errors?: Array<{ message?: string }> },
  titles: string[] = [],
): Failure[] {
  const failures: Failure[] = [];
  const walk = (suite: PlaywrightSuite, path: string[]) => {
    const here = suite.title ? [...path, suite.title] : path;
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests) {
        const bad = test.results.find((result) => !['passed', 'skipped'].includes(result.status));
        if (bad) {
          failures.push({
            test: `[${test.projectName}] ${[...here, spec.title].join(' > ')}`,
            message: bad.error?.message ?? bad.status,
          });
        }
      }
    }
    for (const child of suite.suites ?? []) walk(child, here);
  };
  for (const suite of report.suites ?? []) walk(suite, titles);
  for (const error of report.errors ?? []) {
    failures.push({ test: '(the run itself)', message: error.message ?? '' });
  }
  return failures;
}

const failed = new Map<string, { runs: number[]; message: string }>();
let brokenRuns = 0;
const hogs = startLoad(load);
const stopLoad = () => {
  for (const hog of hogs) hog.kill('SIGKILL');
};
process.on('exit', stopLoad);
process.on('SIGINT', () => process.exit(130));

process.stdout.write(
  `test:stress: ${runs} run(s) of ${values.e2e ? 'the e2e suite' : 'the unit suites'} beside ${load} busy loop(s); output in ${outDir}\n`,
);
for (let index = 1; index <= runs; index += 1) {
  const report = join(outDir, `run-${index}.json`);
  const log = join(outDir, `run-${index}.log`);
  const seed = values.shuffle ? Math.floor(Math.random() * 2 ** 31) : undefined;
  const started = Date.now();
  let code: number;
  if (values.e2e) {
    code = await run(
      'npx',
      ['playwright', 'test', '--reporter=json', ...positionals],
      { PLAYWRIGHT_JSON_OUTPUT_NAME: report },
      log,
    );
  } else {
    const args = ['vitest', 'run', '--reporter=json', `--outputFile=${report}`];
    for (const project of values.project) args.push('--project', project);
    if (seed !== undefined) args.push('--sequence.shuffle', `--sequence.seed=${seed}`);
    code = await run('npx', [...args, ...positionals], {}, log);
  }
  let failures: Failure[];
  try {
    const parsed = JSON.parse(readFileSync(report, 'utf8'));
    failures = values.e2e ? playwrightFailures(parsed) : vitestFailures(parsed);
  } catch {
    failures = [];
  }
  if (code !== 0 && failures.length === 0) {
    brokenRuns += 1;
    failures.push({ test: '(the run itself)', message: `exited ${code}; see ${log}` });
  }
  for (const failure of failures) {
    const entry = failed.get(failure.test) ?? { runs: [], message: failure.message };
    entry.runs.push(index);
    failed.set(failure.test, entry);
  }
  const [oneMinute] = loadavg();
  process.stdout.write(
    `run ${index}/${runs}: ${failures.length === 0 ? 'green' : `${failures.length} failed`} in ${((Date.now() - started) / 1000).toFixed(0)} s, load ${oneMinute?.toFixed(1)}${seed === undefined ? '' : `, seed ${seed}`}\n`,
  );
}
stopLoad();

if (failed.size === 0) {
  process.stdout.write(`test:stress: every test passed in all ${runs} run(s).\n`);
} else {
  const lines = [...failed].map(
    ([test, { runs: where, message }]) =>
      `- ${test}\n  failed in run(s) ${where.join(', ')} of ${runs}\n  ${message.split('\n').slice(0, 3).join('\n  ')}`,
  );
  const summary = `test:stress: ${failed.size} test(s) failed at least once${brokenRuns ? ` (${brokenRuns} run(s) failed outright)` : ''}:\n${lines.join('\n')}\n`;
  writeFileSync(join(outDir, 'summary.txt'), summary);
  process.stdout.write(summary);
  process.exitCode = 1;
}
