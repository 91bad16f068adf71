import { createReadStream, existsSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { defineConfig } from 'vite';
import { sourceResolve } from '../scripts/source-condition.js';
import { endpointVersionDefine } from '../scripts/version-define.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Serves built files as they are, at /built/<package>/<file> (from packages/<package>/dist/).
 * Vite's dev server treats every .js file as a module to transform, which breaks a classic
 * script such as polyfill.iife.js; pages that test the real artifacts load them from here.
 */
function serveBuiltFiles(): Plugin {
  return {
    name: 'toolwire-serve-built',
    configureServer(server) {
      server.middlewares.use('/built/', (req, res, next) => {
        const [pkg, ...rest] = decodeURIComponent((req.url ?? '').split('?')[0] ?? '')
          .replace(/^\/+/, '')
          .split('/');
        const file = normalize(join(root, 'packages', pkg ?? '', 'dist', ...rest));
        if (
          !pkg ||
          !file.startsWith(join(root, 'packages')) ||
          !existsSync(file) ||
          !statSync(file).isFile()
        ) {
          next();
          return;
        }
        res.setHeader(
          'Content-Type',
          file.endsWith('.js') ? 'text/javascript' : 'application/octet-stream',
        );
        res.setHeader('Cache-Control', 'no-store');
        createReadStream(file).pipe(res);
      });
    },
  };
}

// Serves the repository root so e2e pages import package sources directly
// (`/packages/<name>/src/index.ts`); Vite transpiles them on request.
export default defineConfig({
  root,
  // Bare `@toolwire/*` imports inside package sources resolve to sources too.
  ...sourceResolve,
  plugins: [serveBuiltFiles()],
  define: endpointVersionDefine,
  logLevel: 'warn',
  clearScreen: false,
  server: {
    // Pages are opened as http://localhost:PORT and http://127.0.0.1:PORT: two origins.
    allowedHosts: ['localhost', '127.0.0.1'],
    cors: false,
    hmr: false,
    watch: null,
  },
  optimizeDeps: {
    // The CommonJS (and other) dependencies the pages reach, bundled once at startup. No
    // discovery during a run: a newly found dependency makes Vite reload the page, which would
    // cut a test's socket or frame handshake in half. (They are root devDependencies so that
    // Vite can resolve them from here.)
    include: ['ajv/dist/2020.js', 'ajv-formats', 'fflate', '@cfworker/json-schema'],
    noDiscovery: true,
  },
});
