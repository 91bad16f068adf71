import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page, test } from '@playwright/test';
import type { Host } from '../packages/host/src/index.js';
import { createHost } from '../packages/host/src/index.js';

// The one-file script as a CDN serves it: from another origin than the page's, under the bare
// package URL (what jsDelivr and unpkg answer from the package's `jsdelivr` / `unpkg` fields) or
// under its pinned file URL. It must register and serve a tool with validation (no ajv inside:
// cfworker's checks, the same coded refusal the split script gives), and fetch its rarer parts
// (here the ui.* built-ins) from `dist/` of its own version on the CDN, never from the page's
// origin. With `defer` it does not hold up the page's rendering; without, it does.

interface Published {
  name: string;
  version: string;
  jsdelivr: string;
  unpkg: string;
  /** The package's folder, whose `dist/` the CDN serves. */
  root: string;
  /** `/npm/<name>@<version>/dist/`, where the CDN serves `dist/`. */
  pinned: string;
}

function published(folder: string): Published {
  const root = fileURLToPath(new URL(`../packages/${folder}/`, import.meta.url));
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Published;
  return { ...manifest, root, pinned: `/npm/${manifest.name}@${manifest.version}/dist/` };
}

const manifest = published('endpoint');
const polyfill = published('polyfill');
const PINNED = manifest.pinned;

