/**
 * `pnpm size`: builds @toolwire/polyfill, then prints what each part costs a page over the
 * network, min+gzip (level 9, node:zlib):
 *
 * - `polyfill.iife.js`, the core a page pays for up front (docs/performance.md: <= 12 KB);
 * - each lazily loaded chunk (ajv validator, cfworker validator, lowering) together with every
 *   `polyfill-shared-*.js` it imports, statically or with `import()`, transitively: what the
 *   page downloads the first time it needs that chunk.
 *
 * - the pages' totals before the first call (PAGE_BUDGETS): the polyfill page and the endpoint
 *   page, each script plus the validator chunks its first check fetches;
 * - the one-file scripts (STANDALONE_BUDGETS), each held to its budget;
 * - the endpoint's own lazy chunks (ENDPOINT_CHUNKS: the ui.* built-ins, pairing, fflate), each
 *   with what it imports, gzip -9 as built: what a page fetches when it first needs one.
 *
 * Each file is minified on its own with the oxc minifier that Vite bundles (Vite's ES library
 * output keeps whitespace), then gzipped on its own, as a browser fetches it. Exits 1 when the
 * core is over budget, a page over its ceiling, or a one-file script over its budget, after
 * printing the figures.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { constants, gzipSync } from 'node:zlib';

export const POLYFILL_DIST = fileURLToPath(new URL('../packages/polyfill/dist/', import.meta.url));
/** docs/performance.md: "polyfill IIFE, gzip -9: <= 12 KB without the lazily loaded validator". */
export const CORE_BUDGET_BYTES = 12 * 1024;
export const ENDPOINT_DIST = fileURLToPath(new URL('../packages/endpoint/dist/', import.meta.url));

/**
 * Issue 16, item 2 ("a light page"): everything a typical page fetches before and including its
 * first call, one tool with a small object schema (`{type: 'object', properties: {q: {type:
 * 'string'}}}`), gzip -9 of each file as built. Computed from the chunk graph: the script, plus
 * the closure of the validator chunk the first check loads (validation/load.ts: ajv where the page
 * cfworker first). Nothing else loads: a structured call lowers nothing, and a wire call whose result
 * is JSON as it is skips the lowering (run.ts). e2e/page-bytes.e2e.ts checks that a Chromium page
 * fetches exactly these files and these bytes.
 *
 * `targetBytes` is the issue's goal (met/MISSED is printed); `ceilingBytes` is what fails
 * `pnpm size` today: the figure measured when the check went in plus about 2%, so the page may
 * only get lighter until the target is met (then the ceiling becomes the target). The endpoint
 * page's was raised once, from 49,600 B to 50,300 B, when the compression Worker (issue 16,
 * item 3, built beside this check) landed with its ~1.3 KB: 49,816 B then. The target was met
 * when the ui.* built-ins' implementations, pairing and fflate became lazy chunks (36,651 B):
 * the ceiling is the target since.
 */
export const PAGE_BUDGETS = [
  {
    page: 'polyfill page, first call',
    dist: POLYFILL_DIST,
    script: 'polyfill.iife.js',
    validator: 'polyfill-validator-cfworker.js',
    targetBytes: 20 * 1000,
    ceilingBytes: 20 * 1000,
  },
  {
    page: 'endpoint page, first call',
    dist: ENDPOINT_DIST,
    script: 'endpoint.iife.js',
    validator: 'polyfill-validator-cfworker.js',
    targetBytes: 40 * 1000,
    ceilingBytes: 40 * 1000,
  },
] as const;

/**
 * The one-file scripts (`*.standalone.iife.js`, what a page copies alone and what the packages'
 * `unpkg` / `jsdelivr` fields name), gzip -9 as built: one request holds all a typical page
 * needs (the cfworker validator, the lowering, pairing); the rarer parts (ajv, frames, form
 * tools, the native layer, the endpoint's `ui.*` built-ins, fflate) are fetched from beside the
 * file when first needed. The endpoint's is held to 60 KB; it was 121,366 B with every part
 * inlined (ajv among them) and 56,507 B when the rarer parts left it. The polyfill's ceiling is
 * its figure then (35,083 B) plus about 3%.
 */
export const STANDALONE_BUDGETS = [
  { dist: ENDPOINT_DIST, script: 'endpoint.standalone.iife.js', budgetBytes: 60 * 1000 },
  { dist: POLYFILL_DIST, script: 'polyfill.standalone.iife.js', budgetBytes: 36 * 1000 },
] as const;

