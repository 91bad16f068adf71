/**
 * The example app's dev server: `pnpm --filter @toolwire/react example`, or started by
 * e2e/react.e2e.ts. React's development build, so that <StrictMode> double-mounts. index.html
 * installs the polyfill from the app (install()); script-tag.html loads the built
 * polyfill.iife.js (run `pnpm build` first), served as it is from /polyfill/.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InlineConfig, Plugin } from 'vite';
import { defineConfig } from 'vite';
import { sourceResolve } from '../../../scripts/source-condition.js';

const EXAMPLE_ROOT = fileURLToPath(new URL('.', import.meta.url));
const REPO_ROOT = join(EXAMPLE_ROOT, '..', '..', '..');
const POLYFILL_DIST = join(REPO_ROOT, 'packages', 'polyfill', 'dist');

/** The built polyfill, byte for byte: Vite would transform a .js file into a module. */
function servePolyfillBuild(): Plugin {
  return {
    name: 'toolwire-example-polyfill-build',
    configureServer(server) {
      server.middlewares.use('/polyfill/', (req, res, next) => {
        const path = decodeURIComponent((req.url ?? '').split('?')[0] ?? '');
        const file = normalize(join(POLYFILL_DIST, path));
        if (!file.startsWith(POLYFILL_DIST) || !existsSync(file) || !statSync(file).isFile()) {
          next();
          return;
        }
        res.setHeader('Content-Type', 'text/javascript');
        res.setHeader('Cache-Control', 'no-store');
        createReadStream(file).pipe(res);
      });
    },
  };
}

export function exampleConfig(server: { host?: string; port?: number } = {}) {
  return {
    root: EXAMPLE_ROOT,
    configFile: false,
    clearScreen: false,
    logLevel: 'warn',
    cacheDir: join(REPO_ROOT, 'node_modules', '.vite', 'react-example'),
    ...sourceResolve,
    plugins: [servePolyfillBuild()],
    // Vite compiles TSX itself (no React plugin): the automatic runtime, as tsconfig's react-jsx.
    oxc: { jsx: { runtime: 'automatic' } },
    server: {
      host: server.host ?? 'localhost',
      port: server.port ?? 5180,
      strictPort: server.port !== 0,
      // The polyfill's source lives outside this root.
      fs: { allow: [REPO_ROOT] },
      hmr: false,
      watch: null,
    },
    // Bundled once at startup, no discovery mid-run (a discovery reloads the page).
    optimizeDeps: {
      include: [
        'react',
        'react-dom/client',
        'react/jsx-dev-runtime',
        'ajv/dist/2020.js',
        'ajv-formats',
        '@cfworker/json-schema',
        'zod',
      ],
      noDiscovery: true,
    },
  } satisfies InlineConfig;
}

export default defineConfig(exampleConfig());
