/**
 * `pnpm lint:docs`: the documentation's links resolve inside the repository.
 *
 * 1. Every Markdown link in README.md, packages/<name>/*.md, bench/README.md and docs/**\/*.md
 *    names a file of the repository, and its `#anchor`, if any, a heading of that file
 *    (headings of files it includes with VitePress's `<!--@include: path-->` count). Links to
 *    other sites are refused: the docs are the project's reference. In docs/, a link starting
 *    with `/` is from the site's root, and a page may be named without `.md`.
 * 2. Pages of the generated API reference (docs/api/, git-ignored) count as existing when
 *    docs/scripts/api-entries.mjs lists their module, so the check runs without building.
 * 3. A repository path in a code span of those files (`packages/host/README.md`,
 *    `docs/wire.md`) exists, or is one git ignores (`bench/results/`).
 *
 * 4. No file git tracks (or would add) points outside the repository: no design note by its old
 *    name (`WIRE "tool.call"`, `API.md`, `STYLE 6`: doc-refs.ts reads them), no research note, no
 *    `/work/` path, no `../shared` that leaves the repository or names nothing.
 * 5. Every docs reference in those files names a page that exists and, when it names a section
 *    (`docs/wire.md "tool.call"`) or a numbered rule (`docs/style.md 6`), a heading of that page.
 *    scripts/repoint-doc-refs.ts rewrites the old form as this one.
 *
 * Prints one line per problem (`file:line: what`) and exits 1 when there is any.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiEntries, apiPagePath } from '../docs/scripts/api-entries.mjs';
import { docReferences, oldReferences, repositoryFiles, textFiles } from './doc-refs.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCS = join(ROOT, 'docs');

export interface Problem {
  file: string;
  line: number;
  message: string;
}

/** The Markdown files whose links must resolve. */
export function markdownFiles(files: string[]): string[] {
  return files.filter(
    (file) =>
      file === 'README.md' ||
      file === 'bench/README.md' ||
      /^packages\/[^/]+\/[^/]+\.md$/.test(file) ||
      /^docs\/.+\.md$/.test(file),
  );
}

/** Lines of a Markdown file with fenced code blocks blanked (their text is not links). */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      return '';
    }
    return fence === undefined ? line : '';
  });
}

/** VitePress's heading ids (@mdit-vue/shared's slugify; headings hold no control characters). */
function vitepressSlug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toLowerCase();
}

