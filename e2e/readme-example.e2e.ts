import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { HostProcess, toolwire } from './support/cli.js';
import { clickConnect } from './support/pairing.js';

// The plain-HTML example of docs/getting-started.md ("Without a bundler"), exactly as written
// there: the page is that snippet plus the endpoint script tag the next section names, served
// with the built files beside it, paired by `toolwire host --page`, called by `toolwire call`,
// and reloaded. The snippet is read from the page at test time, so the two cannot drift apart.
// (The README's own quick start is followed by e2e/packaging.e2e.ts.)

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGE = readFileSync(join(ROOT, 'docs', 'getting-started.md'), 'utf8');
const section = PAGE.slice(PAGE.indexOf('## Without a bundler'));
// The plain-HTML example: the html block that registers the tool.
const SNIPPET =
  [...section.matchAll(/```html\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? '')
    .find((block) => block.includes('toolManager.register')) ?? '';
const ENDPOINT_TAG =
  /`(<script src="endpoint\.iife\.js"[^`]*><\/script>)`/.exec(section)?.[1] ?? '';
const DIST = ['polyfill', 'endpoint'].map((name) => join(ROOT, 'packages', name, 'dist'));
const TYPES: Record<string, string> = { '.js': 'text/javascript', '.html': 'text/html' };

let server: Server | undefined;
let host: HostProcess | undefined;

/** `/` is the example's page; every other path is a built file (the lazy chunks sit beside). */
async function serve(): Promise<string> {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>shop</title></head><body>\n${SNIPPET}\n${ENDPOINT_TAG}\n</body></html>`;
  server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] as string;
    if (path === '/') {
      response.writeHead(200, { 'Content-Type': 'text/html' }).end(page);
      return;
    }
    for (const dir of DIST) {
      try {
        const body = readFileSync(join(dir, path.replace(/^\/+/, '').replace(/\.\./g, '')));
        response.writeHead(200, { 'Content-Type': TYPES[extname(path)] ?? 'text/plain' });
        response.end(body);
        return;
      } catch {
        // not in this one
      }
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://localhost:${(server.address() as AddressInfo).port}/`;
}

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

test("the getting-started page's plain-HTML example works as written, reload included", async ({
  page,
}) => {
  expect(SNIPPET).toContain("name: 'cart.add'");
  expect(SNIPPET).toContain("policy: 'write'");
  expect(ENDPOINT_TAG).toContain('data-toolwire-guard="read-write"');
  const url = await serve();
  host = new HostProcess(['--max-tool-policy', 'write', '--page', url]);
  await page.goto(await host.pairingLink());
  await clickConnect(page);
  const { env } = host;
  const call = () =>
    toolwire(
      ['call', 'cart.add', '--args', '{"sku":"A-1","qty":2,"by":"2026-12-24T09:00:00+01:00"}'],
      env,
    );
  await expect
    .poll(async () => JSON.parse((await toolwire(['tools', '--json'], env)).out || '{}').tools)
    .toContainEqual(expect.objectContaining({ id: 'cart.add', policy: 'write', granted: true }));
  let answer = await call();
  expect(answer.code, answer.err).toBe(0);
  // `by` arrived in the page as a Date and went back lowered: ISO, in UTC.
  expect(JSON.parse(answer.out)).toEqual({
    sku: 'A-1',
    qty: 2,
    deliverBy: '2026-12-24T08:00:00.000Z',
  });

  // Reload: the tab's credential reconnects it, with no prompt and no new link.
  const before = JSON.parse((await toolwire(['sessions', '--json'], env)).out).sessions;
  expect(before).toHaveLength(1);
  await page.reload();
  await expect
    .poll(async () => {
      const sessions = JSON.parse((await toolwire(['sessions', '--json'], env)).out).sessions;
      return sessions.map((session: { id: string }) => session.id);
    })
    .toEqual([expect.not.stringMatching(before[0].id)]);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect
    .poll(async () => (await toolwire(['tools', '--json'], env)).out)
    .toContain('"cart.add"');
  answer = await call();
  expect(answer.code, answer.err).toBe(0);
  expect(JSON.parse(answer.out).deliverBy).toBe('2026-12-24T08:00:00.000Z');
});
