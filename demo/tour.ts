/**
 * `pnpm demo`: the whole chain on this machine. It serves the demo on two origins, starts a
 * toolwire host, and prints the address that pairs the demo app (demo/app/) with it.
 *
 * - With a display (DISPLAY set) and no --tour, it opens that address in a headed Chromium and
 *   keeps serving: use the app, and watch the session panel and the agent view.
 * - Without a display, or with --tour, it runs a scripted tour in headless Chromium (see
 *   tour-steps.ts) and prints a transcript. Then it keeps serving with the app still open and
 *   paired in that headless Chromium (Ctrl-C or SIGTERM to stop), or exits with --once.
 * - While it keeps serving, the host's control API is on too, so `pnpm toolwire tools`,
 *   `pnpm toolwire call ...` (and `toolwire mcp --attach`) in another terminal reach the app.
 */
import type { Browser } from '@playwright/test';
import { chromium } from '@playwright/test';
import type { ControlServer, HostSession } from '../packages/host/src/index.js';
import { createHost, publishControl } from '../packages/host/src/index.js';
import { CHROMIUM_ARGS, findChromium } from '../scripts/find-chromium.mjs';
import { clickConnect } from './click-connect.js';
import { startDemoServers } from './serve.js';
import { runTour } from './tour-steps.js';

const args = new Set(process.argv.slice(2));
const once = args.has('--once');
const tour = args.has('--tour') || !process.env.DISPLAY;
const say = (line = '') => process.stdout.write(`${line}\n`);

const servers = await startDemoServers({ watch: false });
const host = await createHost({ origins: [servers.originA], maxToolPolicy: 'write' });
const appUrl = host.pairingUrl(`${servers.originA}/app/`);
say('toolwire demo');
for (const line of servers.moved) say(`  (${line})`);
say(`  the app, paired with the host:  ${appUrl}`);
say(`  its calendar widget (a frame):  ${servers.originB}/app/calendar.html`);
say(`  the frames page:                ${servers.framesUrl}`);
say(`  host: ws://127.0.0.1:${host.port}, grant write, pages allowed from ${servers.originA}`);
say(
  '  the browser extension (Load unpacked in chrome://extensions): packages/extension/dist-extension',
);

// Our own SIGINT/SIGTERM handler closes Chromium, the host and the servers, then exits 0;
// Playwright's would race it and exit with its own code.
const LAUNCH = {
  args: CHROMIUM_ARGS,
  handleSIGINT: false,
  handleSIGTERM: false,
  handleSIGHUP: false,
};
/** The Chromium the app is open in (headless for the tour): it stays open while we serve. */
let browser: Browser | undefined;
// The control API (what `toolwire sessions/tools/call` talk to), only when we keep serving.
let control: ControlServer | undefined;
if (!once) {
  control = await publishControl(host);
  say(`  control API: ${control.url} (pnpm toolwire tools / call ... in another terminal)`);
}
const shutdown = async () => {
  await browser?.close();
  await control?.close();
  await host.close();
  await servers.close();
};

let failed = false;
if (tour) {
  say('\nScripted tour in headless Chromium. The host (this process) talks to the app over a');
  say('WebSocket; each step shows what the host sent (>) and what came back (<).');
  browser = await chromium.launch({ ...LAUNCH, executablePath: findChromium() });
  try {
    const page = await browser.newPage();
    const connected = host.waitForSession({ timeoutMs: 30_000 });
    await page.goto(appUrl);
    // The link only asks: the person at the page says yes in the endpoint's prompt.
    await clickConnect(page);
    say('  (clicked Connect in the pairing prompt the link opened in the page)');
    const session: HostSession = await connected;
    await session.ready;
    await runTour(page, session, say);
    say('\ntour done.');
  } catch (error) {
    failed = true;
    say(`\ntour failed: ${(error as Error).message}`);
  }
} else {
  browser = await chromium.launch({ ...LAUNCH, headless: false, executablePath: findChromium() });
  const page = await browser.newPage({ viewport: null });
  await page.goto(appUrl);
  say('\nOpened the app in Chromium: click Connect in its prompt to pair it. Then try the form,');
  say('or call its tools from a terminal:');
  say('  pnpm toolwire tools   /   pnpm toolwire call notes.tags   (the host below answers)');
}

if (once || failed) {
  await shutdown();
  process.exit(failed ? 1 : 0);
}
if (tour) {
  // The tour's tab stays open and paired, so the terminal commands have a page to talk to.
  say('\nServing. The app stays open and paired in headless Chromium; in another terminal:');
  say('  pnpm toolwire tools   /   pnpm toolwire call notes.tags');
  say('An MCP client whose server command is `toolwire mcp` attaches to this host too.');
  say(`To pair a tab of your own: pnpm toolwire pair --page ${servers.originA}/app/`);
  say('Ctrl-C to stop.');
} else {
  say('\nServing. Ctrl-C to stop.');
}
const stop = () => void shutdown().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