/** The endpoint's own lazy chunks (packages/endpoint/src/chunks.ts), reported by `pnpm size`. */
export const ENDPOINT_CHUNKS = [
  { part: 'ui.* built-ins (first ui.* call)', entry: 'polyfill-ui-builtins.js' },
  { part: 'pairing (a link or a kept pairing)', entry: 'polyfill-pairing.js' },
  {
    part: 'fflate (a gzipped payload, or gzip without CompressionStream)',
    entry: 'polyfill-deflate.js',
  },
  {
    part: 'HMAC for the handshake without crypto.subtle (a page that is not a secure context)',
    entry: 'polyfill-hmac.js',
  },
  {
    part: "a schema failure's details and wording (the first call that fails its schema)",
    entry: 'polyfill-schema-failure.js',
  },
] as const;

export interface PageBytes {
  page: string;
  files: string[];
  gzipBytes: number;
  targetBytes: number;
  ceilingBytes: number;
}

/** The page totals above, from the built dist/ folders (does not build). */
export async function measurePageBytes(): Promise<PageBytes[]> {
  const pages: PageBytes[] = [];
  for (const budget of PAGE_BUDGETS) {
    const script = await chunkClosureBytes(budget.dist, budget.script);
    const validator = await chunkClosureBytes(budget.dist, budget.validator);
    pages.push({
      page: budget.page,
      files: [...script.files, ...validator.files],
      gzipBytes: script.gzipBytes + validator.gzipBytes,
      targetBytes: budget.targetBytes,
      ceilingBytes: budget.ceilingBytes,
    });
  }
  return pages;
}

/** Builds the endpoint (after the polyfill, whose chunks it copies). */
export function buildEndpoint(stdio: 'inherit' | 'pipe' = 'inherit'): void {
  execFileSync('npx', ['-y', 'pnpm@12.4.2', '--filter', '@toolwire/endpoint', 'build'], {
    cwd: REPO_ROOT,
    stdio,
  });
}
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Runs the package's own build script (the one `pnpm --filter @toolwire/polyfill build` runs). */
export function buildPolyfill(stdio: 'inherit' | 'pipe' = 'inherit'): void {
  execFileSync('npx', ['-y', 'pnpm@12.4.2', '--filter', '@toolwire/polyfill', 'build'], {
    cwd: REPO_ROOT,
    stdio,
  });
}

interface Minifier {
  name: string;
  minify(filename: string, code: string, module: boolean): string;
}

/** The oxc minifier re-exported by Vite 8 (`minifySync`), when this Vite has it. */
async function findMinifier(): Promise<Minifier | undefined> {
  try {
    const vite = (await import('vite')) as Partial<typeof import('vite')>;
    const minifySync = vite.minifySync;
    if (typeof minifySync !== 'function') return undefined;
    return {
      name: `oxc (vite ${vite.version ?? '?'}, rolldown ${vite.rolldownVersion ?? '?'})`,
      minify(filename, code, module) {
        const result = minifySync(filename, code, { module, compress: true, mangle: true });
        if (result.errors.length > 0) {
          throw new Error(
            `minifying ${filename} failed: ${result.errors.map((e) => e.message).join('; ')}`,
          );
        }
        return result.code;
      },
    };
  } catch {
    return undefined;
  }
}

