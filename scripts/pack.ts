/**
 * The workspace's publishable packages, packed as npm would publish them: `pnpm pack` (not
 * `npm pack`), which rewrites `workspace:^` ranges to versions and applies `publishConfig`
 * (the `exports` without the in-repo `@toolwire/source` condition). Packing reads `dist/`:
 * build first. Used by `pnpm lint:pack` (scripts/lint-pack.ts) and the packaging e2e.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface WorkspacePackage {
  name: string;
  version: string;
  /** packages/<dir> */
  dir: string;
  manifest: Record<string, unknown>;
}

export interface PackedPackage extends WorkspacePackage {
  tarball: string;
}

/**
 * Every package under packages/ that is not private. `withoutBuild` lists the ones that have
 * no `build` script yet (nothing to ship): they are left out, and callers say so.
 */
export function publishablePackages(): { packages: WorkspacePackage[]; withoutBuild: string[] } {
  const packages: WorkspacePackage[] = [];
  const withoutBuild: string[] = [];
  const root = join(REPO_ROOT, 'packages');
  for (const dir of readdirSync(root).sort()) {
    const file = join(root, dir, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    if (manifest.private === true) continue;
    const scripts = (manifest.scripts ?? {}) as Record<string, string>;
    if (!scripts.build) {
      withoutBuild.push(String(manifest.name));
      continue;
    }
    packages.push({
      name: String(manifest.name),
      version: String(manifest.version),
      dir: join(root, dir),
      manifest,
    });
  }
  return { packages, withoutBuild };
}

/** `@scope/name` at `1.2.3` -> `scope-name-1.2.3.tgz`, the file name `pnpm pack` writes. */
function tarballName(name: string, version: string): string {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/** Packs the given packages into `dest` with one `pnpm pack` run; throws when one is missing. */
export function packPackages(packages: readonly WorkspacePackage[], dest: string): PackedPackage[] {
  const filters = packages.flatMap((pkg) => ['--filter', pkg.name]);
  execFileSync('npx', ['-y', 'pnpm@12.4.2', '-r', ...filters, 'pack', '--pack-destination', dest], {
    cwd: REPO_ROOT,
    stdio: 'pipe',
  });
  return packages.map((pkg) => {
    const tarball = join(dest, tarballName(pkg.name, pkg.version));
    if (!existsSync(tarball)) throw new Error(`pnpm pack wrote no ${tarball} for ${pkg.name}`);
    return { ...pkg, tarball };
  });
}
