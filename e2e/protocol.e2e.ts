import { expect, test } from '@playwright/test';
import { gzipSync } from 'fflate';

// @toolwire/protocol is pure TypeScript for Node and browsers alike: these run the real module
// in Debian's Chromium, where WebCrypto, TextDecoder and base64 come from the browser, not Node.

declare global {
  interface Window {
    toolwireProtocol: typeof import('../packages/protocol/src/index.js') &
      typeof import('../packages/protocol/src/ajv.js');
  }
}

test.beforeEach(async ({ page }) => {
  await page.goto('/e2e/pages/protocol.html');
  await expect(page.locator('#status')).toHaveText('ready');
});

test('the worked revision vector matches in the browser', async ({ page }) => {
  const revision = await page.evaluate(() =>
    window.toolwireProtocol.computeRevision({
      id: 'demo.ping',
      name: 'Ping',
      description: 'Returns pong.',
      category: 'demo',
      policy: 'read',
      argumentsSchema: { type: 'object' },
      resultSchema: { type: 'object' },
    }),
  );
  expect(revision).toBe('sha256:f4b4059c6d381a1fdf33eef7526f19e464865dbeabebaee146d0d441cb1de2fd');
});

test('host client and page bridge talk over a linked pair: query, call, batch, large catalog', async ({
  page,
}) => {
  const outcome = await page.evaluate(async () => {
    const p = window.toolwireProtocol;
    const big = 'x'.repeat(64 * 1024);
    const bridge = p.createToolBridge({
      validator: p.createAjvProvider(),
      guard: 'read-write',
      tools: () => [
        {
          definition: {
            id: 'demo.echo',
            name: 'Echo',
            description: 'Echoes its text.',
            category: 'demo',
            policy: 'read',
            argumentsSchema: {
              type: 'object',
              properties: { text: { type: 'string' } },
              required: ['text'],
            },
            resultSchema: { type: 'object' },
          },
          execute: (args: Record<string, unknown>) => ({ echoed: args.text }),
        },
        {
          definition: {
            id: 'demo.big',
            name: 'Big',
            description: big,
            category: 'demo',
            policy: 'write',
            argumentsSchema: { type: 'object' },
            resultSchema: { type: 'object' },
          },
          execute: () => ({}),
        },
      ],
    });
    const [hostEnd, pageEnd] = p.createLinkedPair();
    const frames: string[] = [];
    pageEnd.onmessage = async (frame) => {
      const response = await bridge.handle(frame);
      if (!response) return;
      const text = response.frame;
      frames.push(text);
      pageEnd.send(text);
    };
    const client = p.createToolClient(hostEnd, { sessionId: 'browser-session' });
    const full = (await client.query()) as {
      tools: { id: string; description: string }[];
      revision: string;
    };
    const call = await client.call({ toolId: 'demo.echo', arguments: { text: 'hi' } });
    let schemaError = '';
    try {
      await client.call({ toolId: 'demo.echo', arguments: { text: 42 } });
    } catch (error) {
      schemaError = (error as { code: string }).code;
    }
    const batch = await client.batch({
      calls: [{ toolId: 'demo.echo', arguments: { text: 'a' } }, { toolId: 'nope' }],
    });
    return {
      wrapped: frames[0]?.includes('"$ansightEncoding":"gzip-base64-json"') ?? false,
      firstFrameLength: frames[0]?.length ?? 0,
      bigDescriptionLength: full.tools.find((tool) => tool.id === 'demo.big')?.description.length,
      call,
      schemaError,
      batch,
    };
  });
  expect(outcome.wrapped).toBe(true);
  expect(outcome.firstFrameLength).toBeLessThan(64 * 1024);
  expect(outcome.bigDescriptionLength).toBe(64 * 1024);
  expect(outcome.call).toEqual({
    toolId: 'demo.echo',
    success: true,
    message: null,
    result: { echoed: 'hi' },
    evidence: null,
  });
  expect(outcome.schemaError).toBe('tool_arguments_schema_invalid');
  expect(outcome.batch).toMatchObject({
    success: false,
    completed: 2,
    requested: 2,
    stoppedEarly: false,
  });
  expect(outcome.batch.results[1]).toMatchObject({
    index: 1,
    success: false,
    error: { code: 'tool_not_found' },
  });
});

test('a gzip bomb is refused in the browser with a coded error', async ({ page }) => {
  // 64 MiB of spaces, ~64 KiB compressed, against an 8 MiB limit.
  const bomb = Buffer.from(
    gzipSync(new Uint8Array(64 * 1024 * 1024).fill(0x20), { level: 9 }),
  ).toString('base64');
  const result = await page.evaluate((data) => {
    const wrapper = {
      $ansightEncoding: 'gzip-base64-json',
      contentType: 'application/json',
      originalByteCount: 10, // a lie: the limit must hold while inflating, not trust this
      compressedByteCount: 0,
      data,
    };
    try {
      window.toolwireProtocol.decodePayload(wrapper, { maxInflatedBytes: 8 * 1024 * 1024 });
      return 'decoded';
    } catch (error) {
      return (error as { code: string }).code;
    }
  }, bomb);
  expect(result).toBe('tool_payload_too_large');
});

test('base64 is strict in the browser too (no Buffer there)', async ({ page }) => {
  const good = Buffer.from(gzipSync(new TextEncoder().encode('{"ok":true}'))).toString('base64');
  const codes = await page.evaluate((data) => {
    const decode = (text: string) => {
      try {
        return JSON.stringify(
          window.toolwireProtocol.decodePayload({
            $ansightEncoding: 'gzip-base64-json',
            data: text,
          }),
        );
      } catch (error) {
        return (error as { code: string }).code;
      }
    };
    return [
      decode(data),
      decode(` ${data.slice(1)}`),
      decode(`-_${data.slice(2)}`),
      decode(data.slice(0, -1)),
    ];
  }, good);
  expect(codes).toEqual([
    '{"ok":true}',
    'tool_payload_decode_failed',
    'tool_payload_decode_failed',
    'tool_payload_decode_failed',
  ]);
});
