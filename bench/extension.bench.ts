/**
 * `pnpm bench:extension`: one tab's tool called by the host two ways, in the same run, call by
 * call: through the toolwire extension ("Connect this tab": host -> the tab's own session that
 * the extension runs in the tab's isolated world -> the tab's relay -> the MAIN-world reader ->
 * the page's `window.tools`; or, where that session cannot get in, through the extension's
 * service worker first) and by the page's own endpoint (host -> the page's `endpoint.iife.js` session). Same page, same echo
 * tool, same host, same Chromium. Target: the extension's p50 at most 1.5x the endpoint's, at
 * 100 B and 10 KiB.
 *
 * Nothing observes the page's sockets while the calls are timed: Chromium is started directly
 * (no Playwright), with the built extension (`--load-extension`) and `--remote-debugging-port=0`.
 * A bare DevTools client (`e2e/support/cdp.ts`, no domain enabled but Target and Runtime in the
 * targets it attaches to) is used only to set up: find the extension and the tab's id in its
 * service worker, open the extension's panel page once to ask for the connection (what the
 * Connect button sends), then close that page, detach, and close the DevTools socket before the
 * first timed call. Answers are checked outside the timed regions; times are printed against
 * their target, never asserted.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserEndpoint, connectCdp } from '../e2e/support/cdp.js';
import type { HostSession } from '../packages/host/src/index.js';
import { createHost } from '../packages/host/src/index.js';
import { CHROMIUM_ARGS, findChromium } from '../scripts/find-chromium.mjs';
import { makeRecordsPayload, SMALL_INPUT } from './lib/fixtures.js';
import {
  BenchFailure,
  expect,
  formatMs,
  formatRatio,
  measureInterleaved,
  renderTable,
} from './lib/harness.js';
import { record } from './lib/summary.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENDPOINT_DIST = join(ROOT, 'packages/endpoint/dist');
const EXTENSION_DIR = join(ROOT, 'packages/extension/dist-extension');
/** The extension's path at most this much of the page's own endpoint's p50. */
const TARGET = 1.5;

const SMALL = SMALL_INPUT;

const PAGE_HTML = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>toolwire: extension benchmark</title></head>
  <body>
    <p id="status">loading</p>
    <!-- The endpoint as a site ships it (its polyfill gives window.tools, which the extension's
         reader reads); the page's own code connects it to the host. -->
    <script src="/dist/endpoint.iife.js"></script>
    <script>
      toolManager.register({
        name: 'bench.echo',
        naturalLanguageProperties: {
          description: 'Returns its input.',
          annotations: { readOnlyHint: true },
        },
        execute: (input) => input,
      });
      toolwire.connect({ url: new URLSearchParams(location.hash.slice(1)).get('host') });
    </script>
  </body>
