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
  await page.goto(FRAMED);
  await expect(page.locator('#status')).toHaveText('ready');
  await expect(page.frameLocator('#child').locator('#status')).toHaveText('ready');
  const frame = page.frames()[1];
  if (!frame) throw new Error('no child frame');
  return frame;
}

test("the top lists its tools and its frame's once; the frame lists its own", async ({ page }) => {
  const frame = await framed(page);
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
  expect((await top.tools()).map((tool) => tool.name)).toEqual(['frame.double', 'top.title']);
  expect(await top.callTool('frame.double', { n: 3 })).toMatchObject({ doubled: 6 });
  const child = webmcp(frame, { via: 'polyfill' });
  expect((await child.tools()).map((tool) => tool.name)).toEqual(['frame.double']);
  await expect(child.callTool('top.title')).rejects.toMatchObject({ code: 'tool_not_found' });
});
