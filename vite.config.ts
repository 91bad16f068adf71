import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildEnvironmentOptions } from 'vite';
import { defineConfig } from 'vitest/config';
import { sourceResolve } from './scripts/source-condition.js';
import { endpointVersionDefine } from './scripts/version-define.js';

/**
 * The shared library build: ESM, one file per entry, dependencies left external (a package's
 * consumers install them), sourcemaps on. Each package's vite.config.ts passes its entries.
 */
export function libraryBuild(
  packageUrl: string,
  entries: Record<string, string>,
): BuildEnvironmentOptions {
  const root = fileURLToPath(new URL('.', packageUrl));
  return {
    outDir: join(root, 'dist'),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    minify: false,
    lib: {
      entry: Object.fromEntries(
        Object.entries(entries).map(([name, file]) => [name, join(root, file)]),
      ),
      formats: ['es'],
    },
    rollupOptions: {
      // Bare imports (fflate, ajv, node:*) stay imports; relative ones are bundled.
      external: (id: string) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0'),
    },
  };
}

/**
 * A page script (polyfill and endpoint): `entry` as one minified classic script (IIFE) named
 * `fileName` in `outDir`, its global `name`. The caller's `__TOOLWIRE_IIFE__` define picks the
 * build: 'true' loads the lazy parts by URL from beside the script, 'false' inlines them.
 */
export function pageScriptBuild(
  outDir: string,
  entry: string,
  name: string,
  fileName: string,
): BuildEnvironmentOptions {
  return {
    outDir,
    emptyOutDir: false,
    minify: true,
    target: 'es2022',
    lib: { entry, formats: ['iife'], name, fileName: () => fileName },
  };
}

// One vitest project per package under packages/ (issue 2). Unit tests run in Node by default;
// a file opts into happy-dom with a `// @vitest-environment happy-dom` first line. Real
// Chromium tests live in e2e/ and run under Playwright, never here.
const packagesDir = new URL('./packages/', import.meta.url).pathname;
const packageNames = readdirSync(packagesDir).filter((name) =>
  statSync(join(packagesDir, name)).isDirectory(),
);

export default defineConfig({
  test: {
    // Two cores: keep one worker per core and no more.
    maxWorkers: 2,
    projects: [
      // The repository's own checks (lint:pack, lint:refs), in Node.
      {
        test: {
          name: 'scripts',
          root: fileURLToPath(new URL('./scripts/', import.meta.url)),
          include: ['test/**/*.test.ts'],
          environment: 'node',
        },
      },
      // The benches' own helpers (the hand-written MCP HTTP client), against real servers.
      {
        ...sourceResolve,
        test: {
          name: 'bench',
          root: fileURLToPath(new URL('./bench/', import.meta.url)),
          include: ['test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 20_000,
        },
      },
      ...packageNames.map((name) => ({
        // What the endpoint's build stamps in (scripts/build.ts), so tests see the real version.
        define: endpointVersionDefine,
        // Workspace packages from their sources (the `@toolwire/source` export condition).
        ...sourceResolve,
        test: {
          name,
          root: join(packagesDir, name),
          include: ['test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 20_000,
        },
      })),
    ],
  },
});
