import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Serves the repository root so e2e pages import package sources directly
// (`/packages/<name>/src/index.ts`); Vite transpiles them on request.
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
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
    // Crawl every e2e page at startup so dependencies are pre-bundled before the first test,
    // not discovered mid-run (which reloads the page).
    entries: ['e2e/pages/**/*.html'],
  },
});
