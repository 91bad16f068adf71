// Writes one TypeDoc entry file per public entry point of each package (docs/api-src/*.ts),
// read from the packages' `exports`, so a new public subpath joins the API reference without
// touching this file. Each entry re-exports the package's source and names the module as users
// import it (`@toolwire/protocol/ajv`), which TypeDoc takes from the `@module` tag.
//
// Left out: `./internal` (for tests and sibling packages, no stability promise), the IIFE
// builds, `package.json`, and any subpath without a TypeScript source file of its own (a
// declaration file that only types globals has nothing for TypeDoc to list).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const docsDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const packagesDir = join(docsDir, '..', 'packages');
const outDir = join(docsDir, 'api-src');
const SKIPPED = new Set(['./internal', './iife', './package.json']);

/** The source file behind an export subpath: `.` is src/index.ts, `./x` src/x.ts or src/x/index.ts. */
/**
 * @param {string} packageDir
 * @param {string} subpath
 */
function sourceOf(packageDir, subpath) {
  const name = subpath === '.' ? 'index' : subpath.slice(2);
  const candidates = [
    join(packageDir, 'src', `${name}.ts`),
    join(packageDir, 'src', name, 'index.ts'),
  ];
  return candidates.find((file) => existsSync(file) && !file.endsWith('.d.ts'));
}

/**
 * Where TypeDoc writes a module's page, under docs/api/ (`excludeScopesInPaths`):
 * `@toolwire/protocol` -> `protocol.md`, `@toolwire/protocol/ajv` -> `protocol/ajv.md`.
 * @param {string} module
 */
export function apiPagePath(module) {
  return `${module.replace(/^@[^/]+\//, '')}.md`;
}

/** @returns {{module: string, source: string, description: string}[]} */
export function apiEntries() {
  const entries = [];
  for (const dir of readdirSync(packagesDir).sort()) {
    const manifestFile = join(packagesDir, dir, 'package.json');
    if (!existsSync(manifestFile)) continue;
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    if (manifest.private || !manifest.exports) continue;
    const exportsMap =
      typeof manifest.exports === 'string' ? { '.': manifest.exports } : manifest.exports;
    for (const subpath of Object.keys(exportsMap).sort()) {
      if (SKIPPED.has(subpath) || subpath.includes('*')) continue;
      const source = sourceOf(join(packagesDir, dir), subpath);
      if (!source) continue;
      const module = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
      entries.push({ module, source, description: subpath === '.' ? manifest.description : '' });
    }
  }
  return entries;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const entries = apiEntries();
  for (const { module, source, description } of entries) {
    const file = join(outDir, `${module.replace(/^@/, '').replaceAll('/', '-')}.ts`);
    const from = relative(outDir, source).replaceAll('\\', '/').replace(/\.ts$/, '.js');
    const summary = description ? ` * ${description}\n *\n` : '';
    writeFileSync(file, `/**\n${summary} * @module ${module}\n */\nexport * from '${from}';\n`);
  }
  console.log(`API reference entry points: ${entries.map((entry) => entry.module).join(', ')}`);
}
