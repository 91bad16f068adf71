import type { Frame, Page } from '@playwright/test';
import { expect, test } from '@playwright/test';
import { webmcp } from '../packages/playwright/src/index.js';

// A page with a same-origin frame, read through window.tools with native WebMCP off
// (`chromium`) and on (`chromium-native`). The browser's own getTools() answers for the whole
// page, every frame's registrations and the polyfill's mirrors included; window.tools must still
// list each tool once, and a frame never its parent's tools.

const FRAMED = '/e2e/pages/playwright/framed.html';

interface Listed {
  name: string;
  origin: string;
}

async function names(target: Page | Frame): Promise<string[]> {
  return target.evaluate(() =>
    (window as unknown as { tools: { getTools(): Promise<Listed[]> } }).tools
      .getTools()
      .then((list) => list.map((tool) => tool.name)),
  );
}

/** Registers a tool through this document's `document.modelContext` (the browser's, if any). */
async function registerThroughContext(target: Page | Frame, name: string): Promise<void> {
  await target.evaluate(async (toolName) => {
    const context = (
      document as unknown as {
        modelContext: { registerTool(tool: object): Promise<void> | undefined };
      }
    ).modelContext;
    await context.registerTool({
      name: toolName,
      description: `Registered through document.modelContext as ${toolName}.`,
      execute: () => JSON.stringify(toolName),
    });
  }, name);
}

async function framed(page: Page): Promise<Frame> {
  // The top's script runs after its frame's: the frame's first hello reaches nobody, and the
  // top asks it again when it starts (e2e/frames-late-parent.e2e.ts). No retry here.
  await page.goto(FRAMED);
  await expect(page.locator('#status')).toHaveText('ready');
  await expect(page.frameLocator('#child').locator('#status')).toHaveText('ready');
  const frame = page.frames()[1];
  if (!frame) throw new Error('no child frame');
  return frame;
}

test("the top lists its tools and its frame's once; the frame lists its own", async ({ page }) => {
  const frame = await framed(page);
  // The frames bridge links the child once it has loaded: polled until it answers.
  await expect.poll(() => names(page)).toEqual(['frame.double', 'top.title']);
  expect(await names(page)).toEqual(['frame.double', 'top.title']);
  expect(await names(frame)).toEqual(['frame.double']);
  // The one listed is the frame's, and callable from the top.
  expect(
    await page.evaluate(() =>
      (
        window as unknown as { tools: { callTool(n: string, i: object): Promise<unknown> } }
      ).tools.callTool('frame.double', { n: 2 }),
    ),
  ).toMatchObject({ doubled: 4 });
});

test('document.modelContext registrations: listed in their document, never in a child', async ({
  page,
}) => {
  const frame = await framed(page);
  await registerThroughContext(frame, 'frame.context');
  await registerThroughContext(page, 'top.context');
  // The honest listings first: each document lists what it registered there.
  await expect.poll(() => names(frame)).toEqual(['frame.context', 'frame.double']);
  // The top: its own, and its frame's once each.
  await expect
    .poll(() => names(page))
    .toEqual(['frame.context', 'frame.double', 'top.context', 'top.title']);
  // The frame never lists its parent's, however it was registered.
  expect(await names(frame)).not.toContain('top.context');
  expect(await names(frame)).not.toContain('top.title');
});

test("webmcp(..., { via: 'polyfill' }) lists as the polyfill path does, native or not", async ({
  page,
}) => {
  const frame = await framed(page);
  const top = webmcp(page, { via: 'polyfill' });
  await expect
    .poll(async () => (await top.tools()).map((tool) => tool.name))
    .toEqual(['frame.double', 'top.title']);
  expect(await top.callTool('frame.double', { n: 3 })).toMatchObject({ doubled: 6 });
  const child = webmcp(frame, { via: 'polyfill' });
  expect((await child.tools()).map((tool) => tool.name)).toEqual(['frame.double']);
  await expect(child.callTool('top.title')).rejects.toMatchObject({ code: 'tool_not_found' });
});

test("a frame that does not coalesce lists its own, and stays out of the top's listing", async ({
  page,
}) => {
  await framed(page);
  // A second same-origin frame whose embedding refuses `tools`: its tools do not coalesce.
  await page.evaluate(async () => {
    const iframe = document.createElement('iframe');
    iframe.id = 'closed';
    iframe.setAttribute('allow', "tools 'none'");
    iframe.src = './frame-child.html';
    document.body.append(iframe);
  });
  await expect(page.frameLocator('#closed').locator('#status')).toHaveText('ready');
  const closed = page.frames()[2];
  if (!closed) throw new Error('no second frame');
  await closed.evaluate(() =>
    (
      window as unknown as { toolManager: { register(tool: object): Promise<void> } }
    ).toolManager.register({
      name: 'closed.tool',
      naturalLanguageProperties: { description: 'In a frame that does not coalesce.' },
      execute: () => 'closed',
    }),
  );
  // The honest part: the frame lists its own (on a native browser too, whose registry
  // refuses the frame: the permissions policy keeps it from `tools`).
  expect(await names(closed)).toEqual(['closed.tool', 'frame.double']);
  expect(
    await closed.evaluate(() =>
      (
        window as unknown as { tools: { callTool(n: string, i: object): Promise<unknown> } }
      ).tools.callTool('closed.tool', {}),
    ),
  ).toBe('closed');
  // window.tools keeps the frames rules: the top lists its own and the coalescing frame's.
  await expect.poll(() => names(page)).toEqual(['frame.double', 'top.title']);
});
