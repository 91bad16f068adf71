import { execFileSync } from 'node:child_process';
import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from './scripts/find-chromium.mjs';

/**
 * A port free on 127.0.0.1 (and on [::1], where `localhost` may lead first), asked of the
 * kernel by a child process: this file is evaluated synchronously, and a port must be known
 * before the web server starts.
 */
function freePort(): number {
  const script = `
    const net = require('node:net');
    const listen = (port, host) => new Promise((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(port, host, () => resolve(server));
    });
    (async () => {
      for (;;) {
        const v4 = await listen(0, '127.0.0.1');
        const port = v4.address().port;
        const v6 = await listen(port, '::1').catch((error) => error);
        v4.close();
        if (v6 instanceof Error) {
          if (v6.code === 'EADDRINUSE') continue;
        } else v6.close();
        process.stdout.write(String(port));
        return;
      }
    })();`;
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
}

// Real Chromium (Debian's, never a Playwright download) against pages served by Vite on one
// port, reachable as two origins: http://localhost:PORT and http://127.0.0.1:PORT.
// The port is TOOLWIRE_E2E_PORT when the environment gives one, else a free one, so that two
// checkouts can run this suite at once. This file is evaluated in the runner and again in
// every worker: the runner picks the port once and publishes it in its environment, which the
// workers (and the web server) inherit, so all of them agree.
const PORT_GIVEN =
  process.env.TOOLWIRE_E2E_PORT !== undefined && !process.env.TOOLWIRE_E2E_PORT_PICKED;
if (process.env.TOOLWIRE_E2E_PORT === undefined) {
  process.env.TOOLWIRE_E2E_PORT = String(freePort());
  process.env.TOOLWIRE_E2E_PORT_PICKED = '1';
}
export const E2E_PORT = Number(process.env.TOOLWIRE_E2E_PORT);

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
    // served over the wire (and taking the calls executeTool takes), and @toolwire/playwright through Playwright's page.webmcp (which
    // needs --enable-features=WebMCP: the experimental-features flag alone gives the page
    // document.modelContext, but page.webmcp says WebMCP is not enabled).
    {
      name: 'chromium-native',
      testMatch: [
        'polyfill-contract.e2e.ts',
        'declarative-wire.e2e.ts',
        'declarative-agreement.e2e.ts',
        'playwright-helper.e2e.ts',
        'playwright-readme.e2e.ts',
        'frames-native.e2e.ts',
        'contract-roads.e2e.ts',
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
    // A server already on the port is ours only when the port was given (a person running a
    // server of their own on it); a picked port is fresh, and CI always starts its own.
    reuseExistingServer: PORT_GIVEN && !process.env.CI,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
