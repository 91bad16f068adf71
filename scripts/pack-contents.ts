/**
 * What a packed tarball must hold beyond what publint checks: the files an npm page and a user
 * read first. scripts/lint-pack.ts lists each tarball's files and refuses one these find wanting.
 */
import { execFileSync } from 'node:child_process';

/** The files a tarball lists (`tar -tzf`), as npm unpacks them: under `package/`. */
export function tarballFiles(tarball: string): string[] {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/**
 * The problems with a tarball's file list, one line each: none when it is fine. A package needs
 * a README at its top, or npm shows a blank page for it.
 */
export function packContentProblems(files: readonly string[]): string[] {
  const top = files.map((file) => file.replace(/^package\//, ''));
  const problems: string[] = [];
  if (!top.some((file) => /^readme(\.md)?$/i.test(file))) {
    problems.push('no README.md at the top of the package (its npm page would be blank)');
  }
  return problems;
}
