/**
 * `pnpm lint:pack` (the last step of `pnpm lint`; its script runs `pnpm build` first, since packing
 * needs dist/): packs every publishable package (scripts/pack.ts) and checks each tarball:
 *
 * - publint --strict: the manifest against the files really shipped (exports, bin, types);
 * - are-the-types-wrong, profile `esm-only`: the packages are ES modules only (no `require`
 *   condition), so TypeScript's node10 and node16-from-CommonJS resolutions are expected to
 *   fail and are not checked; node16 from ESM and bundler resolution must find the types.
 *   The `./iife` entries are classic scripts for a `<script>` tag, not modules: left out;
 * - its file list (scripts/pack-contents.ts): a README.md at the top, the package's npm page.
 *
 * Exits 1 when any package fails a check, after printing each failure's report.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packPackages, publishablePackages, REPO_ROOT } from './pack.js';
import { packContentProblems, tarballFiles } from './pack-contents.js';

const bin = (name: string) => join(REPO_ROOT, 'node_modules', '.bin', name);

/** Runs a checker; prints its output when it fails and resolves false. */
function check(label: string, command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: REPO_ROOT, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) console.error(`lint:pack: ${label} failed\n${stdout}${stderr}`);
      resolve(!error);
    });
  });
}

const { packages, withoutBuild } = publishablePackages();
for (const name of withoutBuild) console.log(`lint:pack: ${name} has no build script: not packed`);
const dest = mkdtempSync(join(tmpdir(), 'toolwire-lint-pack-'));
let failed = false;
try {
  // Every check at once: the checkers mostly wait on their own start-up.
  const verdicts = packPackages(packages, dest).map(async (pkg) => {
    const exports = Object.keys((pkg.manifest.exports ?? {}) as Record<string, unknown>);
    const scripts = exports.filter((entry) => entry === './iife' || entry.startsWith('./iife/'));
    const [publint, attw] = await Promise.all([
      check(`publint ${pkg.name}`, bin('publint'), ['run', pkg.tarball, '--strict']),
      check(`attw ${pkg.name}`, bin('attw'), [
        pkg.tarball,
        '--profile',
        'esm-only',
        '--format',
        'ascii',
        '--no-emoji',
        '--no-color',
        ...(scripts.length > 0 ? ['--exclude-entrypoints', ...scripts] : []),
      ]),
    ]);
    const problems = packContentProblems(tarballFiles(pkg.tarball));
    for (const problem of problems) console.error(`lint:pack: ${pkg.name}: ${problem}`);
    const files = problems.length === 0;
    console.log(
      `lint:pack: ${pkg.name}: publint ${publint ? 'ok' : 'FAILED'}, attw ${attw ? 'ok' : 'FAILED'}, files ${files ? 'ok' : 'FAILED'}`,
    );
    return publint && attw && files;
  });
  failed = (await Promise.all(verdicts)).includes(false);
} finally {
  rmSync(dest, { recursive: true, force: true });
}
if (failed) process.exitCode = 1;
