import { expect, type Page, test } from '@playwright/test';

// A frame whose script runs before its parent's says hello to nobody. The parent, when it
// starts, asks the frames it already has to say hello again, so the frame still coalesces.

async function topNames(page: Page): Promise<string[]> {
  return page.evaluate(async () =>
    (await (window as any).tools.getTools()).map((tool: { name: string }) => tool.name),
  );
}

for (const order of ['early', 'late'] as const) {
  test(`a same-origin frame coalesces when the parent installs ${order === 'early' ? 'first (the usual order)' : 'after the frame has said hello'}`, async ({
    page,
  }) => {
    await page.goto(`/e2e/pages/frames/late-parent.html${order === 'early' ? '?early' : ''}`);
    await expect(page.locator('#status')).toHaveText('ready');
    expect(await page.evaluate(() => (window as any).childWasFirst === true)).toBe(
      order === 'late',
    );
    await expect.poll(() => topNames(page), { timeout: 5000 }).toEqual(['frame.double']);
    const result = await page.evaluate(() =>
      (window as any).tools.callTool('frame.double', { n: 21 }),
    );
    expect(result).toMatchObject({ doubled: 42 });
  });
}

test('only the parent can ask for a hello, and only before its welcome', async ({ page }) => {
  await page.goto('/e2e/pages/frames/late-parent.html');
  await expect(page.locator('#status')).toHaveText('ready');
  await expect.poll(() => topNames(page)).toEqual(['frame.double']);
  // Honest path: the frame's first hello went to nobody; the one the parent asked for arrived.
  expect(await page.evaluate(() => (window as any).hellos)).toBe(1);
  const ask = { tag: 'toolwire.frames/1', kind: 'ask' };
  // The frame asks itself (not its parent), and the parent asks again after its welcome.
  await page.frames()[1]?.evaluate((message) => window.postMessage(message, '*'), ask);
  await page.evaluate(
    (message) =>
      (document.getElementById('child') as HTMLIFrameElement).contentWindow?.postMessage(
        message,
        '*',
      ),
    ask,
  );
  // A barrier: one more message to the frame, which it echoes to the parent. Messages are
  // handled in order, so by the echo the frame has handled both asks, and any hello it sent in
  // answer has reached the parent before the echo.
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const child = (document.getElementById('child') as HTMLIFrameElement)
          .contentWindow as Window;
        const token = { barrier: Math.random() };
        child.addEventListener('message', (event) => {
          if (event.data?.barrier === token.barrier) child.parent.postMessage(token, '*');
        });
        window.addEventListener('message', (event) => {
          if (event.data?.barrier === token.barrier) resolve();
        });
        child.postMessage(token, '*');
      }),
  );
  expect(await page.evaluate(() => (window as any).hellos)).toBe(1);
  expect(await topNames(page)).toEqual(['frame.double']);
});
