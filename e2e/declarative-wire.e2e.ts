import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { HostProcess, toolwire } from './support/cli.js';
import { clickConnect } from './support/pairing.js';

// Issue 9, "done when" 2: a form declared with HTML attributes alone, on a page whose only
// script is endpoint.iife.js, is listed by `toolwire tools` and called by `toolwire call`: the
// built CLI (a process) -> its host (a process) -> the page in Chromium -> the form, filled
// and submitted -> back. Runs in both projects: with the polyfill's form tools (native WebMCP
// off), and with Chromium's own declarative support (chromium-native), which the endpoint
// serves through the same catalog.

const ORIGIN = `http://localhost:${E2E_PORT}`;
const PAGE = '/e2e/pages/host/form.html';

let host: HostProcess | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

test('a form with only HTML attributes: listed by toolwire tools, called by toolwire call', async ({
  page,
}, testInfo) => {
  const native = testInfo.project.name === 'chromium-native';
  host = new HostProcess(['--max-tool-policy', 'write', '--page', `${ORIGIN}${PAGE}`]);
  const { env } = host;
  // Form tools are `write` (submitting changes something); the page's script tag says
  // data-toolwire-guard="read-write". The link pairs after one click in the page's prompt.
  await page.goto(await host.pairingLink());
  await clickConnect(page);
  expect(await page.evaluate(() => 'modelContext' in document)).toBe(true);

  await expect
    .poll(async () => {
      const listed = await toolwire(['tools', '--json'], env);
      return listed.code === 0 ? JSON.parse(listed.out).tools.map((tool: any) => tool.id) : [];
    })
    .toContain('subscribe');
  const table = await toolwire(['tools'], env);
  expect(table.code).toBe(0);
  expect(table.out).toMatch(/\nsubscribe\s+write\s+yes\s+yes\s+page\s+Subscribes an email address/);

  const full = JSON.parse((await toolwire(['tools', '--json', '--detail', 'full'], env)).out);
  const definition = full.tools.find((tool: { id: string }) => tool.id === 'subscribe');
  expect(definition).toMatchObject({ name: 'Subscribe', policy: 'write' });
  const schema = definition.argumentsSchema;
  expect(schema.required).toEqual(['email']);
  expect(schema.properties.email).toMatchObject({
    type: 'string',
    description: 'Where the digest goes',
  });
  // The polyfill says what the control checks; Chromium 156 publishes a plain string.
  if (!native) expect(schema.properties.email.format).toBe('email');
  expect(schema.properties.every.enum).toEqual(['day', 'week']);
  // No toolparamdescription: the label describes it.
  expect(schema.properties.tags).toEqual({ type: 'boolean', description: 'With tags' });

  const called = await toolwire(
    ['call', 'subscribe', '--args', '{"email":"ada@example.com","every":"week","tags":true}'],
    env,
  );
  expect(called.code, called.err).toBe(0);
  // The form navigated its target frame: the submission is what a user's would have been.
  const result = page.frameLocator('iframe[name="result"]').locator('#query');
  await expect(result).toHaveText('?email=ada%40example.com&every=week&tags=on');
  const filled = await page.evaluate(() => {
    const form = document.querySelector('form') as HTMLFormElement;
    return Object.fromEntries(new FormData(form));
  });
  expect(filled).toEqual({ email: 'ada@example.com', every: 'week', tags: 'on' });

  // Arguments the form cannot take are refused before the page fills anything: the form
  // decides (docs/browser-api.md "What a call may fill"). The polyfill's form names the
  // misfit; Chromium's refuses without detail, as its executeTool does.
  const refused = await toolwire(['call', 'subscribe', '--args', '{"every":"month"}'], env);
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(
    native ? /^toolwire: tool_execution_exception: / : /^toolwire: tool_arguments_schema_invalid: /,
  );
  expect(refused.err.trim().split('\n')).toHaveLength(1);
  expect(
    await page.evaluate(() => (document.querySelector('select') as HTMLSelectElement).value),
  ).toBe('week');
});
