import { expect, type Page, test } from '@playwright/test';
import { type HostConnection, TestHost, waitForMessage } from './support/ws-host.js';

// A tool written with defineTool and a zod schema (issue 15, "Types people expect"), in real
// Chromium: called through window.tools, then over the wire by a host, where the zod schema's
// JSON Schema is the published argumentsSchema and zod's issues are the wire's details.

let host: TestHost | undefined;

test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

async function open(page: Page, url = ''): Promise<void> {
  await page.goto(`/e2e/pages/endpoint/typed.html${url ? `#${encodeURIComponent(url)}` : ''}`);
  await page.waitForFunction(() => (window as unknown as { typedReady?: boolean }).typedReady);
}

test('a zod tool through window.tools.callTool: parsed input, DataError issues', async ({
  page,
}) => {
  await open(page);
  const answer = await page.evaluate(async () => {
    const ok = await tools.callTool('order.place', { sku: 'A', by: '2026-12-24T09:00:00Z' });
    const failed = await tools
      .callTool('order.place', { sku: 'A', qty: 0, by: 'tomorrow' })
      .catch((error: DOMException & { errors: unknown }) => ({
        name: error.name,
        errors: error.errors,
      }));
    return { ok, failed };
  });
  expect(answer.ok).toEqual({ id: 'Ax1', day: 24 });
  expect(answer.failed).toEqual({
    name: 'DataError',
    errors: [
      { path: '/qty', reason: expect.any(String), schemaPath: '~standard/zod/too_small' },
      { path: '/by', reason: expect.any(String), schemaPath: '~standard/zod/invalid_format' },
    ],
  });
});

test('the same tool over the wire: its JSON Schema published, zod deciding', async ({ page }) => {
  host = await new TestHost().start();
  const connection: Promise<HostConnection> = host.nextConnection();
  await open(page, host.url);
  const { client, messages } = await connection;
  await waitForMessage(messages, (m) => m?.type === 'session.open');

  const definitions: any = await client.query({ detail: 'definitions', ids: ['order.place'] });
  expect(definitions.tools[0].argumentsSchema).toMatchObject({
    type: 'object',
    properties: {
      sku: { type: 'string' },
      qty: { type: 'integer', minimum: 1, default: 1 },
      by: { type: 'string', format: 'date-time' },
    },
    required: ['sku', 'by'],
  });

  const call = await client.call({
    toolId: 'order.place',
    arguments: { sku: 'B', qty: 3, by: '2026-11-30T10:00:00Z' },
  });
  expect(call.result).toEqual({ id: 'Bx3', day: 30 });

  const refused: any = await client
    .call({ toolId: 'order.place', arguments: { sku: 'B', qty: 0, by: '2026-11-30T10:00:00Z' } })
    .catch((error) => error);
  expect(refused.code).toBe('tool_arguments_schema_invalid');
  expect(refused.details).toEqual([
    {
      path: '$.qty',
      message: expect.any(String),
      keyword: 'too_small',
      schemaPath: '~standard/zod/too_small',
    },
  ]);
});
