import { expect, type Page, test } from '@playwright/test';

// The built artifacts in real Chromium: the IIFE installs on load and fetches its lazy chunks
// (validator, lowering) from beside its own URL. The first checks use the eval-free engine
// (cfworker, issue 16 item 2); under a CSP without 'unsafe-eval' it is the only one (ajv never
// takes over) and still rejects bad input.
// Each scenario runs in a page task (setTimeout), not inside page.evaluate itself: DevTools'
// evaluate is exempt from the CSP's eval rule, which would hide exactly what we test.

/** Runs a scenario of e2e/pages/scenarios.ts from a timer task in the page. */
async function run(page: Page, name: string): Promise<any> {
  await page.waitForFunction(() => (window as any).toolwireScenarios !== undefined);
  return page.evaluate(
    (scenario) =>
      new Promise((resolve, reject) => {
        // A task of the page's own on purpose (see above), not a delay.
        setTimeout(() => (window as any).toolwireScenarios[scenario]().then(resolve, reject), 0);
      }),
    name,
  );
}

test('the IIFE installs the globals and loads its chunks lazily', async ({ page }) => {
  const requested: string[] = [];
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));
  await page.goto('/e2e/pages/iife.html');
  expect(requested.some((path) => path.includes('polyfill-validator'))).toBe(false);
  const result = await run(page, 'exercise');
  expect(result.good).toBe(3);
  expect(result.bad).toEqual({
    name: 'DataError',
    message: '{"path":"/n","reason":"must be >= 1","schemaPath":"#/properties/n/minimum"}',
    count: 1,
  });
  expect(result.lifted).toEqual({ isDate: true, year: 2026 });
  expect(result.hasModelContext).toBe(true);
  expect(requested).toContain('/built/polyfill/polyfill-validator-cfworker.js');
  expect(requested).toContain('/built/polyfill/polyfill-lowering.js');
});

test('the IIFE under a CSP without unsafe-eval validates with cfworker, never ajv', async ({
  page,
}) => {
  const requested: string[] = [];
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));
  await page.goto('/e2e/pages/iife-csp.html');
  const result = await run(page, 'exercise');
  expect(result.good).toBe(3);
  expect(result.bad).toMatchObject({ name: 'DataError', count: 1 });
  expect(JSON.parse(result.bad.message)).toMatchObject({
    path: '/n',
    schemaPath: '#/properties/n/minimum',
  });
  expect(result.lifted).toEqual({ isDate: true, year: 2026 });
  expect(requested).toContain('/built/polyfill/polyfill-validator-cfworker.js');
  expect(requested).not.toContain('/built/polyfill/polyfill-validator-ajv.js');
});

test('the module build under the same CSP: eval is refused, validation still rejects bad input', async ({
  page,
}) => {
  await page.goto('/e2e/pages/csp.html');
  await expect(page.locator('#status')).toHaveText('ready');
  const result = await run(page, 'exercise');
  expect(result.canEval).toBe(false);
  expect(result.engine).toBe('cfworker');
  expect(result.bad).toMatchObject({ name: 'DataError', count: 1 });
  expect(result.good).toBe(3);
});

test("toolManager.register with the specification's top-level description fails, naming naturalLanguageProperties", async ({
  page,
}) => {
  await page.goto('/e2e/pages/iife.html');
  const outcome = await page.evaluate(async () => {
    const w = window as any;
    // The honest shape first: agents see the tool.
    await w.toolManager.register({
      name: 'cart.add',
      naturalLanguageProperties: { description: 'Adds a product to the cart.' },
      inputSchema: { type: 'object', properties: { sku: { type: 'string' } } },
      execute: ({ sku }: { sku: string }) => ({ added: sku }),
    });
    const honest = (await w.tools.getTools({ agentOnly: true })).map((t: any) => t.name);
    // What someone who knows registerTool() writes first.
    const refused = await w.toolManager
      .register({
        name: 'cart.remove',
        description: 'Removes a product from the cart.',
        inputSchema: { type: 'object', properties: { sku: { type: 'string' } } },
        execute: () => 'removed',
      })
      .then(
        () => 'registered',
        (error: Error) => `${error.name}: ${error.message}`,
      );
    const all = (await w.tools.getTools()).map((t: any) => t.name);
    return { honest, refused, all };
  });
  expect(outcome.honest).toEqual(['cart.add']);
  expect(outcome.refused).toBe(
    'TypeError: Tool "cart.remove": description goes in naturalLanguageProperties.',
  );
  expect(outcome.all).toEqual(['cart.add']);
});
