/**
 * `pnpm lint:refs`: no published text names the project's internal work items. Users read the
 * READMEs and docs/, and the packages' source comments ship in the .d.ts files and source maps;
 * "(issue 15)" or "requirement 7" means nothing to them. Refused, case-insensitive, with N a
 * number: `issue N`, `issues N`, `item N`, `items N`, `requirement N`, `requirements N`
 * (`#N` too). An upstream project's issue is written as its reference, `typescript-sdk#2580`,
 * which this does not refuse; a list's "item 3" in prose is reworded ("the third item").
 *
 * Scanned: README.md, docs/**\/*.md, bench/README.md (the docs site includes it),
 * packages/<name>/*.md, packages/<name>/src/**, packages/extension/app/**.
 *
 * Prints one line per hit (`file:line: text`) and exits 1 when there is any.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WORK_ITEM = /\b(?:issues?|items?|requirements?)\s+#?\d+/gi;

export interface InternalReference {
  line: number;
  text: string;
}

/** The work-item references in a text, by line (1-based). */
export function internalReferences(text: string): InternalReference[] {
  const found: InternalReference[] = [];
  text.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(WORK_ITEM)) found.push({ line: index + 1, text: match[0] });
  });
  return found;
}

/** Whether a repository path is published text this check covers. */
export function isScanned(file: string): boolean {
  return (
    file === 'README.md' ||
    file === 'bench/README.md' ||
    /^docs\/(?!node_modules\/).+\.md$/.test(file) ||
    /^packages\/[^/]+\/[^/]+\.md$/.test(file) ||
    /^packages\/[^/]+\/src\//.test(file) ||
    file.startsWith('packages/extension/app/')
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && isScanned(file));
  let hits = 0;
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue; // deleted in the working tree
    }
    for (const { line, text: found } of internalReferences(text)) {
      console.error(`${file}:${line}: names an internal work item: "${found}"`);
      hits += 1;
    }
  }
  if (hits > 0) {
    console.error(
      `lint:refs: ${hits} reference(s) to internal work items. Say what the text means instead (scripts/check-internal-refs.ts).`,
    );
    process.exitCode = 1;
  }
}
