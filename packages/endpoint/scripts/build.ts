/**
 * Builds @toolwire/endpoint:
 * - dist/index.js: the ES module (dependencies external);
 * - dist/endpoint.iife.js: polyfill + protocol + endpoint in one classic script that installs
 *   the globals and exposes window.toolwire.connect; its lazy parts are the polyfill's chunks
 *   (validator engines, lowering...), copied beside it, and the endpoint's own (src/chunks.ts:
 *   `polyfill-ui-builtins.js`, `polyfill-pairing.js`, `polyfill-deflate.js`,
 *   `polyfill-hmac.js`, `polyfill-schema-failure.js`), all fetched by
 *   URL on first use;
 * - dist/endpoint.standalone.iife.js: the same with every chunk inlined, one file to copy (and
 *   what CDNs serve for the bare package URL, which is not the file's directory).
 */
import { copyFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { buildLazyChunks } from '../../../scripts/lazy-chunks.js';
import { sourceResolve } from '../../../scripts/source-condition.js';
import { endpointVersionDefine, pageScriptDefine } from '../../../scripts/version-define.js';
import { libraryBuild, pageScriptBuild } from '../../../vite.config.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}dist`;
const polyfillDist = fileURLToPath(new URL('../../polyfill/dist/', import.meta.url));
const quiet = { logLevel: 'warn' as const, configFile: false as const, root, ...sourceResolve };
const stamp = endpointVersionDefine;

await build({
  ...quiet,
  define: stamp,
  build: libraryBuild(new URL('../package.json', import.meta.url).href, { index: 'src/index.ts' }),
});

// The endpoint's lazy chunks (src/chunks.ts), self-contained (what they use of the protocol
// bundled in; `connect` is passed to the pairing, never bundled twice), named as the polyfill's
// so that a page serves one set of `polyfill-*.js` files.
await buildLazyChunks(
  quiet,
  dist,
  {
    'polyfill-ui-builtins': `${root}src/builtins/runtime.ts`,
    'polyfill-pairing': `${root}src/pairing-flow.ts`,
    'polyfill-deflate': fileURLToPath(new URL('../../protocol/src/deflate.ts', import.meta.url)),
    'polyfill-hmac': `${root}src/hmac-fallback.ts`,
    'polyfill-schema-failure': fileURLToPath(
      new URL('../../protocol/src/schema-failure.ts', import.meta.url),
    ),
  },
  'polyfill-shared-endpoint-[hash].js',
);

// The page scripts: the core, which fetches every lazy part by URL ('split'), and the one-file
// script, which inlines what a typical page needs and fetches only the rarer parts by URL
// ('standalone'; scripts/version-define.ts).
for (const [kind, fileName] of [
  ['split', 'endpoint.iife.js'],
  ['standalone', 'endpoint.standalone.iife.js'],
] as const) {
  await build({
    ...quiet,
    define: { ...stamp, ...pageScriptDefine(new URL('../package.json', import.meta.url), kind) },
    build: pageScriptBuild(dist, `${root}src/iife.ts`, 'toolwireEndpoint', fileName),
  });
}

// The lazy chunks the IIFE asks for by URL (built by the polyfill package, which builds first).
for (const file of readdirSync(polyfillDist)) {
  if (/^polyfill-.*\.js$/.test(file)) copyFileSync(`${polyfillDist}${file}`, `${dist}/${file}`);
}
