import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page, test } from '@playwright/test';
import type { Host, HostSession } from '../packages/host/src/index.js';
import { createHost } from '../packages/host/src/index.js';
import { clickConnect } from './support/pairing.js';
import { type StaticServer, serveFolder } from './support/static-server.js';

// Script gadgets: a page that lets its users post HTML without script (a comment field) must
// not have that markup turned into script, or into its author's decisions, by endpoint.iife.js.
// The built script and its chunks are served by a plain static server (the page's origin); a
// second server on another port is the attacker's origin, holding the same chunks, and every
// test asserts it is asked for nothing (or, for an image the markup itself shows, nothing but
// that image). Each test first shows the honest page pairing, loading its chunks from the
// script's origin and keeping the guard its script tag names.

const dist = fileURLToPath(new URL('../packages/endpoint/dist/', import.meta.url));
const chunks = readdirSync(dist).filter((file) => /^polyfill-.*\.js$/.test(file));
const PROMPT = 'Connect this tab to toolwire?';

let root: string;
let site: StaticServer;
let attacker: StaticServer;
const hosts: Host[] = [];

/** The page's tools: a read one and a write one; `ran` records what really ran. */
const TOOLS = `<script>
  window.ran = [];
  for (const [name, annotations] of [['notes.list', { readOnlyHint: true }], ['notes.add', {}]]) {
    window.toolManager.register({
      name,
      naturalLanguageProperties: { description: 'The ' + name + ' tool.', annotations },
      execute: () => { window.ran.push(name); return { ran: name }; },
    });
  }
</script>`;

/**
 * A page whose body shows posted markup (`posted`) and then loads the endpoint with the
 * author's guard, read-only. `tag` overrides the script tag.
 */
function commentPage(
  posted: string,
  tag = '<script src="endpoint.iife.js" data-toolwire-guard="read-only"></script>',
): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>comments</title></head>` +
    `<body><h1>Comments</h1><div class="comment">${posted}</div>${tag}${TOOLS}</body></html>`
  );
}

test.beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'toolwire-gadget-'));
  for (const folder of ['site', 'attacker']) {
    mkdirSync(join(root, folder));
    for (const file of [...chunks, 'endpoint.iife.js']) {
      copyFileSync(join(dist, file), join(root, folder, file));
    }
  }
  // A harmless image on the attacker's origin, for markup that shows one.
  writeFileSync(join(root, 'attacker', 'logo.png'), '');
  site = await serveFolder(join(root, 'site'));
  attacker = await serveFolder(join(root, 'attacker'));
});

test.afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

test.afterAll(async () => {
  await site?.close();
  await attacker?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Writes `html` as /<name>.html on the page's origin; returns its URL. */
function publish(name: string, html: string): string {
  writeFileSync(join(root, 'site', `${name}.html`), html);
  return `${site.origin}/${name}.html`;
}

async function startHost(): Promise<Host> {
  const host = await createHost({ origins: [site.origin], maxToolPolicy: 'critical' });
  hosts.push(host);
  return host;
}

/** Opens `url` from a fresh pairing link, clicks Connect, and returns the session. */
async function pair(page: Page, host: Host, url: string): Promise<HostSession> {
  const before = new Set(host.sessions);
  const connected = host.waitForSession({
    timeoutMs: 10_000,
    filter: (session) => !before.has(session),
  });
  await page.goto(host.pairingUrl(url));
  await page.getByRole('dialog', { name: PROMPT }).waitFor();
  await clickConnect(page);
  return connected;
}

/** What a paired read-only page must show: chunks from its own origin, its own guard. */
async function expectHonest(page: Page, session: HostSession, since: number): Promise<void> {
  await expect.poll(() => session.pageGuard?.preset).toBe('read-only');
  expect((await session.call('notes.list')).result).toEqual({ ran: 'notes.list' });
  await expect(session.call('notes.add')).rejects.toMatchObject({
    code: 'tool_execution_denied',
    details: { deniedBy: 'page-guard', guard: 'read-only' },
  });
  // A built-in ui.* tool: its chunk comes from beside the script.
  const tree = (await session.call('ui.get_visual_tree', {})).result as { root: unknown };
  expect(tree.root).toBeDefined();
  const fetched = site.requested.slice(since);
  expect(fetched).toEqual(
    expect.arrayContaining(['/polyfill-pairing.js', '/polyfill-ui-builtins.js']),
  );
  expect(await page.evaluate(() => (window as any).ran)).toEqual(['notes.list']);
  // The link left the address bar.
  expect(await page.evaluate(() => location.hash)).toBe('');
}

/** The attacker's origin was asked for nothing but `allowed` (paths), once the page settled. */
function expectNothingAsked(since: number, allowed: string[] = []): void {
  expect(attacker.requested.slice(since).filter((path) => !allowed.includes(path))).toEqual([]);
}

/** The honest path: the same page with harmless posted markup pairs as it should. */
async function honestFirst(tab: Page, host: Host, html: string): Promise<void> {
  const sinceSite = site.requested.length;
  const sinceAttacker = attacker.requested.length;
  const session = await pair(tab, host, publish(`honest-${Math.random()}`, html));
  await expectHonest(tab, session, sinceSite);
  expectNothingAsked(sinceAttacker);
  await tab.goto('about:blank');
}

/**
 * The same page with the endpoint deferred in the head (it runs once the posted markup is
 * parsed), and its tools registered by a deferred script after the posted markup.
 */
function deferredPage(posted: string): string {
  const tools = encodeURIComponent(TOOLS.replace(/<\/?script>/g, ''));
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>comments</title>` +
    `<script src="endpoint.iife.js" defer data-toolwire-guard="read-only"></script></head>` +
    `<body><h1>Comments</h1><div class="comment">${posted}</div>` +
    `<script src="data:text/javascript,${tools}" defer></script></body></html>`
  );
}

