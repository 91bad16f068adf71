import { expect, test } from '@playwright/test';
import { WebMCPError, webmcp } from '../packages/playwright/src/index.js';

// @toolwire/playwright against a real page (issue 17 part 4). This file runs in both projects:
// `chromium` (no native WebMCP: the polyfill path) and `chromium-native` (launched with
// --enable-features=WebMCP: Playwright's page.webmcp). Each test asserts the path it expects,
// so it cannot pass on the wrong one.

const SHOP = '/e2e/pages/playwright/shop.html';
const expected = (projectName: string) =>
  projectName === 'chromium-native' ? 'native' : 'polyfill';

test.beforeEach(async ({ page }) => {
  await page.goto(SHOP);
  await expect(page.locator('#status')).toHaveText('ready');
});

test('takes the path the browser allows, and says which', async ({ page }, info) => {
  const native = await page.evaluate(
    () => (window as unknown as { shopInfo: { native: boolean } }).shopInfo.native,
  );
  expect(native).toBe(info.project.name === 'chromium-native');
  expect(await webmcp(page).via()).toBe(expected(info.project.name));
});

test('lists the agent-exposed tools, polyfill and modelContext alike', async ({ page }) => {
  const tools = await webmcp(page).tools();
  expect(tools.map((tool) => tool.name)).toEqual([
    'cart.add',
    'cart.clear',
    'cart.count',
    'cart.label',
    'page.heading',
  ]);
  expect(tools[0]).toEqual({
    name: 'cart.add',
    description: 'Adds a product to the cart.',
    inputSchema: {
      type: 'object',
      properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
      required: ['sku'],
    },
    annotations: { consequential: true },
  });
  expect(tools[2]).toMatchObject({ name: 'cart.count', annotations: { readOnly: true } });
  expect(tools[4]).toEqual({ name: 'page.heading', description: 'The page heading.' });
});

test('calls tools and resolves their JSON results', async ({ page }) => {
  const shop = webmcp(page);
  expect(await shop.callTool('cart.add', { sku: 'A-1', qty: 2 })).toEqual({
    sku: 'A-1',
    qty: 2,
    items: 2,
  });
  expect(await shop.callTool('cart.add', { sku: 'B-2' })).toEqual({ sku: 'B-2', qty: 1, items: 3 });
  expect(await shop.callTool('cart.count')).toBe(3);
  expect(await shop.callTool('page.heading')).toEqual({
    heading: 'toolwire: a shop for @toolwire/playwright',
  });
  // A string stays a string, and a tool that returns nothing resolves null, on both paths.
  expect(await shop.callTool('cart.label')).toBe('3 items');
  expect(await shop.callTool('cart.clear')).toBeNull();
  expect(await shop.callTool('cart.count')).toBe(0);
});

test('a tool that throws rejects with a coded WebMCPError', async ({ page }, info) => {
  const shop = webmcp(page);
  expect(await shop.callTool('cart.add', { sku: 'A-1' })).toMatchObject({ items: 1 });
  const error = await shop
    .callTool('cart.add', { sku: 'SOLD-OUT' })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(WebMCPError);
  expect(error).toMatchObject({
    code: 'tool_execution_exception',
    retryable: false,
    toolName: 'cart.add',
    via: expected(info.project.name),
  });
  // The polyfill passes on what the tool threw, as the wire does; the browser's WebMCP does not.
  if (info.project.name === 'chromium') {
    expect((error as Error).message).toBe('Tool "cart.add" threw: SOLD-OUT is sold out');
    expect((error as WebMCPError).details).toEqual({
      name: 'Error',
      message: 'SOLD-OUT is sold out',
    });
  } else expect((error as WebMCPError).details).toBeNull();
  expect(await shop.callTool('cart.count')).toBe(1);
});

test('an unknown tool rejects with tool_not_found', async ({ page }, info) => {
  const shop = webmcp(page);
  expect((await shop.tools()).length).toBeGreaterThan(0);
  await expect(shop.callTool('cart.nope')).rejects.toMatchObject({
    name: 'WebMCPError',
    code: 'tool_not_found',
    toolName: 'cart.nope',
    via: expected(info.project.name),
  });
  // Not agent-exposed: the page can call it, but the helper neither lists nor calls it, on
  // either path (an agent could not).
  const direct = await page.evaluate(() =>
    (window as unknown as { tools: { callTool(name: string): Promise<unknown> } }).tools.callTool(
      'cart.debug',
    ),
  );
  expect(direct).toEqual({ items: 0 });
  expect((await shop.tools()).map((tool) => tool.name)).not.toContain('cart.debug');
  await expect(shop.callTool('cart.debug')).rejects.toMatchObject({ code: 'tool_not_found' });
});

test('input that fails the schema is refused before the tool runs', async ({ page }, info) => {
  const shop = webmcp(page);
  expect(await shop.callTool('cart.add', { sku: 'A-1', qty: 1 })).toMatchObject({ items: 1 });
  const error = await shop
    .callTool('cart.add', { sku: 'A-1', qty: 0 })
    .catch((caught: unknown) => caught);
  // The same answer on both paths, with the wire's `$`-rooted issues: the polyfill checks the
  // input itself; on the native path the helper checks it against the listed inputSchema before
  // the browser runs the tool, as the page's endpoint does on the wire.
  expect(error).toMatchObject({
    code: 'tool_arguments_schema_invalid',
    // What a person reads first, the same on both paths; `details` are for programs.
    message: '`qty` must be an integer >= 1',
    retryable: false,
    via: expected(info.project.name),
    details: [expect.objectContaining({ path: '$.qty', keyword: 'minimum' })],
  });
  // Arguments that are not an object: the helper refuses them itself, on both paths.
  await expect(shop.callTool('cart.add', [] as never)).rejects.toMatchObject({
    code: 'tool_arguments_invalid',
    via: expected(info.project.name),
  });
  expect(await shop.callTool('cart.count')).toBe(1);
});

