import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from './scripts/find-chromium.mjs';

// Real Chromium (Debian's, never a Playwright download) against pages served by Vite on one
// port, reachable as two origins: http://localhost:PORT and http://127.0.0.1:PORT.
export const E2E_PORT = Number(process.env.TOOLWIRE_E2E_PORT ?? 5181);

// Test files import package sources, which import their siblings by name: the workers (and
// the tsx processes tests start) resolve those to sources too, as vitest does. The built CLI
// is spawned with a clean environment, and bundles its siblings anyway.
process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, '--conditions=@toolwire/source']
  .filter(Boolean)
  .join(' ');

let executablePath: string;
try {
  executablePath = findChromium();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}

export default defineConfig({
  testDir: './e2e',
  testMatch: '**/*.e2e.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  timeout: 30_000,
  use: {
    baseURL: `http://localhost:${E2E_PORT}`,
    browserName: 'chromium',
    launchOptions: { executablePath, args: CHROMIUM_ARGS },
  },
  projects: [
    // Native WebMCP off: everything runs against the polyfill.
    { name: 'chromium' },
    // Chromium's own document.modelContext (behind a flag): the contract suite, form tools
    // served over the wire, and @toolwire/playwright through Playwright's page.webmcp (which
    // needs --enable-features=WebMCP: the experimental-features flag alone gives the page
    // document.modelContext, but page.webmcp says WebMCP is not enabled).
    {
      name: 'chromium-native',
      testMatch: [
        'polyfill-contract.e2e.ts',
        'declarative-wire.e2e.ts',
        'playwright-helper.e2e.ts',
        'playwright-readme.e2e.ts',
        'frames-native.e2e.ts',
      ],
      use: {
        launchOptions: {
          executablePath,
          args: [
            ...CHROMIUM_ARGS,
            '--enable-experimental-web-platform-features',
            '--enable-features=WebMCP',
          ],
        },
      },
    },
  ],
  webServer: {
    command: `vite --config e2e/vite.config.ts --port ${E2E_PORT} --strictPort --host 127.0.0.1`,
    url: `http://127.0.0.1:${E2E_PORT}/e2e/pages/index.html`,
    reuseExistingServer: !process.env.CI,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
