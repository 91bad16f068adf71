import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packContentProblems, tarballFiles } from '../pack-contents.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A real .tgz laid out as npm packs one (`package/...`), holding the given files. */
function tarball(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'toolwire-pack-contents-'));
  folders.push(root);
  for (const [name, text] of Object.entries(files)) {
    const path = join(root, 'package', name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  }
  const file = join(root, 'fake-1.0.0.tgz');
  execFileSync('tar', ['-czf', file, '-C', root, 'package']);
  return file;
}

describe('lint:pack: a tarball without a README', () => {
  it('passes a tarball with a README at its top, and fails the same one without', () => {
    const manifest = { 'package.json': '{"name":"fake","version":"1.0.0"}', 'dist/index.js': '' };
    const honest = tarballFiles(tarball({ ...manifest, 'README.md': '# fake\n' }));
    expect(honest).toContain('package/README.md');
    expect(packContentProblems(honest)).toEqual([]);

    const bare = tarballFiles(tarball(manifest));
    expect(bare).toContain('package/package.json');
    expect(packContentProblems(bare)).toEqual([
      'no README.md at the top of the package (its npm page would be blank)',
    ]);
  });

  it('does not count a README further down, such as one inside dist/', () => {
    const files = ['package/package.json', 'package/dist/README.md', 'package/docs/readme.md'];
    expect(packContentProblems(files)).toHaveLength(1);
    expect(packContentProblems([...files, 'package/readme.md'])).toEqual([]);
  });
});