test('forcing a path the page cannot take fails clearly', async ({ page }, info) => {
  if (info.project.name === 'chromium') {
    await expect(webmcp(page, { via: 'native' }).tools()).rejects.toMatchObject({
      code: 'tool_call_failed',
      via: 'native',
    });
  } else {
    // The polyfill path works on a native browser too: the polyfill lists native tools.
    expect((await webmcp(page, { via: 'polyfill' }).tools()).map((tool) => tool.name)).toContain(
      'cart.add',
    );
  }
  await page.goto('/e2e/pages/index.html');
  await expect(webmcp(page, { via: 'polyfill' }).callTool('cart.add')).rejects.toMatchObject({
    code: 'webmcp_unavailable',
    message: expect.stringContaining('window.tools'),
  });
});

test('a call past its timeout rejects with tool_execution_timeout', async ({ page }, info) => {
  const shop = webmcp(page);
  expect(await shop.callTool('cart.count', {}, { timeout: 5_000 })).toBe(0);
  // A tool that never settles, registered as a page written for native WebMCP would.
  await page.evaluate(() =>
    (
      document as unknown as { modelContext: { registerTool(tool: object): Promise<void> } }
    ).modelContext.registerTool({
      name: 'cart.stuck',
      description: 'Never answers.',
      execute: () => new Promise(() => {}),
    }),
  );
  await expect
    .poll(async () => (await shop.tools({ timeout: 5_000 })).map((tool) => tool.name))
    .toContain('cart.stuck');
  const started = Date.now();
  await expect(shop.callTool('cart.stuck', {}, { timeout: 300 })).rejects.toMatchObject({
    name: 'WebMCPError',
    code: 'tool_execution_timeout',
    // No readOnlyHint: a tool that may write is not called again on its own.
    retryable: false,
    toolName: 'cart.stuck',
    via: expected(info.project.name),
  });
  // A bound, not a measure: the 300 ms timeout fired, the call did not hang on.
  expect(Date.now() - started).toBeLessThan(5_000);
  // The page still answers afterwards.
  expect(await shop.callTool('cart.count')).toBe(0);
});

const FRAMED = '/e2e/pages/playwright/framed.html';

test('webmcp(frame) lists and calls the tools of that frame only', async ({ page }, info) => {
  await page.goto(FRAMED);
  await expect(page.locator('#status')).toHaveText('ready');
  await expect(page.frameLocator('#child').locator('#status')).toHaveText('ready');
  const frame = page.frames()[1];
  if (!frame) throw new Error('no child frame');
  // The same frame as the iframe element's content frame.
  expect(await (await page.locator('#child').elementHandle())?.contentFrame()).toBe(frame);

  const child = webmcp(frame);
  expect(await child.via()).toBe(expected(info.project.name));
  expect(await child.tools()).toEqual([
    {
      name: 'frame.double',
      description: 'Doubles a number, in the child frame.',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    },
  ]);
  expect(await child.callTool('frame.double', { n: 21 })).toEqual({
    doubled: 42,
    in: 'toolwire: the child frame',
  });
  // The frame reaches its own tools, not its parent's.
  await expect(child.callTool('top.title')).rejects.toMatchObject({
    code: 'tool_not_found',
    toolName: 'top.title',
    via: expected(info.project.name),
  });
});

test('frames differ between the paths as the README says', async ({ page }, info) => {
  await page.goto(FRAMED);
  await expect(page.locator('#status')).toHaveText('ready');
  await expect(page.frameLocator('#child').locator('#status')).toHaveText('ready');
  const frame = page.frames()[1];
  if (!frame) throw new Error('no child frame');
  const top = webmcp(page);
  expect(await top.callTool('top.title')).toBe(
    'toolwire: a page with a frame for @toolwire/playwright',
  );
  if (info.project.name === 'chromium') {
    // The polyfill: a frame's window.tools lists its own tools (and its descendants'), and the
    // top's lists the same-origin child's too, which it can call.
    const inFrame = await frame.evaluate(() =>
      (window as unknown as { tools: { getTools(o: object): Promise<{ name: string }[]> } }).tools
        .getTools({ agentOnly: true })
        .then((list) => list.map((tool) => tool.name)),
    );
    expect(inFrame).toEqual(['frame.double']);
    expect((await top.tools()).map((tool) => tool.name)).toEqual(['frame.double', 'top.title']);
    expect(await top.callTool('frame.double', { n: 2 })).toMatchObject({ doubled: 4 });
  } else {
    // Playwright's page.webmcp: the main frame only.
    expect((await top.tools()).map((tool) => tool.name)).toEqual(['top.title']);
    await expect(top.callTool('frame.double', { n: 2 })).rejects.toMatchObject({
      code: 'tool_not_found',
      via: 'native',
    });
  }
});
