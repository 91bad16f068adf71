/**
 * References from code and text to the documentation, in both their forms:
 *
 * - the old form, which named design notes kept outside the repository: `WIRE "tool.call"`,
 *   `API.md "Registering"`, `STYLE 6`, `PERFORMANCE`, `../../../shared/design/WIRE.md`,
 *   `remote-tool-protocol-notes §11.2`;
 * - the new form, which names a page of docs/ and, optionally, one of its sections:
 *   `docs/wire.md "tool.call"`, `docs/style.md 6`.
 *
 * `repoint` rewrites the old form as the new one (scripts/repoint-doc-refs.ts runs it over the
 * repository), and `oldReferences` finds what is left of the old form (scripts/check-links.ts
 * refuses it). Both read a bare name (`WIRE`, `STYLE`) the same way: as a reference only in a
 * comment, in a text file, or when prose follows it (`WIRE's order`, `WIRE order`,
 * `STYLE: ...`), never as a code identifier (`const STYLE = ...`).
 */

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The design notes' names, and the page of docs/ each became. */
export const NOTE_PAGES = {
  API: 'docs/browser-api.md',
  WIRE: 'docs/wire.md',
  STYLE: 'docs/style.md',
  ARCHITECTURE: 'docs/architecture.md',
  PERFORMANCE: 'docs/performance.md',
} as const;

type NoteName = keyof typeof NOTE_PAGES;

/**
 * The research notes the design notes were written from, by section, and the docs section that
 * now carries the same facts.
 */
const RESEARCH_SECTIONS: Record<string, string> = {
  '7.3': 'docs/permissions.md "The host\'s grant"',
  '9': "the protocol's own", // cited beside docs/wire.md "Revisions", which quotes them
  '11.2': 'docs/wire.md "Error codes"',
};

/** Files whose text is prose throughout: a bare name in them is always a reference. */
const TEXT_FILE = /\.(md|html|txt)$/;

/** Names that also serve as identifiers: bare, they count only as prose. */
const BARE = /(?<![\w$.\-/])(WIRE|STYLE|ARCHITECTURE|PERFORMANCE)(?![\w$])/g;

