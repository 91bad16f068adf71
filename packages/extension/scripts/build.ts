/**
 * Builds @toolwire/extension:
 * - dist/index.js: the library (ES module; `tsc -p tsconfig.build.json` adds the declarations);
 * - dist/content/main-world.js and dist/content/relay.js: the two content scripts, classic
 *   scripts (content scripts cannot be modules), for extensions to list in their manifest;
 * - dist-extension/: the toolwire extension itself, unpacked (manifest, service worker, side
 *   panel, the content scripts): load it from chrome://extensions.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { sourceResolve } from '../../../scripts/source-condition.js';
import { libraryBuild, pageScriptBuild } from '../../../vite.config.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}dist`;
const out = `${root}dist-extension`;
const quiet = { logLevel: 'warn' as const, configFile: false as const, root, ...sourceResolve };

// 1. The library.
await build({
  ...quiet,
  build: libraryBuild(new URL('../package.json', import.meta.url).href, { index: 'src/index.ts' }),
});

// 2. The content scripts, one self-contained classic script each.
for (const [name, global] of [
  ['main-world', 'toolwireMainWorld'],
  ['relay', 'toolwireRelay'],
] as const) {
  await build({
    ...quiet,
    build: {
      ...pageScriptBuild(`${dist}/content`, `${root}src/content/${name}.ts`, global, `${name}.js`),
      minify: false,
    },
  });
}

/**
 * A page script with every lazy part inlined (a content script cannot fetch parts from beside
 * itself). The page script defines are pinned to `undefined`, so each chunk test folds to the
 * inlined import() and no page global can steer it to a fetch.
 */
async function buildInlined(out: string, entry: string, global: string, file: string) {
  await build({
    ...quiet,
    define: {
      __TOOLWIRE_IIFE__: 'undefined',
      __TOOLWIRE_PACKAGE__: 'undefined',
      __TOOLWIRE_VERSION__: 'undefined',
    },
    build: pageScriptBuild(out, entry, global, file),
  });
}

// 2b. The provider (app/provide/provider.ts): toolwire's polyfill as one classic script.
await buildInlined(
  `${dist}/provide`,
  `${root}app/provide/provider.ts`,
  'toolwireProvide',
  'provide.js',
);

// 2c. The tab's own session (app/connect/tab-session.ts), injected into a tab's isolated world on
// Connect: the endpoint's connect(), built as the provider is.
await buildInlined(
  `${dist}/session`,
  `${root}app/connect/tab-session.ts`,
  'toolwireTabSessionScript',
  'session.js',
);

// 3. The extension: its two pages' scripts as self-contained modules, then the static files.
rmSync(out, { recursive: true, force: true });
for (const [entry, file] of [
  ['app/background.ts', 'background.js'],
  ['app/panel/main.ts', 'panel.js'],
  ['app/link.ts', 'link.js'],
] as const) {
  await build({
    ...quiet,
    build: {
      outDir: out,
      emptyOutDir: false,
      minify: false,
      target: 'es2022',
      lib: { entry: `${root}${entry}`, formats: ['es'], fileName: () => file },
      rollupOptions: { output: { codeSplitting: false } },
    },
  });
}
mkdirSync(`${out}/content`, { recursive: true });
for (const name of ['main-world.js', 'relay.js'])
  copyFileSync(`${dist}/content/${name}`, `${out}/content/${name}`);
copyFileSync(`${dist}/provide/provide.js`, `${out}/content/provide.js`);
rmSync(`${dist}/provide`, { recursive: true, force: true });
copyFileSync(`${dist}/session/session.js`, `${out}/content/session.js`);
rmSync(`${dist}/session`, { recursive: true, force: true });
for (const name of ['panel.html', 'panel.css', 'link.html'])
  copyFileSync(`${root}app/${name}`, `${out}/${name}`);
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string };
const manifest = JSON.parse(readFileSync(`${root}app/manifest.json`, 'utf8'));
writeFileSync(`${out}/manifest.json`, `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
