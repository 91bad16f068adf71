/**
 * `tsx scripts/repoint-doc-refs.ts [--dry-run]`: rewrites references to the old design notes
 * (`WIRE "tool.call"`, `API.md "Registering"`, `STYLE 6`, `../../../shared/design/WIRE.md`,
 * `remote-tool-protocol-notes §11.2`) as references to docs/ (`docs/wire.md "tool.call"`,
 * `docs/browser-api.md "Registering"`, `docs/style.md 6`), in every file git tracks or would
 * add. The rules are in doc-refs.ts; `pnpm lint:docs` refuses what is left of the old form and
 * any docs reference whose page or section does not exist.
 *
 * A rewritten line may outgrow the formatter's width, so the files it changed go through
 * `biome format --write` afterwards.
 *
 * Safe to run again, for instance after merging a branch written against the old notes: text
 * already in the new form is left as it is. `--dry-run` prints each line it would change and
 * exits 1 when there is one, writing nothing.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoint, repositoryFiles, textFiles } from './doc-refs.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dryRun = process.argv.includes('--dry-run');
  let changedLines = 0;
  const changedFiles: string[] = [];
  for (const { file, text } of textFiles(ROOT, repositoryFiles(ROOT))) {
    const next = repoint(file, text);
    if (next === text) continue;
    changedFiles.push(file);
    const before = text.split('\n');
    next.split('\n').forEach((line, index) => {
      if (line === before[index]) return;
      changedLines++;
      if (dryRun) console.log(`${file}:${index + 1}:\n  - ${before[index]}\n  + ${line}`);
    });
    if (!dryRun) writeFileSync(join(ROOT, file), next);
  }
  if (!dryRun && changedFiles.length > 0) {
    const biome = join(ROOT, 'node_modules', '.bin', 'biome');
    execFileSync(biome, ['format', '--write', '--no-errors-on-unmatched', ...changedFiles], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  }
  const verb = dryRun ? 'would change' : 'changed';
  const count = changedFiles.length;
  console.log(`repoint-doc-refs: ${verb} ${changedLines} line(s) in ${count} file(s).`);
  if (dryRun && changedLines > 0) process.exitCode = 1;
}