</html>`;

async function servePage(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const send = (status: number, type: string, body: string | Buffer) => {
      response.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
      response.end(body);
    };
    if (path === '/bench/extension.html') return send(200, 'text/html; charset=utf-8', PAGE_HTML);
    const file = /^\/dist\/([\w.-]+\.js)$/.exec(path)?.[1];
    if (file && existsSync(join(ENDPOINT_DIST, file)))
      return send(200, 'text/javascript', readFileSync(join(ENDPOINT_DIST, file)));
    return send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function build(): void {
  // The extension's build needs the endpoint's and the polyfill's (its workspace dependencies).
  execFileSync('npx', ['-y', 'pnpm@12.4.2', '--filter', '@toolwire/extension...', 'build'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}

/** Debian's Chromium with the built extension, nothing attached; DevTools on a port of its own. */
function launchChromium(url: string): {
  process: ChildProcess;
  profile: string;
  log: () => string;
  stop(): Promise<void>;
} {
  const profile = mkdtempSync(join(tmpdir(), 'toolwire-bench-extension-'));
  const child = spawn(
    findChromium(),
    [
      ...CHROMIUM_ARGS,
      '--headless',
      `--user-data-dir=${profile}`,
      `--disable-extensions-except=${EXTENSION_DIR}`,
      `--load-extension=${EXTENSION_DIR}`,
      '--remote-debugging-port=0',
      '--enable-logging=stderr',
      url,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk) => {
    if (log.length < 100_000) log += chunk;
  });
  return {
    process: child,
    profile,
    log: () => log,
    async stop() {
      // Chromium writes its profile as it exits: remove it once the process is gone.
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      if (child.exitCode === null) await exited;
      try {
        rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      } catch (error) {
        console.error(`bench:extension: could not remove ${profile}: ${(error as Error).message}`);
      }
    },
  };
}

/**
 * Set-up only: the extension's id, the tab's id, and "Connect this tab" with a pairing of the
 * host, asked from the extension's own panel page; then every DevTools session is closed.
 */
async function connectThroughExtension(
  profile: string,
  pageUrl: string,
  pairingFor: (extensionId: string) => string,
): Promise<{ extensionId: string; path: string }> {
  const cdp = await connectCdp(await browserEndpoint(profile));
  try {
    let worker: { targetId: string; url: string } | undefined;
    for (let n = 0; !worker; n++) {
      const { targetInfos } = await cdp.send<{
        targetInfos: { targetId: string; type: string; url: string }[];
      }>('Target.getTargets');
      worker = targetInfos.find(
        (target) =>
          target.type === 'service_worker' && target.url.startsWith('chrome-extension://'),
      );
      expect(n < 200, 'the extension never started its service worker');
      if (!worker) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const extensionId = new URL(worker.url).host;
    const { sessionId: inWorker } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', {
      targetId: worker.targetId,
      flatten: true,
    });
    let tabId: number | undefined;
    for (let n = 0; tabId === undefined; n++) {
      tabId = await cdp.evaluate<number | undefined>(
        inWorker,
        // A worker target can be listed before its script has run (no chrome yet): ask again.
        `typeof chrome === 'object' ? chrome.tabs.query({}).then((tabs) => tabs.find((tab) => tab.url === ${JSON.stringify(pageUrl)})?.id) : undefined`,
      );
      expect(n < 200, 'no tab shows the bench page');
      if (tabId === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await cdp.send('Target.detachFromTarget', { sessionId: inWorker });
    const { targetId: panel } = await cdp.send<{ targetId: string }>('Target.createTarget', {
      url: `chrome-extension://${extensionId}/panel.html?tab=${tabId}`,
    });
    const { sessionId: inPanel } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', {
      targetId: panel,
      flatten: true,
    });
    // The new page starts as about:blank: wait for the panel itself (its chrome.runtime).
    for (let n = 0; ; n++) {
      const ready = await cdp.evaluate<boolean>(
        inPanel,
        `location.protocol === 'chrome-extension:' && document.readyState === 'complete' && typeof chrome?.runtime?.connect === 'function'`,
      );
      if (ready) break;
      expect(n < 200, 'the panel page never loaded');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // What the panel's Connect button sends, on the panel's own port to the service worker.
    const answer = await cdp.evaluate<string>(
      inPanel,
      `new Promise((resolve) => {
        const port = chrome.runtime.connect({ name: 'toolwire-connect' });
        port.onMessage.addListener((event) => {
          if (event.type === 'error') resolve(event.code + ': ' + event.message);
          else if (event.state?.status === 'connected') resolve('connected');
          else if (event.state?.status === 'ended') resolve('ended: ' + event.state.error?.message);
        });
        port.postMessage({ op: 'connect', tabId: ${tabId}, guard: 'read-only', pairing: ${JSON.stringify(pairingFor(extensionId))} });
      })`,
    );
    expect(answer === 'connected', `the extension did not connect the tab: ${answer}`);
    await cdp.send('Target.detachFromTarget', { sessionId: inPanel });
    await cdp.send('Target.closeTarget', { targetId: panel });
    // Which path the tab's calls take: the relay's direct port, once its link page handed it
    // over (right after the connect's first listing), or chrome.runtime where it could not.
    const { sessionId: again } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', {
      targetId: worker.targetId,
      flatten: true,
    });
    let path = '';
    for (let n = 0; n < 100 && path !== 'direct'; n++) {
      path = String(await cdp.evaluate<string>(again, `toolwireRelayPath(${tabId}).path`));
      if (path !== 'direct') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await cdp.send('Target.detachFromTarget', { sessionId: again });
    return { extensionId, path };
  } finally {
    cdp.close();
  }
}

function sameJson(a: unknown, b: unknown, label: string): void {
  expect(JSON.stringify(a) === JSON.stringify(b), `${label}: the echo came back different`);
}