interface Origin {
  origin: string;
  requested: string[];
  /** Holds the next answer to `path`: `arrived` once it is asked for, sent at `release()`. */
  hold(path: string): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

/** An HTTP server on an ephemeral port of 127.0.0.1, answering with `answer`. */
async function origin(answer: (path: string, res: ServerResponse) => void): Promise<Origin> {
  const requested: string[] = [];
  const held = new Map<string, { arrive(): void; released: Promise<void> }>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requested.push(path);
    const gate = held.get(path);
    held.delete(path);
    gate?.arrive();
    void (gate?.released ?? Promise.resolve()).then(() => answer(path, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requested,
    hold(path) {
      let arrive = () => {};
      let release = () => {};
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      held.set(path, { arrive, released: new Promise((resolve) => (release = resolve)) });
      return { arrived, release: () => release() };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A CDN holding this build as jsDelivr lays a package out: `/npm/<name>[@range]` answers the
 * file the `jsdelivr` field names, `/npm/<name>@<version>/<path>` the package's files. Every
 * answer allows any origin (the chunks are ES modules, fetched with CORS).
 */
function cdn(): Promise<Origin> {
  return origin((path, res) => {
    let file: string | undefined;
    for (const pkg of [manifest, polyfill]) {
      const dist = join(pkg.root, 'dist');
      if (new RegExp(`^/npm/${pkg.name}(@[^/]*)?/?$`).test(path))
        file = join(pkg.root, pkg.jsdelivr);
      else if (path.startsWith(pkg.pinned))
        file = normalize(join(dist, path.slice(pkg.pinned.length)));
      if (file && !file.startsWith(`${dist}/`)) file = undefined;
      if (file) break;
    }
    if (!file || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'Access-Control-Allow-Origin': '*' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Access-Control-Allow-Origin': '*',
      'Cache-Control': 'no-store',
    });
    createReadStream(file).pipe(res);
  });
}

/** The page's own origin: `/<name>.html` answers pages[name]. */
function site(pages: Record<string, string>): Promise<Origin> {
  return origin((path, res) => {
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const html = pages[path.replace(/^\/|\.html$/g, '')];
    if (html === undefined) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(html);
  });
}

/** The README's shape: the script tag in <head>, then the page's module registering a tool. */
function shopPage(src: string, attributes: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>shop</title>
<script src="${src}" ${attributes} data-toolwire-guard="read-write"></script>
<script type="module">
  await toolManager.register({
    name: 'cart.add',
    naturalLanguageProperties: { description: 'Adds a product to the cart.' },
    inputSchema: {
      type: 'object',
      properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
      required: ['sku'],
    },
    policy: 'write',
    execute: ({ sku, qty = 1 }) => ({ sku, qty }),
  });
  window.registered = true;
</script></head>
<body><h1 id="content">The shop</h1><button>Checkout</button></body></html>`;
}

let theCdn: Origin;
let page0: Origin;
let host: Host | undefined;
let bareUrl: string;

test.beforeAll(async () => {
  theCdn = await cdn();
  bareUrl = `${theCdn.origin}/npm/${manifest.name}`;
  page0 = await site({
    bare: shopPage(bareUrl, 'defer'),
    ranged: shopPage(`${bareUrl}@${manifest.version.split('.').slice(0, 2).join('.')}`, 'defer'),
    pinned: shopPage(`${theCdn.origin}${PINNED}endpoint.standalone.iife.js`, 'defer'),
    split: shopPage(`${theCdn.origin}${PINNED}endpoint.iife.js`, 'defer'),
    blocking: shopPage(`${bareUrl}?blocking`, ''),
    polyfill: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>search</title>
<script src="${theCdn.origin}/npm/${polyfill.name}" defer></script></head>
<body><form toolname="search" tooldescription="Searches the shop."><input name="q"></form></body></html>`,
  });
});

test.afterEach(async () => {
  await host?.close();
  host = undefined;
});

test.afterAll(async () => {
  await theCdn?.close();
  await page0?.close();
});

test('the package fields name the one-file scripts', () => {
  expect(manifest.jsdelivr).toBe('./dist/endpoint.standalone.iife.js');
  expect(manifest.unpkg).toBe(manifest.jsdelivr);
  expect(polyfill.jsdelivr).toBe('./dist/polyfill.standalone.iife.js');
  expect(polyfill.unpkg).toBe(polyfill.jsdelivr);
});

function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

/** A refused call, as the host's caller meets it. */
const refusal = (error: {
  code?: string;
  retryable?: boolean;
  message?: string;
  details?: unknown;
}) => ({
  code: error.code,
  retryable: error.retryable,
  message: error.message,
  details: error.details,
});

/** The page `name`, once its tool is registered, connected to a fresh host: the session. */
async function served(page: Page, name: string) {
  host = await createHost({ origins: [page0.origin], maxToolPolicy: 'write' });
  await page.goto(`${page0.origin}/${name}.html`);
  await page.waitForFunction(() => (window as unknown as { registered?: true }).registered);
  const connected = host.waitForSession({ timeoutMs: 10_000 });
  await page.evaluate((url) => {
    (window as any).toolwire.connect({ url, guard: 'read-write' });
  }, host.url);
  return connected;
}

for (const [name, script] of [
  ['bare', () => `/npm/${manifest.name}`],
  ['ranged', () => `/npm/${manifest.name}@${manifest.version.split('.').slice(0, 2).join('.')}`],
  ['pinned', () => `${PINNED}endpoint.standalone.iife.js`],
] as const) {
  test(`from another origin (${name} URL): a validated tool is served, and the ui.* built-ins come from dist/ beside it`, async ({
    page,
  }) => {
    const errors = consoleErrors(page);
    const before = theCdn.requested.length;
    const session = await served(page, name);
    // The honest call answers; the bad argument is refused with the schema code.
    expect((await session.call('cart.add', { sku: 'A-1', qty: 2 })).result).toEqual({
      sku: 'A-1',
      qty: 2,
    });
    const refused = await session.call('cart.add', { sku: 'A-1', qty: 0 }).then(
      () => undefined,
      (error) => refusal(error),
    );
    expect(refused).toMatchObject({ code: 'tool_arguments_schema_invalid', retryable: false });
    expect(theCdn.requested.slice(before)).toEqual([script()]);
    // A rarer part: the first ui.* call fetches the built-ins from the CDN, pinned to the
    // script's own version, beside the file the bare URL served.
    const found = (await session.call('ui.query_nodes', { role: 'button' })).result;
    expect(JSON.stringify(found)).toContain('Checkout');
    expect(theCdn.requested.slice(before)).toEqual([script(), `${PINNED}polyfill-ui-builtins.js`]);
    // Nothing of toolwire was asked of the page's own origin.
    expect(page0.requested.filter((path) => path.endsWith('.js'))).toEqual([]);
    expect(errors).toEqual([]);
  });
}

test('the refusal of a bad argument is the one the split script gives', async ({ page }) => {
  const refusals: unknown[] = [];
  for (const name of ['split', 'bare']) {
    const session = await served(page, name);
    expect((await session.call('cart.add', { sku: 'A-1' })).result).toEqual({
      sku: 'A-1',
      qty: 1,
    });
    for (const args of [{ sku: 'A-1', qty: 0 }, { qty: 1.5 }]) {
      refusals.push(
        await session.call('cart.add', args).then(
          () => undefined,
          (error) => refusal(error),
        ),
      );
    }
    await host?.close();
    host = undefined;
  }
  const [splitLow, splitTwo, lightLow, lightTwo] = refusals;
  expect(splitLow).toMatchObject({ code: 'tool_arguments_schema_invalid' });
  expect(splitTwo).toMatchObject({ code: 'tool_arguments_schema_invalid' });
  expect(lightLow).toEqual(splitLow);
  expect(lightTwo).toEqual(splitTwo);
});

test('with defer, the page renders while the script is still on its way; without, it waits', async ({
  page,
}) => {
  // Deferred: the script's answer is held, and the page's body is parsed and shown meanwhile.
  const deferred = theCdn.hold(`/npm/${manifest.name}`);
  await page.goto(`${page0.origin}/bare.html`, { waitUntil: 'commit' });
  await deferred.arrived;
  await expect(page.locator('#content')).toBeVisible();
  expect(await page.evaluate(() => typeof (window as any).toolManager)).toBe('undefined');
  deferred.release();
  // Once it arrives it runs before the page's module, which registers the tool.
  await page.waitForFunction(() => (window as unknown as { registered?: true }).registered);
  const calls = await page.evaluate(async () => {
    const w = window as any;
    return {
      good: await w.tools.callTool('cart.add', { sku: 'A-1' }),
      bad: await w.tools.callTool('cart.add', { sku: 1 }).catch((error: Error) => error.name),
    };
  });
  expect(calls).toEqual({ good: { sku: 'A-1', qty: 1 }, bad: 'DataError' });

  // Without defer, the parser stops at the script: while it is held, there is no body yet.
  await page.goto('about:blank');
  const blocking = theCdn.hold(`/npm/${manifest.name}`);
  await page.goto(`${page0.origin}/blocking.html`, { waitUntil: 'commit' });
  await blocking.arrived;
  expect(
    await page.evaluate(() => ({
      content: document.getElementById('content') === null,
      state: document.readyState,
    })),
  ).toEqual({ content: true, state: 'loading' });
  blocking.release();
  await expect(page.locator('#content')).toBeVisible();
  await page.waitForFunction(() => (window as unknown as { registered?: true }).registered);
});

test("the polyfill's bare URL: a form tool's chunk comes from dist/ of its version", async ({
  page,
}) => {
  const errors = consoleErrors(page);
  const before = theCdn.requested.length;
  await page.goto(`${page0.origin}/polyfill.html`);
  // The form-tools chunk loads lazily: the form becomes a tool once it has.
  await expect
    .poll(() =>
      page.evaluate(async () =>
        ((await (document as any).modelContext.getTools()) as { name: string }[]).map(
          (tool) => tool.name,
        ),
      ),
    )
    .toEqual(['search']);
  const fetched = theCdn.requested.slice(before);
  expect(fetched.slice(0, 2)).toEqual([
    `/npm/${polyfill.name}`,
    `${polyfill.pinned}polyfill-declarative.js`,
  ]);
  // With what the chunk imports, from the same folder.
  expect(fetched.slice(1).every((path) => path.startsWith(polyfill.pinned))).toBe(true);
  expect(errors).toEqual([]);
});

test('a webType below a structured schema fetches ajv from beside the one-file script, and it checks it', async ({
  page,
}) => {
  const errors = consoleErrors(page);
  await page.goto(`${page0.origin}/bare.html`);
  await page.waitForFunction(() => (window as unknown as { registered?: true }).registered);
  const before = theCdn.requested.length;
  const calls = await page.evaluate(async () => {
    const w = window as any;
    await w.toolManager.register({
      name: 'notes.due',
      inputSchema: { type: 'object', properties: { by: { webType: 'Date' } }, required: ['by'] },
      execute: ({ by }: { by: Date }) => by.getUTCFullYear(),
    });
    return {
      good: await w.tools.callTool('notes.due', { by: new Date('2027-01-02T00:00:00Z') }),
      bad: await w.tools
        .callTool('notes.due', { by: '2027-01-02' })
        .catch((error: Error) => [error.name, error.message]),
    };
  });
  expect(calls).toEqual({ good: 2027, bad: ['DataError', expect.stringContaining('Date')] });
  const fetched = theCdn.requested.slice(before);
  expect(fetched[0]).toBe(`${PINNED}polyfill-validator-ajv.js`);
  expect(fetched.every((path) => /^[^?#]*\/dist\/polyfill-[\w-]+\.js$/.test(path))).toBe(true);
  expect(fetched.every((path) => path.startsWith(PINNED))).toBe(true);
  expect(errors).toEqual([]);
});