/** The relative specifiers a chunk imports: `import ... from`, `export ... from`, `import()`. */
export async function relativeImports(filename: string, code: string): Promise<string[]> {
  const { parseSync } = await import('vite');
  const parsed = parseSync(filename, code, { sourceType: 'module' });
  if (parsed.errors.length > 0) {
    throw new Error(`cannot parse ${filename}: ${parsed.errors.map((e) => e.message).join('; ')}`);
  }
  const specifiers = new Set<string>();
  for (const item of parsed.module.staticImports) specifiers.add(item.moduleRequest.value);
  for (const item of parsed.module.staticExports) {
    for (const entry of item.entries) {
      if (entry.moduleRequest) specifiers.add(entry.moduleRequest.value);
    }
  }
  for (const item of parsed.module.dynamicImports) {
    const text = code.slice(item.moduleRequest.start, item.moduleRequest.end).trim();
    const literal = /^(["'`])([^"'`$]*)\1$/.exec(text);
    if (literal) specifiers.add(literal[2] as string);
    else throw new Error(`${filename}: import(${text}) is not a string literal; cannot size it`);
  }
  return [...specifiers].filter((specifier) => specifier.startsWith('./'));
}

/** The chunk file and every file it imports, transitively, in discovery order. */
async function closure(dist: string, entry: string): Promise<string[]> {
  const seen: string[] = [];
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (seen.includes(file)) continue;
    const path = join(dist, file);
    if (!existsSync(path)) throw new Error(`${seen.at(-1) ?? entry} imports ./${file}, missing`);
    seen.push(file);
    for (const specifier of await relativeImports(file, readFileSync(path, 'utf8'))) {
      if (specifier.includes('/', 2))
        throw new Error(`${file} imports ${specifier}: not beside it`);
      queue.push(specifier.slice(2));
    }
  }
  return seen;
}

/** A chunk and its transitive imports, each gzipped -9 as built: what a browser fetches for it. */
export async function chunkClosureBytes(
  dist: string,
  entry: string,
): Promise<{ files: string[]; gzipBytes: number }> {
  const files = entry.endsWith('.iife.js') ? [entry] : await closure(dist, entry);
  let gzipBytes = 0;
  for (const file of files) gzipBytes += gzip9(readFileSync(join(dist, file), 'utf8'));
  return { files, gzipBytes };
}

export interface PartSize {
  part: string;
  /** Entry file, then its imports; empty when the chunk is not built. */
  files: string[];
  rawBytes: number;
  /** Each file gzipped -9 as the build wrote it. */
  gzipBytes: number;
  /** Each file minified, then gzipped -9; undefined without a minifier. */
  minGzipBytes: number | undefined;
}

export interface SizeReport {
  minifier: string | undefined;
  parts: PartSize[];
  core: PartSize;
}

const gzip9 = (text: string) => gzipSync(text, { level: constants.Z_BEST_COMPRESSION }).byteLength;

const PARTS: readonly { part: string; entry: string; module: boolean }[] = [
  { part: 'core: polyfill.iife.js', entry: 'polyfill.iife.js', module: false },
  { part: 'ajv validator (lazy)', entry: 'polyfill-validator-ajv.js', module: true },
  {
    part: 'cfworker validator (lazy, CSP pages)',
    entry: 'polyfill-validator-cfworker.js',
    module: true,
  },
  { part: 'lowering (lazy)', entry: 'polyfill-lowering.js', module: true },
];

/** Sizes of the built dist/ (does not build). Throws when the core itself is missing. */
export async function measurePolyfillSizes(dist = POLYFILL_DIST): Promise<SizeReport> {
  const minifier = await findMinifier();
  const parts: PartSize[] = [];
  for (const { part, entry, module } of PARTS) {
    if (!existsSync(join(dist, entry))) {
      if (!module) throw new Error(`${join(dist, entry)} is missing: the build did not write it`);
      parts.push({ part, files: [], rawBytes: 0, gzipBytes: 0, minGzipBytes: undefined });
      continue;
    }
    const files = module ? await closure(dist, entry) : [entry];
    let rawBytes = 0;
    let gzipBytes = 0;
    let minGzipBytes = 0;
    for (const file of files) {
      const code = readFileSync(join(dist, file), 'utf8');
      rawBytes += Buffer.byteLength(code);
      gzipBytes += gzip9(code);
      if (minifier) {
        const minified = minifier.minify(file, code, module);
        if (minified.length === 0 && code.trim().length > 0) {
          throw new Error(`the minifier turned ${file} into nothing`);
        }
        minGzipBytes += gzip9(minified);
      }
    }
    parts.push({
      part,
      files,
      rawBytes,
      gzipBytes,
      minGzipBytes: minifier ? minGzipBytes : undefined,
    });
  }
  return { minifier: minifier?.name, parts, core: parts[0] as PartSize };
}

/** min+gzip when a minifier was found, else gzip of the file as built. */
export function chargedBytes(size: PartSize): number {
  return size.minGzipBytes ?? size.gzipBytes;
}

function bytes(n: number): string {
  return n.toLocaleString('en-US');
}

export function renderSizeTable(report: SizeReport): string {
  const sizeTitle = report.minifier ? 'min+gzip -9 B' : 'gzip -9 B (NOT minified)';
  const header = ['part', 'files', 'raw B', 'gzip -9 as built B', sizeTitle, 'notes'];
  const rows = report.parts.map((size) => {
    if (size.files.length === 0) return [size.part, '-', '-', '-', '-', 'not built'];
    const [entry, ...imports] = size.files;
    const notes = [
      imports.length > 0
        ? `${entry} + ${imports.length} imported: ${imports.map((file) => file.replace(/^polyfill-shared-(.*)\.js$/, 'shared-$1')).join(', ')}`
        : `${entry}, no imports`,
      size === report.core
        ? `budget ${bytes(CORE_BUDGET_BYTES)} B: ${chargedBytes(size) <= CORE_BUDGET_BYTES ? 'met' : 'OVER'}`
        : '',
    ]
      .filter(Boolean)
      .join('; ');
    return [
      size.part,
      String(size.files.length),
      bytes(size.rawBytes),
      bytes(size.gzipBytes),
      size.minGzipBytes === undefined ? bytes(size.gzipBytes) : bytes(size.minGzipBytes),
      notes,
    ];
  });
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const numeric = [false, true, true, true, true, false];
  const line = (cells: readonly string[]) =>
    `| ${cells
      .map((cell, k) =>
        numeric[k] ? cell.padStart(widths[k] as number) : cell.padEnd(widths[k] as number),
      )
      .join(' | ')} |`;
  const rule = `|${widths.map((w, k) => `${'-'.repeat(w + 1)}${numeric[k] ? ':' : '-'}`).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  try {
    buildPolyfill();
    buildEndpoint();
  } catch {
    console.error('size: the build failed (see above); nothing to measure.');
    process.exit(1);
  }
  const report = await measurePolyfillSizes();
  console.log('# @toolwire/polyfill sizes');
  console.log('');
  console.log(
    report.minifier
      ? `- each file minified with ${report.minifier}, then gzip -9 (node:zlib); a lazy chunk counts every file it imports, transitively, each gzipped on its own as fetched`
      : '- NO minifier importable from the workspace: sizes are gzip -9 of the files as built, not minified',
  );
  console.log('');
  console.log(renderSizeTable(report));
  console.log('');
  const core = chargedBytes(report.core);
  const verdict = core <= CORE_BUDGET_BYTES ? 'met' : 'MISSED';
  console.log(
    `target: polyfill IIFE ${report.minifier ? 'min+gzip' : 'gzip'} -9 <= ${bytes(CORE_BUDGET_BYTES)} B: ${bytes(core)} B, ${verdict}`,
  );
  if (core > CORE_BUDGET_BYTES) process.exitCode = 1;
  console.log('');
  console.log(
    '# page bytes before the first call (one tool, a small object schema; gzip -9 as built)',
  );
  console.log('');
  for (const page of await measurePageBytes()) {
    const target = page.gzipBytes <= page.targetBytes ? 'met' : 'MISSED';
    const ceiling = page.gzipBytes <= page.ceilingBytes ? 'within' : 'OVER';
    console.log(
      `${page.page}: ${bytes(page.gzipBytes)} B (${page.files.join(', ')}); target <= ${bytes(page.targetBytes)} B: ${target}; ceiling ${bytes(page.ceilingBytes)} B: ${ceiling}`,
    );
    if (page.gzipBytes > page.ceilingBytes) process.exitCode = 1;
  }
  console.log('');
  console.log('# the one-file scripts (gzip -9 as built; the rarer parts stay beside them)');
  console.log('');
  for (const { dist, script, budgetBytes } of STANDALONE_BUDGETS) {
    const gzipBytes = gzip9(readFileSync(join(dist, script), 'utf8'));
    const verdict = gzipBytes <= budgetBytes ? 'met' : 'OVER';
    console.log(`${script}: ${bytes(gzipBytes)} B; budget ${bytes(budgetBytes)} B: ${verdict}`);
    if (gzipBytes > budgetBytes) process.exitCode = 1;
  }
  console.log('');
  console.log("# the endpoint page's lazy chunks (gzip -9 as built, with what each imports)");
  console.log('');
  for (const { part, entry } of ENDPOINT_CHUNKS) {
    const chunk = await chunkClosureBytes(ENDPOINT_DIST, entry);
    console.log(`${part}: ${bytes(chunk.gzipBytes)} B (${chunk.files.join(', ')})`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error('size:', error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
