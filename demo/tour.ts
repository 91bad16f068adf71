/**
 * `pnpm demo`: the whole chain on this machine. It serves the demo on two origins, starts a
 * toolwire host, and prints the address that pairs the notes page with it. Without a display
 * (or with --tour) it also runs a scripted tour in headless Chromium: opens that address, lists
 * the page's tools from the host, calls them, runs a batch, and prints each exchange. Then it
 * keeps serving (Ctrl-C to stop), or exits with --once.
 */
import { chromium } from '@playwright/test';
import type { HostSession } from '../packages/host/src/index.js';
import { createHost } from '../packages/host/src/index.js';
import { CHROMIUM_ARGS, findChromium } from '../scripts/find-chromium.mjs';
import { startDemoServers } from './serve.js';

const args = new Set(process.argv.slice(2));
const once = args.has('--once');
const tour = args.has('--tour') || !process.env.DISPLAY;
const say = (line = '') => process.stdout.write(`${line}\n`);
const show = (label: string, value: unknown) => say(`\n${label}\n  ${JSON.stringify(value)}`);

const servers = await startDemoServers({ watch: false });
const host = await createHost({ origins: [servers.originA], maxToolPolicy: 'write' });
const pairUrl = host.pageUrl(`${servers.originA}/pair/`);
say('toolwire demo');
say(`  frames page (two origins): ${servers.framesUrl}`);
say(`  notes page, paired with the host: ${pairUrl}`);
say(`  host: ws://127.0.0.1:${host.port} (grant: write; origins: ${servers.originA})`);

let failed = false;
if (tour) {
  say('\nScripted tour (headless Chromium):');
  const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    const connected = host.waitForSession({ timeoutMs: 30_000 });
    await page.goto(pairUrl);
    const session: HostSession = await connected;
    await session.ready;
    const index = (await session.query({ detail: 'index' })) as {
      tools?: { id: string; policy: string }[];
    };
    show(
      'tools the host sees:',
      (index.tools ?? []).map((tool) => `${tool.id} (${tool.policy})`),
    );
    show(
      'call notes.add {text: "Buy milk"} ->',
      (await session.call('notes.add', { text: 'Buy milk' })).result,
    );
    try {
      await session.call('notes.add', { text: '' });
    } catch (error) {
      const { code, message } = error as { code: string; message: string };
      show('call notes.add {text: ""} ->', { code, message });
    }
    show(
      'call notes.due {before: "2100-01-01T00:00:00Z"} (a Date in the page) ->',
      (await session.call('notes.due', { before: '2100-01-01T00:00:00Z' })).result,
    );
    const exported = (await session.call('notes.export', {})).result as {
      mimeType: string;
      data: string;
    };
    show('call notes.export (a Blob in the page) ->', {
      mimeType: exported.mimeType,
      text: Buffer.from(exported.data, 'base64').toString('utf8'),
    });
    // The page's own form, driven the way a user would: find the field, type, press the button.
    const reference = (name: string) =>
      session
        .call('ui.query_nodes', { automationId: name })
        .then((found) => (found.result as { nodes: { reference: unknown }[] }).nodes[0]?.reference);
    await session.call('ui.perform_action', {
      reference: await reference('note-text'),
      action: 'setText',
      text: 'Water plants',
    });
    const tapped = await session.call('ui.perform_action', {
      reference: await reference('add-button'),
      action: 'tap',
    });
    show('ui.perform_action setText "Water plants", then tap Add ->', {
      performed: (tapped.result as { performed: string }).performed,
    });
    const found = await session.call('ui.query_nodes', { role: 'listitem' });
    show('call ui.query_nodes {role: "listitem"} ->', {
      count: (found.result as { count: number }).count,
    });
    const batch = await session.batch([
      { toolId: 'notes.add', arguments: { text: 'Call Ada' } },
      { toolId: 'notes.list', arguments: {} },
    ]);
    show('batch [notes.add "Call Ada", notes.list] ->', {
      success: batch.success,
      notes: (
        (batch.results[1] as { result?: { notes: { text: string }[] } }).result?.notes ?? []
      ).map((n) => n.text),
    });
    show('the page now shows:', await page.locator('#notes li').allTextContents());
    say('\ntour done.');
  } catch (error) {
    failed = true;
    say(`\ntour failed: ${(error as Error).message}`);
  } finally {
    await browser.close();
  }
}

if (once || failed) {
  await host.close();
  await servers.close();
  process.exit(failed ? 1 : 0);
}
say('\nServing. Open the notes page above in a browser to pair it; Ctrl-C to stop.');
const stop = () => void Promise.all([host.close(), servers.close()]).then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
