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
import { constants, gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { createHost } from '../packages/host/src/index.js';
import { chunkClosureBytes, measurePageBytes, PAGE_BUDGETS } from '../scripts/size.js';
import { type StaticServer, serveFolder } from './support/static-server.js';

// `pnpm size` computes each page's bytes before its first call from the chunk
// graph (scripts/size.ts PAGE_BUDGETS). Here a Chromium page does it for real, the built files
// served as a page author copies them: one tool with a small object schema, registered and
// called once (by the page itself, or by a host over the endpoint's socket). What it fetched
// must be exactly the files `pnpm size` charges, and the same bytes (gzip -9 of each file).
// The endpoint's built-in ui.* tools are listed from the start but load on the first ui.* call:
// that call, and only it, fetches their chunk.

const SCHEMA = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
// The pages allow no eval. Where eval is allowed, the polyfill fetches ajv once its cfworker
// checks have cost 20 ms in all (packages/polyfill/src/validation/load.ts): on a loaded machine
// the first few checks can, and what a call fetched would then depend on the machine's speed.
// Without eval the rule never applies, and cfworker, what `pnpm size` charges, is the only
// engine.
const page = (script: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bytes</title>` +
  `<meta http-equiv="Content-Security-Policy" content="script-src 'self'">` +
  `<script src="${script}"></script></head><body></body></html>`;

let root: string;
let server: StaticServer;
const [polyfillBudget, endpointBudget] = PAGE_BUDGETS;

test.beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'toolwire-page-bytes-'));
  for (const budget of PAGE_BUDGETS) {
    const folder = join(root, budget.script);
    mkdirSync(folder);
    writeFileSync(join(folder, 'index.html'), page(budget.script));
    for (const file of readdirSync(budget.dist)) {
      if (file === budget.script || /^polyfill-.*\.js$/.test(file))
        copyFileSync(join(budget.dist, file), join(folder, file));
    }
  }
  server = await serveFolder(root);
});

test.afterAll(async () => {
  await server?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The scripts fetched under /<folder>/ since `from`, and their gzip -9 total. */
function fetched(folder: string, from: number): { files: string[]; gzipBytes: number } {
  const files = server.requested
    .slice(from)
    .filter((path) => path.startsWith(`/${folder}/`) && path.endsWith('.js'))
    .map((path) => path.slice(folder.length + 2));
  let gzipBytes = 0;
  for (const file of files) {
    const text = readFileSync(join(root, folder, file));
    gzipBytes += gzipSync(text, { level: constants.Z_BEST_COMPRESSION }).byteLength;
  }
  return { files, gzipBytes };
}

test('a polyfill page fetches what pnpm size charges it before its first call', async ({
  page,
}) => {
  const budget = polyfillBudget as (typeof PAGE_BUDGETS)[number];
  const expected = (await measurePageBytes()).find((p) => p.page === budget.page);
  const from = server.requested.length;
  await page.goto(`${server.origin}/${budget.script}/`);
  const answer = await page.evaluate(async (schema) => {
    const w = window as any;
    await w.toolManager.register({
      name: 'search',
      inputSchema: schema,
      execute: (input: { q: string }) => ({ found: input.q }),
    });
    return w.tools.callTool('search', { q: 'shoes' });
  }, SCHEMA);
  expect(answer).toEqual({ found: 'shoes' });
  const seen = fetched(budget.script, from);
  expect([...seen.files].sort()).toEqual([...(expected?.files ?? [])].sort());
  expect(seen.gzipBytes).toBe(expected?.gzipBytes);
});

test('an endpoint page fetches what pnpm size charges it before a host first calls it, and the built-ins chunk at the first ui.* call', async ({
  page,
}) => {
  const budget = endpointBudget as (typeof PAGE_BUDGETS)[number];
  const expected = (await measurePageBytes()).find((p) => p.page === budget.page);
  const host = await createHost({ origins: [server.origin], maxToolPolicy: 'write' });
  try {
    const from = server.requested.length;
    await page.goto(`${server.origin}/${budget.script}/`);
    const connected = host.waitForSession({ timeoutMs: 10_000 });
    await page.evaluate(
      async ({ url, schema }) => {
        const w = window as any;
        await w.toolManager.register({
          name: 'search',
          naturalLanguageProperties: { description: 'Searches.', inputSchema: schema },
          execute: (input: { q: string }) => ({ found: input.q }),
        });
        w.toolwire.connect({ url, guard: 'full-access' });
      },
      { url: host.url, schema: SCHEMA },
    );
    const session = await connected;
    expect((await session.call('search', { q: 'shoes' })).result).toEqual({ found: 'shoes' });
    // The host listed the built-ins with the page's tool, before their code was fetched.
    const listed = session.tools().map((tool) => tool.id);
    expect(listed).toEqual(
      expect.arrayContaining(['search', 'ui.get_visual_tree', 'ui.query_nodes']),
    );
    const seen = fetched(budget.script, from);
    expect([...seen.files].sort()).toEqual([...(expected?.files ?? [])].sort());
    expect(seen.gzipBytes).toBe(expected?.gzipBytes);

    // The first ui.* call fetches the built-ins' chunk (and what it imports), nothing else.
    const builtins = await chunkClosureBytes(budget.dist, 'polyfill-ui-builtins.js');
    const beforeUi = server.requested.length;
    const tree = (await session.call('ui.get_visual_tree', {})).result as { root: unknown };
    expect(tree.root).toBeDefined();
    const uiSeen = fetched(budget.script, beforeUi);
    expect([...uiSeen.files].sort()).toEqual([...builtins.files].sort());
    expect(uiSeen.gzipBytes).toBe(builtins.gzipBytes);
    // Loaded once: a second ui.* call fetches nothing.
    const beforeSecond = server.requested.length;
    await session.call('ui.query_nodes', { role: 'button' });
    expect(fetched(budget.script, beforeSecond).files).toEqual([]);
  } finally {
    await host.close();
  }
});