async function main(): Promise<void> {
  try {
    build();
  } catch (error) {
    const output = `${(error as { stdout?: Buffer }).stdout ?? ''}${(error as { stderr?: Buffer }).stderr ?? ''}`;
    throw new BenchFailure(`the build failed:\n${output}`);
  }
  const server = await servePage();
  const host = await createHost({ origins: [server.origin] });
  const pageUrl = `${server.origin}/bench/extension.html#host=${encodeURIComponent(host.url)}`;
  const browser = launchChromium(pageUrl);
  try {
    const hasEcho = (session: HostSession) => session.catalog.get('bench.echo') !== undefined;
    let own: HostSession;
    let viaExtension: HostSession;
    let extensionId: string;
    let path: string;
    let served: 'tab' | 'worker' = 'worker';
    try {
      own = await host.waitForSession({
        timeoutMs: 20_000,
        filter: (session) => session.origin === server.origin && hasEcho(session),
      });
      ({ extensionId, path } = await connectThroughExtension(
        browser.profile,
        pageUrl,
        (id) => host.extensionPairing(id).url,
      ));
      // The tab's own session (a delegate of the extension's pairing, run in the tab's isolated
      // world) takes over from the worker's once the code is spent; the worker's serves the tab
      // only when the tab's socket could not get in.
      try {
        viaExtension = await host.waitForSession({
          timeoutMs: 10_000,
          filter: (session) => session.delegated && hasEcho(session),
        });
        served = 'tab';
      } catch {
        viaExtension = await host.waitForSession({
          timeoutMs: 20_000,
          filter: (session) =>
            session.origin === `chrome-extension://${extensionId}` && hasEcho(session),
        });
      }
    } catch (error) {
      throw new BenchFailure(
        `the tab did not connect (${(error as Error).message}); Chromium said:\n${browser.log().slice(-4000)}`,
      );
    }

    console.log(
      '# @toolwire/extension: a tab through the extension vs the same tab by its own endpoint',
    );
    console.log('');
    console.log(
      `- Debian Chromium (headless), the built extension loaded, page ${server.origin} loading only dist/endpoint.iife.js with one echo tool; DevTools closed before timing (nothing observes the sockets)`,
    );
    console.log(
      `- the extension's calls: ${served === 'tab' ? "path direct: the tab's own session, run by the extension in the tab's isolated world (a delegate of its pairing): host -> tab -> host" : `path worker: the extension's service worker, which reaches the tab by ${path === 'direct' ? "the relay's direct MessagePort" : `chrome.runtime ports (relay path: ${path})`}`}; load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
    console.log(
      `- one \`createHost\` in this Node ${process.version} process: the page's own endpoint session and the extension's session for the same tab; the two cases interleaved call by call`,
    );
    console.log('');

    const rows: string[][] = [];
    for (const [label, args] of [
      ['100 B', SMALL],
      ['10 KiB', makeRecordsPayload(10 * 1024)],
    ] as const) {
      const bytes = JSON.stringify(args).length;
      const [extension, endpoint] = await measureInterleaved([
        {
          prepare: () => undefined,
          run: () => viaExtension.call('bench.echo', args as Record<string, unknown>),
          check: (result) => sameJson(result.result, args, `extension ${label}`),
        },
        {
          prepare: () => undefined,
          run: () => own.call('bench.echo', args as Record<string, unknown>),
          check: (result) => sameJson(result.result, args, `endpoint ${label}`),
        },
      ]);
      const ratio = extension.medianMs / endpoint.medianMs;
      rows.push([
        `call, ${label} echo (${bytes.toLocaleString('en-US')} B), p50`,
        String(extension.runs),
        formatMs(extension.medianMs),
        formatMs(endpoint.medianMs),
        formatRatio(ratio),
        `<= ${formatRatio(TARGET)}`,
        ratio <= TARGET ? 'met' : 'MISSED',
      ]);
      record({
        bench: 'extension',
        what: `host -> tab call p50 through the extension, ${label} echo`,
        figure: { value: extension.medianMs, unit: 'ms' },
        baseline: { name: "the same tab's own endpoint", value: endpoint.medianMs, unit: 'ms' },
        target: { op: '<=', value: TARGET, of: 'ratio' },
      });
    }
    console.log(
      renderTable(
        ['what', 'runs', 'extension ms', 'own endpoint ms', 'ratio', 'target', 'result'],
        rows,
      ),
    );
  } finally {
    await browser.stop();
    await host.close();
    await server.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error instanceof BenchFailure ? `bench:extension: ${error.message}` : error);
    process.exit(1);
  },
);
