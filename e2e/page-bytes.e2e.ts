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
import { measurePageBytes, PAGE_BUDGETS } from '../scripts/size.js';
import { type StaticServer, serveFolder } from './support/static-server.js';

// Issue 16, item 2: `pnpm size` computes each page's bytes before its first call from the chunk
// graph (scripts/size.ts PAGE_BUDGETS). Here a Chromium page does it for real, the built files
// served as a page author copies them: one tool with a small object schema, registered and
// called once (by the page itself, or by a host over the endpoint's socket). What it fetched
// must be exactly the files `pnpm size` charges, and the same bytes (gzip -9 of each file).

const SCHEMA = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
const page = (script: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bytes</title>` +
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

test('an endpoint page fetches what pnpm size charges it before a host first calls it', async ({
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
    const seen = fetched(budget.script, from);
    expect([...seen.files].sort()).toEqual([...(expected?.files ?? [])].sort());
    expect(seen.gzipBytes).toBe(expected?.gzipBytes);
  } finally {
    await host.close();
  }
});