function inComment(line: string, index: number): boolean {
  const before = line.slice(0, index);
  return /^\s*(\*|\/\*|\/\/|#)/.test(line) || before.includes('//') || before.includes('/*');
}

/** Is the bare name at `index` of `line` (of `file`) a reference to a design note? */
function bareIsReference(file: string, line: string, index: number, name: string): boolean {
  if (TEXT_FILE.test(file) || inComment(line, index)) return true;
  const after = line.slice(index + name.length);
  // In code, only prose inside a string: `'checks in WIRE order'`. `WIRE)` or `STYLE;` is code.
  return /^(?:'s\b| [a-z]| "| \d)/.test(after);
}

interface Rewrite {
  pattern: RegExp;
  replace: (match: string, ...groups: string[]) => string;
}

const NAMES = 'API|WIRE|STYLE|ARCHITECTURE|PERFORMANCE';
const page = (name: string) => NOTE_PAGES[name as NoteName];

/** Rewrites in order; each sees the text the earlier ones left. */
const REWRITES: Rewrite[] = [
  // A path to a design note: `../../../shared/design/WIRE.md`.
  {
    pattern: new RegExp(`(?:\\.\\./)*(?:\\w+/)*shared/design/(${NAMES})\\.md`, 'g'),
    replace: (_match, name = '') => page(name),
  },
  // The research notes, by section: `remote-tool-protocol-notes §11.2`; a code one of them
  // only proposed is toolwire's own.
  {
    pattern: /remote-tool-protocol-notes §([\d.]*\d)/g,
    replace: (_match, section = '') => RESEARCH_SECTIONS[section] ?? 'docs/wire.md',
  },
  {
    pattern: /§([\d.]*\d)'s proposal/g,
    replace: (_match, section = '') =>
      `toolwire's own (${RESEARCH_SECTIONS[section] ?? 'docs/wire.md'})`,
  },
  { pattern: /remote-tool-protocol-notes/g, replace: () => 'docs/wire.md' },
  // `; notes §3.3, §11.3` after a docs reference: the research notes are not in the repository,
  // and the docs section before it carries their facts.
  { pattern: /; notes §[\d.]+\d(?:, §[\d.]+\d)*/g, replace: () => '' },
  // The one section that did not keep its name: the lowering rows are in the "Data" table.
  {
    pattern: /(?<![\w/])PERFORMANCE(?:\.md)? "lowering"/g,
    replace: () => 'docs/performance.md "Data"',
  },
  // `WIRE "tool.call"`, `API.md "Registering"`.
  {
    pattern: new RegExp(`(?<![\\w/])(${NAMES})(?:\\.md)? (?="[^"]+")`, 'g'),
    replace: (_match, name = '') => `${page(name)} `,
  },
  // `STYLE 6`, `STYLE.md 14`.
  { pattern: /(?<![\w/])STYLE(?:\.md)? (?=\d)/g, replace: () => 'docs/style.md ' },
  // `API.md`, `PERFORMANCE.md's`.
  {
    pattern: new RegExp(`(?<![\\w/])(${NAMES})\\.md\\b`, 'g'),
    replace: (_match, name = '') => page(name),
  },
];

/** `text` (the contents of `file`) with every old reference rewritten to the docs. */
export function repoint(file: string, text: string): string {
  return text
    .split('\n')
    .map((line) => {
      let out = line;
      for (const { pattern, replace } of REWRITES) {
        out = out.replace(pattern, (match, ...groups) => replace(match, ...groups.map(String)));
      }
      // Bare names last, one at a time from the right, so indexes stay valid.
      const bare = [...out.matchAll(BARE)].filter((match) =>
        bareIsReference(file, out, match.index, match[1] ?? ''),
      );
      for (const match of bare.reverse()) {
        const name = match[1] ?? '';
        out = `${out.slice(0, match.index)}${page(name)}${out.slice(match.index + name.length)}`;
      }
      return out;
    })
    .join('\n');
}

export interface OldReference {
  line: number;
  text: string;
}

/** What would stop a reader: a design note by its old name, or a path out of the repository. */
const OLD_FORMS: RegExp[] = [
  new RegExp(`(?<![\\w/])(?:${NAMES})\\.md\\b`, 'g'),
  new RegExp(`(?<![\\w/])(?:${NAMES}) "[^"]*"`, 'g'),
  /(?<![\w/])STYLE \d+/g,
  /shared\/(?:design|reference)\b/g,
  /remote-tool-protocol(?:-notes|\.txt)|webmcp-spec-notes|webmcp-pr375[\w-]*/g,
  /\bnotes §\d/g,
  /§[\d.]*\d's proposal/g,
  /\/work\//g,
];

/** The old references left in `text` (the contents of `file`), with their line numbers. */
export function oldReferences(file: string, text: string): OldReference[] {
  const found: OldReference[] = [];
  text.split('\n').forEach((line, index) => {
    const taken: [number, number][] = [];
    for (const form of OLD_FORMS) {
      for (const match of line.matchAll(form)) {
        found.push({ line: index + 1, text: match[0] });
        taken.push([match.index, match.index + match[0].length]);
      }
    }
    for (const match of line.matchAll(BARE)) {
      const name = match[1] ?? '';
      if (taken.some(([from, to]) => match.index >= from && match.index < to)) continue;
      if (!bareIsReference(file, line, match.index, name)) continue;
      found.push({ line: index + 1, text: name });
    }
  });
  return found;
}

export interface DocReference {
  line: number;
  page: string;
  /** A quoted section name, or a numbered rule (`docs/style.md 6` -> "6"). */
  section?: string;
  numbered: boolean;
}

/** References of the new form: `docs/wire.md`, `docs/wire.md "tool.call"`, `docs/style.md 6`. */
export function docReferences(text: string): DocReference[] {
  const found: DocReference[] = [];
  text.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(/(?<![\w/.])(docs\/[\w/-]+\.md)(?: "([^"]+)"| (\d+)\b)?/g)) {
      const [, pagePath = '', quoted, number] = match;
      found.push({
        line: index + 1,
        page: pagePath,
        numbered: number !== undefined,
        ...(quoted !== undefined ? { section: quoted } : {}),
        ...(number !== undefined ? { section: number } : {}),
      });
    }
  });
  return found;
}

/** The files git knows or would add (tracked, or new and not ignored), repository-relative. */
export function repositoryFiles(root: string): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return out.split('\n').filter((file) => file !== '' && existsSync(join(root, file)));
}

/** The files that spell the old form on purpose: the rules and the checker. */
export const REFERENCE_TOOLS = new Set([
  'scripts/doc-refs.ts',
  'scripts/repoint-doc-refs.ts',
  'scripts/check-links.ts',
]);

/** Text files worth reading: not the lockfile, not binaries. */
export function textFiles(root: string, files: string[]): { file: string; text: string }[] {
  return files
    .filter((file) => !REFERENCE_TOOLS.has(file) && file !== 'pnpm-lock.yaml')
    .map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }))
    .filter(({ text }) => !text.includes('\u0000'));
}
