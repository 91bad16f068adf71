import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The docs site's test, apart from the packages' unit tests: it builds the whole site once
// (`pnpm docs:build`, about half a minute on two cores), so `pnpm test` runs it as its own step.
export default defineConfig({
  test: {
    name: 'docs',
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