/** GitHub's heading ids, for the READMEs people read there. */
function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** A heading's text as rendered: no code ticks, emphasis or link targets. */
export function headingText(source: string): string {
  return source
    .replace(/\s*\{#[^}]+\}\s*$/, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim();
}

interface Heading {
  text: string;
  ids: Set<string>;
}

const headingCache = new Map<string, Heading[]>();

/** The headings of a Markdown file, its `<!--@include: path-->` files' included. */
export function headingsOf(file: string, seen = new Set<string>()): Heading[] {
  const cached = headingCache.get(file);
  if (cached) return cached;
  if (seen.has(file) || !existsSync(file)) return [];
  seen.add(file);
  const headings: Heading[] = [];
  for (const line of proseLines(readFileSync(file, 'utf8'))) {
    const include = /<!--\s*@include:\s*([^\s>]+?)\s*-->/.exec(line)?.[1];
    if (include) headings.push(...headingsOf(resolve(dirname(file), include), seen));
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)?.[1];
    if (!heading) continue;
    const text = headingText(heading);
    const ids = new Set([vitepressSlug(text), githubSlug(text)]);
    const custom = /\{#([^}]+)\}\s*$/.exec(heading)?.[1];
    if (custom) ids.add(custom);
    headings.push({ text, ids });
  }
  headingCache.set(file, headings);
  return headings;
}

/** The generated API pages (docs/api/...), from the entry points the reference is built from. */
function apiPages(): Set<string> {
  const pages = new Set([join(DOCS, 'api', 'index.md')]);
  for (const { module } of apiEntries()) pages.add(join(DOCS, 'api', apiPagePath(module)));
  return pages;
}

const isDirectory = (path: string) => existsSync(path) && statSync(path).isDirectory();

/** The file a link names, or undefined; `generated` when it is an API reference page. */
function resolveTarget(
  from: string,
  target: string,
  api: Set<string>,
): { file: string; generated: boolean } | undefined {
  if (target === '') return { file: from, generated: false }; // `#anchor` in the same file
  const inDocs = from.startsWith(`${DOCS}/`);
  const path =
    target.startsWith('/') && inDocs ? join(DOCS, target) : resolve(dirname(from), target);
  const candidates = [path];
  if (inDocs) {
    if (target.endsWith('/')) candidates.unshift(join(path, 'index.md'));
    else if (!/\.[a-z0-9]+$/i.test(path)) candidates.unshift(`${path}.md`);
  }
  for (const candidate of candidates) {
    if (api.has(candidate)) return { file: candidate, generated: true };
    if (existsSync(candidate)) return { file: candidate, generated: false };
  }
  return undefined;
}

/** Markdown links and reference definitions of one line: `[text](target)`, `[id]: target`. */
function linksOf(line: string): string[] {
  const prose = line.replace(/`[^`]*`/g, (span) => ' '.repeat(span.length));
  const links: string[] = [];
  for (const match of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) {
    links.push(match[1] ?? '');
  }
  const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(prose)?.[1];
  if (definition) links.push(definition);
  return links;
}

const REPOSITORY_PATH = /^(?:packages|docs|bench|e2e|demo|scripts|\.ci)\/[A-Za-z0-9_.\-/]*$/;

/** Checks the links of the given Markdown files; `ignored` says which paths git ignores. */
export function checkLinks(
  root: string,
  files: string[],
  ignored: (paths: string[]) => Set<string>,
): Problem[] {
  const api = apiPages();
  const problems: Problem[] = [];
  const spans: { file: string; line: number; path: string }[] = [];
  for (const relativeFile of files) {
    const file = join(root, relativeFile);
    proseLines(readFileSync(file, 'utf8')).forEach((line, index) => {
      const at = { file: relativeFile, line: index + 1 };
      for (const link of linksOf(line)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) {
          problems.push({ ...at, message: `links outside the repository: ${link}` });
          continue;
        }
        const [pathPart = '', anchor] = link.split('#', 2);
        const target = resolveTarget(file, pathPart.split('?')[0] ?? '', api);
        if (!target?.file.startsWith(root) || (isDirectory(target.file) && anchor)) {
          problems.push({ ...at, message: `dead link: ${link}` });
          continue;
        }
        if (!anchor || target.generated || !target.file.endsWith('.md')) continue;
        if (!headingsOf(target.file).some((heading) => heading.ids.has(anchor))) {
          const name = relative(root, target.file);
          problems.push({
            ...at,
            message: `dead link: ${link} (no heading #${anchor} in ${name})`,
          });
        }
      }
      for (const match of line.matchAll(/`([^`\s]+)`/g)) {
        const path = match[1] ?? '';
        if (REPOSITORY_PATH.test(path)) spans.push({ ...at, path });
      }
    });
  }
  const missing = spans.filter(({ path }) => !existsSync(join(root, path)));
  const ignoredPaths = ignored(missing.map(({ path }) => path));
  for (const { file, line, path } of missing) {
    if (!ignoredPaths.has(path)) problems.push({ file, line, message: `no such path: ${path}` });
  }
  return problems;
}

/** Does a heading of `page` answer a docs reference's section (`"tool.call"` or rule `6`)? */
function hasSection(page: string, section: string, numbered: boolean): boolean {
  const wanted = headingText(section);
  return headingsOf(page).some((heading) =>
    numbered ? heading.text.startsWith(`${section}. `) : heading.text === wanted,
  );
}

/** Rules 4 and 5, over the given files' contents. */
export function checkReferences(root: string, files: { file: string; text: string }[]): Problem[] {
  const api = apiPages();
  const problems: Problem[] = [];
  for (const { file, text } of files) {
    for (const { line, text: found } of oldReferences(file, text)) {
      problems.push({ file, line, message: `points outside the repository: ${found}` });
    }
    text.split('\n').forEach((line, index) => {
      for (const match of line.matchAll(/(?:\.\.\/)+shared\b/g)) {
        const target = resolve(root, dirname(file), match[0]);
        if (!target.startsWith(`${resolve(root)}/`) || !isDirectory(target)) {
          problems.push({
            file,
            line: index + 1,
            message: `points outside the repository: ${match[0]}`,
          });
        }
      }
    });
    for (const { line, page, section, numbered } of docReferences(text)) {
      const path = join(root, page);
      if (!existsSync(path) && !api.has(path)) {
        problems.push({ file, line, message: `no such docs page: ${page}` });
      } else if (section !== undefined && !api.has(path) && !hasSection(path, section, numbered)) {
        const what = numbered ? `rule ${section}` : `section "${section}"`;
        problems.push({ file, line, message: `no ${what} in ${page}` });
      }
    }
  }
  return problems;
}

/** The paths among `paths` that git ignores. */
function gitIgnored(paths: string[]): Set<string> {
  if (paths.length === 0) return new Set();
  try {
    const out = execFileSync('git', ['check-ignore', '--no-index', '--stdin'], {
      cwd: ROOT,
      input: paths.join('\n'),
      encoding: 'utf8',
    });
    return new Set(out.split('\n').filter(Boolean));
  } catch {
    return new Set(); // exit 1: none of them is ignored
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = repositoryFiles(ROOT);
  const problems = [
    ...checkLinks(ROOT, markdownFiles(files), gitIgnored),
    ...checkReferences(ROOT, textFiles(ROOT, files)),
  ];
  for (const { file, line, message } of problems) console.error(`${file}:${line}: ${message}`);
  if (problems.length > 0) {
    console.error(`lint:docs: ${problems.length} problem(s).`);
    process.exitCode = 1;
  }
}
