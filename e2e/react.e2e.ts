import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, type Page, test } from '@playwright/test';
import { createServer, type ViteDevServer } from 'vite';
import { exampleConfig } from '../packages/react/example/vite.config.js';

// @toolwire/react's example app (packages/react/example/) in real Chromium, under <StrictMode>
// with React's development build: the counter's tools are listed once, a call changes what the
// page shows, and unmounting the counter removes its tools and aborts a call in flight.

let server: ViteDevServer;
let origin: string;

test.beforeAll(async () => {
  // Its own dev server on a free port: React is the example's dependency, not the e2e server's.
  server = await createServer(exampleConfig({ host: '127.0.0.1', port: 0 }));
  await server.listen();
  const address = server.httpServer?.address();
  if (!address || typeof address === 'string') throw new Error('the example server has no port');
  origin = `http://127.0.0.1:${address.port}`;
});

test.afterAll(async () => {
  await server?.close();
});

const TOOLS = ['counter.add', 'counter.add_slowly', 'counter.get'];

type PageTools = {
  getTools(): Promise<{ name: string }[]>;
  callTool(name: string, input?: unknown): Promise<unknown>;
};

/** Opens a page of the example; every console error and page error is collected. */
async function open(page: Page, path: string): Promise<string[]> {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  await page.goto(`${origin}/${path}`);
  return problems;
}

const listed = (page: Page) =>
  page.evaluate(async () =>
    (await (window as unknown as { tools: PageTools }).tools.getTools()).map((tool) => tool.name),
  );

const call = (page: Page, name: string, input: unknown) =>
  page.evaluate(
    ([name, input]) => (window as unknown as { tools: PageTools }).tools.callTool(name, input),
    [name, input] as const,
  );

async function expectRegistered(page: Page): Promise<void> {
  for (const name of TOOLS)
    await expect(page.getByTestId(`status-${name}`)).toHaveAttribute('data-status', 'registered');
}

test('install() from the app: list, call, unmount with a call in flight, mount again', async ({
  page,
}) => {
  const problems = await open(page, 'index.html');
  await expectRegistered(page);
  // StrictMode mounted, unmounted and mounted again: one registration each, no error.
  expect(await listed(page)).toEqual(TOOLS);

  // A call changes what the page shows; the second call sees the first's count (latest execute).
  expect(await call(page, 'counter.add', { by: 2 })).toBe(2);
  await expect(page.getByTestId('count')).toHaveText('2');
  expect(await call(page, 'counter.add', { by: 3 })).toBe(5);
  await expect(page.getByTestId('count')).toHaveText('5');
  // A click between calls: the tool reads the count on screen.
  await page.getByRole('button', { name: '+1' }).click();
  expect(await call(page, 'counter.get', {})).toBe(6);

  // A slow call in flight, then the counter is unmounted by the page's own switch.
  await page.evaluate(() => {
    const state = window as unknown as { tools: PageTools; inFlight: Promise<string> };
    state.inFlight = state.tools.callTool('counter.add_slowly', { by: 1, ms: 60_000 }).then(
      (value) => `resolved ${value}`,
      (error: Error) => `${error.name}: ${error.message}`,
    );
  });
  await expect(page.getByTestId('log')).toContainText('counter.add_slowly 1: waiting');
  await page.getByTestId('shown').uncheck();
  await expect(page.getByTestId('hidden')).toBeVisible();
  const outcome = await page.evaluate(
    () => (window as unknown as { inFlight: Promise<string> }).inFlight,
  );
  expect(outcome).toMatch(/^AbortError: .*"counter\.add_slowly".*unmounted/);
  await expect(page.getByTestId('log')).toContainText(
    'counter.add_slowly 1: its signal aborted (AbortError)',
  );
  await expect.poll(() => listed(page)).toEqual([]);
  const gone = await page.evaluate(() =>
    (window as unknown as { tools: PageTools }).tools
      .callTool('counter.add', { by: 1 })
      .catch((error: Error) => error.name),
  );
  expect(gone).toBe('NotFoundError');

  // Mounted again: registered again, from a fresh count.
  await page.getByTestId('shown').check();
  await expectRegistered(page);
  expect(await listed(page)).toEqual(TOOLS);
  expect(await call(page, 'counter.add', { by: 1 })).toBe(1);
  await expect(page.getByTestId('count')).toHaveText('1');
  expect(problems).toEqual([]);
});

test('the polyfill from a script tag: the hook uses the globals it installed', async ({ page }) => {
  const iife = fileURLToPath(
    new URL('../packages/polyfill/dist/polyfill.iife.js', import.meta.url),
  );
  expect(existsSync(iife), 'packages/polyfill/dist is missing: run pnpm build').toBe(true);
  const problems = await open(page, 'script-tag.html');
  await expectRegistered(page);
  expect(await listed(page)).toEqual(TOOLS);
  expect(await call(page, 'counter.add', { by: 4 })).toBe(4);
  await expect(page.getByTestId('count')).toHaveText('4');
  await page.getByTestId('shown').uncheck();
  await expect.poll(() => listed(page)).toEqual([]);
  expect(problems).toEqual([]);
});

test('no polyfill: each tool reports the error, once in the console, the page still works', async ({
  page,
}) => {
  const problems = await open(page, 'no-polyfill.html');
  for (const name of TOOLS) {
    const status = page.getByTestId(`status-${name}`);
    await expect(status).toHaveAttribute('data-status', 'error');
    await expect(status).toContainText('window.toolManager is missing');
  }
  await page.getByRole('button', { name: '+1' }).click();
  await expect(page.getByTestId('count')).toHaveText('1');
  expect(problems).toEqual([
    expect.stringMatching(/^console: useTool: window\.toolManager is missing/),
  ]);
});

test("docs/react.md's cart (example/cart.tsx): agents see its zod schema, the page shows their call", async ({
  page,
}) => {
  const problems = await open(page, 'cart.html');
  await expect.poll(() => listed(page)).toEqual(['cart.add']);
  const schema = await page.evaluate(async () => {
    const [tool] = await (
      window as unknown as { tools: { getTools(o: object): Promise<{ inputSchema: unknown }[]> } }
    ).tools.getTools({ agentOnly: true });
    return tool?.inputSchema;
  });
  expect(schema).toMatchObject({
    type: 'object',
    properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
    required: ['sku'],
  });
  // The honest call first: the page shows it.
  expect(await call(page, 'cart.add', { sku: 'A-1', qty: 2 })).toEqual({ sku: 'A-1', inCart: 2 });
  await expect(page.getByRole('listitem')).toHaveText(['2 × A-1']);
  expect(await call(page, 'cart.add', { sku: 'B-2' })).toEqual({ sku: 'B-2', inCart: 1 });
  await expect(page.getByRole('listitem')).toHaveText(['2 × A-1', '1 × B-2']);
  // A call the schema refuses never reaches execute: nothing changes on the page.
  const refused = await page.evaluate(() =>
    (window as unknown as { tools: PageTools }).tools
      .callTool('cart.add', { qty: 0 })
      .catch((error: Error & { toolCode?: string }) => `${error.name} ${error.toolCode}`),
  );
  expect(refused).toBe('DataError tool_arguments_schema_invalid');
  await expect(page.getByRole('listitem')).toHaveText(['2 × A-1', '1 × B-2']);
  expect(problems).toEqual([]);
});
