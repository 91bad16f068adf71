import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

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
    projects: packageNames.map((name) => ({
      test: {
        name,
        root: join(packagesDir, name),
        include: ['test/**/*.test.ts'],
        environment: 'node',
        testTimeout: 20_000,
      },
    })),
  },
});
