/**
 * `pnpm lint:manifests` (part of `pnpm lint`, no build needed): the packaging convention of
 * docs/architecture.md ("Packaging"), checked on every publishable package's package.json.
 *
 * - each `exports` entry that has the `@toolwire/source` condition lists it first, then
 *   `types` and `import` under `./dist/`; `publishConfig.exports` is the same map without that
 *   condition (and without workspace-only entries, which have nothing but it);
 * - `files` is `["dist"]`; `license`, `repository` (with this package's directory), `engines`;
 * - runtime dependencies on npm packages use caret ranges, on siblings `workspace:^`.
 *
 * Prints every problem, one a line, and exits 1 when there is one.
 */
import { isDeepStrictEqual } from 'node:util';
import { publishablePackages } from './pack.js';
import { SOURCE_CONDITION } from './source-condition.js';

type Json = Record<string, unknown>;
const problems: string[] = [];

/** The published form of a workspace `exports` map: the source condition dropped. */
function published(exports: Json): Json {
  const out: Json = {};
  for (const [entry, target] of Object.entries(exports)) {
    if (typeof target === 'string') {
      out[entry] = target;
      continue;
    }
    const { [SOURCE_CONDITION]: _source, ...rest } = target as Json;
    if (Object.keys(rest).length > 0) out[entry] = rest;
  }
  return out;
}

const { packages } = publishablePackages();
for (const { name, dir, manifest } of packages) {
  const say = (problem: string) => problems.push(`${name}: ${problem}`);
  const exports = (manifest.exports ?? {}) as Json;
  for (const [entry, target] of Object.entries(exports)) {
    if (typeof target === 'string') {
      if (!target.startsWith('./dist/')) say(`exports["${entry}"] is not under ./dist/`);
      continue;
    }
    const conditions = Object.keys(target as Json);
    if (!conditions.includes(SOURCE_CONDITION)) continue;
    if (conditions[0] !== SOURCE_CONDITION) say(`exports["${entry}"]: ${SOURCE_CONDITION} first`);
    if (conditions.length === 1) continue; // workspace-only entry, not published
    const { types, import: js } = target as Json;
    if (typeof types !== 'string' || !/^\.\/dist\/.*\.d\.ts$/.test(types))
      say(`exports["${entry}"].types must be a .d.ts under ./dist/`);
    if (typeof js !== 'string' || !/^\.\/dist\/.*\.js$/.test(js))
      say(`exports["${entry}"].import must be a .js under ./dist/`);
  }
  const publishConfig = (manifest.publishConfig ?? {}) as Json;
  if (!isDeepStrictEqual(publishConfig.exports, published(exports)))
    say(`publishConfig.exports must be exports without ${SOURCE_CONDITION}`);
  if (!isDeepStrictEqual(manifest.files, ['dist'])) say('files must be ["dist"]');
  if (manifest.license !== 'MIT') say('license must be MIT');
  const repository = manifest.repository as Json | undefined;
  const directory = `packages/${dir.split('/').at(-1)}`;
  if (repository?.directory !== directory) say(`repository.directory must be ${directory}`);
  if (!(manifest.engines as Json | undefined)?.node) say('engines.node is missing');
  for (const field of ['dependencies', 'peerDependencies']) {
    for (const [dep, range] of Object.entries((manifest[field] ?? {}) as Json)) {
      const want = dep.startsWith('@toolwire/') ? /^workspace:\^$/ : /^(\^|>=)/;
      if (typeof range !== 'string' || !want.test(range)) say(`${field}.${dep}: "${range}"`);
    }
  }
}
for (const problem of problems) console.error(`lint:manifests: ${problem}`);
if (problems.length > 0) process.exitCode = 1;