test('an image named currentScript, with data-toolwire-* on it, chooses neither the chunks nor the guard', async ({
  page: tab,
}) => {
  const host = await startHost();
  await honestFirst(tab, host, commentPage('<p>Nice post!</p>'));

  const sinceSite = site.requested.length;
  const sinceAttacker = attacker.requested.length;
  const url = publish(
    'clobber-img',
    commentPage(
      `<img name="currentScript" src="${attacker.origin}/logo.png" alt="" ` +
        `data-toolwire-guard="full-access" data-toolwire-hosts="127.0.0.1:${new URL(attacker.origin).port}">`,
    ),
  );
  const session = await pair(tab, host, url);
  // The markup did shadow document.currentScript: the attack is real.
  expect(await tab.evaluate(() => (document as any).currentScript?.tagName)).toBe('IMG');
  await expectHonest(tab, session, sinceSite);
  expectNothingAsked(sinceAttacker, ['/logo.png']);
});

test('a form named currentScript with data-toolwire-guard does not replace the guard', async ({
  page: tab,
}) => {
  const host = await startHost();
  await honestFirst(tab, host, commentPage('<p>Nice post!</p>'));

  const sinceSite = site.requested.length;
  const sinceAttacker = attacker.requested.length;
  const url = publish(
    'clobber-form',
    commentPage(`<form name="currentScript" data-toolwire-guard="full-access"></form>`),
  );
  const session = await pair(tab, host, url);
  expect(await tab.evaluate(() => (document as any).currentScript?.tagName)).toBe('FORM');
  await expectHonest(tab, session, sinceSite);
  expectNothingAsked(sinceAttacker);
});

test("a <base href> to the attacker's origin, posted after a deferred script tag, moves no chunk there", async ({
  page: tab,
}) => {
  const host = await startHost();
  await honestFirst(tab, host, deferredPage('<p>Nice post!</p>'));

  const sinceSite = site.requested.length;
  const sinceAttacker = attacker.requested.length;
  const url = publish('base-attacker', deferredPage(`<base href="${attacker.origin}/">`));
  const session = await pair(tab, host, url);
  // The markup did move the document's base: the attack is real.
  expect(await tab.evaluate(() => document.baseURI)).toBe(`${attacker.origin}/`);
  await expectHonest(tab, session, sinceSite);
  expectNothingAsked(sinceAttacker);
});

test('a broken <base href> (mailto:, where nothing resolves) does not stop the endpoint pairing', async ({
  page: tab,
}) => {
  const host = await startHost();
  await honestFirst(tab, host, deferredPage('<p>Nice post!</p>'));

  const sinceSite = site.requested.length;
  const sinceAttacker = attacker.requested.length;
  const url = publish('base-broken', deferredPage('<base href="mailto:nobody@example.com">'));
  const session = await pair(tab, host, url);
  expect(await tab.evaluate(() => document.baseURI)).toBe('mailto:nobody@example.com');
  await expectHonest(tab, session, sinceSite);
  expectNothingAsked(sinceAttacker);
});

test('an inline endpoint loads no chunks, even from a posted <base href>; its own tools still answer', async ({
  page: tab,
}) => {
  const source = readFileSync(join(dist, 'endpoint.iife.js'), 'utf8').replaceAll(
    '</script',
    '<\\/script',
  );
  const inline = `<script data-toolwire-guard="read-only">${source}</script>`;
  const run = async (name: string, posted: string) => {
    const host = await startHost();
    const sinceSite = site.requested.length;
    await tab.goto(publish(name, commentPage(posted, inline)));
    const connected = host.waitForSession({ timeoutMs: 10_000 });
    await tab.evaluate(
      (ws) => (window as any).toolwire.connect({ url: ws, guard: 'read-only' }),
      host.url,
    );
    const session = await connected;
    expect((await session.call('notes.list')).result).toEqual({ ran: 'notes.list' });
    const refused = await session.call('ui.get_visual_tree', {}).then(
      () => undefined,
      (error) => ({ code: error.code, message: error.message as string }),
    );
    // The first chunk the call needs is the validator's (the built-in's schema); its failure
    // names the reason and the fix.
    expect(refused).toBeDefined();
    expect(refused?.message).toContain('toolwire: cannot load polyfill-');
    expect(refused?.message).toContain('An inline script (no src) loads no chunks');
    expect(site.requested.slice(sinceSite).filter((path) => path.includes('polyfill-'))).toEqual(
      [],
    );
  };
  // The honest inline page: the tools it registers answer; a chunk is a coded failure.
  const sinceAttacker = attacker.requested.length;
  await run('inline', '');
  // The same with a posted <base href> to the attacker: the same, and nothing asked of it.
  await run('inline-base', `<base href="${attacker.origin}/">`);
  expectNothingAsked(sinceAttacker);
});
