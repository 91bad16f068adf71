/**
 * Builds @toolwire/polyfill (issue 4 "Entry points"):
 * - dist/index.js: the side-effect-free ES module (dependencies external); dist/wire.js, the
 *   endpoint's entry (`@toolwire/polyfill/wire`);
 * - dist/polyfill.iife.js: one classic script that installs the globals on load;
 * - dist/polyfill-<chunk>.js: the lazily loaded parts (validator engines, lowering, frames,
 *   native layer, declarative form tools) as ES
 *   modules, which the IIFE imports from beside its own URL on first use;
 * - dist/polyfill.standalone.iife.js: the same script with every chunk inlined, for pages that
 *   copy one file (and for CDNs, whose bare package URL is not the file's directory).
 */
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { buildLazyChunks } from '../../../scripts/lazy-chunks.js';
import { sourceResolve } from '../../../scripts/source-condition.js';
import { pageScriptDefine } from '../../../scripts/version-define.js';
import { libraryBuild, pageScriptBuild } from '../../../vite.config.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}dist`;
const quiet = { logLevel: 'warn' as const, configFile: false as const, root, ...sourceResolve };

// 1. The module build.
await build({
  ...quiet,
  build: libraryBuild(new URL('../package.json', import.meta.url).href, {
    index: 'src/index.ts',
    wire: 'src/wire/index.ts',
    global: 'src/global.ts',
  }),
});

// 2. Lazy chunks, self-contained (their dependencies bundled in), each minified on its own.
// The cfworker validator, the one a page's first check fetches, is built alone: one file with
// @cfworker/json-schema and the helpers it shares with ajv's chunk inside, rather than three
// (the chunk, its library and a shared chunk), which gzip as one about 400 B smaller.
await buildLazyChunks(
  quiet,
  dist,
  { 'polyfill-validator-cfworker': `${root}src/validation/cfworker.ts` },
  'polyfill-shared-[hash].js',
);
await buildLazyChunks(
  quiet,
  dist,
  {
    'polyfill-validator-ajv': `${root}src/validation/ajv.ts`,
    'polyfill-native': `${root}src/native.ts`,
    'polyfill-frames': `${root}src/frames/node.ts`,
    'polyfill-declarative': `${root}src/declarative/forms.ts`,
    'polyfill-lowering': fileURLToPath(new URL('../../lowering/src/index.ts', import.meta.url)),
  },
  'polyfill-shared-[hash].js',
);

// 3. The page scripts: the core alone, which loads the chunks above by URL ('split'), and the
// one-file script, which inlines the parts a typical page needs and loads only the rarer ones
// by URL ('standalone'; scripts/version-define.ts).
for (const [kind, fileName] of [
  ['split', 'polyfill.iife.js'],
  ['standalone', 'polyfill.standalone.iife.js'],
] as const) {
  await build({
    ...quiet,
    define: pageScriptDefine(new URL('../package.json', import.meta.url), kind),
    build: pageScriptBuild(dist, `${root}src/iife.ts`, 'toolwirePolyfill', fileName),
  });
}
