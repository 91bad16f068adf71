import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { launchMcp } from './support/mcp.js';

// Issue 16, item 9, end to end: the SDK's MCP client over stdio against the built `toolwire mcp`,
// a real page in Chromium whose tools answer an ImageData, a Blob, an ImageBitmap inside an
// object, and JSON that only looks like an image (packages/host/src/mcp/content.ts).

const ORIGIN = `http://localhost:${E2E_PORT}`;
const PAGE = '/e2e/pages/host/media.html';

/** Width, height and the colour type of a PNG, from its IHDR. */
function pngHeader(base64: string) {
  const bytes = Buffer.from(base64, 'base64');
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test('images reach an MCP client as image content, a Blob as an embedded resource', async ({
  page,
}) => {
  const state = join(mkdtempSync(join(tmpdir(), 'toolwire-mcp-content-')), 'state.json');
  const mcp = await launchMcp(['--port', '0', '--allow-origin', ORIGIN], {
    TOOLWIRE_STATE: state,
  });
  const { client } = mcp;
  try {
    const url = await mcp.hostUrl();
    await page.goto(`${ORIGIN}${PAGE}#toolwire=${encodeURIComponent(url)}`);
    await expect
      .poll(async () => (await client.listTools()).tools.some((t) => t.name === 'media_set'))
      .toBe(true);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));

    // The page's hints and title, as MCP annotations.
    expect(byName.get('media_set')).toMatchObject({
      title: 'Set the value',
      annotations: {
        title: 'Set the value',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    });
    expect(byName.get('media_chart')?.annotations).not.toHaveProperty('idempotentHint');
    // A whole image or Blob lists no outputSchema; an object holding one does.
    expect(byName.get('media_chart')).not.toHaveProperty('outputSchema');
    expect(byName.get('media_export')).not.toHaveProperty('outputSchema');
    expect(byName.get('media_report')?.outputSchema).toMatchObject({ type: 'object' });

    const chart = await client.callTool({ name: 'media_chart', arguments: {} });
    expect(chart.isError).toBe(false);
    expect(chart.structuredContent).toBeUndefined();
    const [image] = chart.content as any[];
    expect(chart.content).toHaveLength(1);
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(pngHeader(image.data)).toEqual({ width: 3, height: 2 });

    const exported = await client.callTool({ name: 'media_export', arguments: {} });
    expect(exported.content).toHaveLength(1);
    const [resource] = exported.content as any[];
    expect(resource.type).toBe('resource');
    expect(resource.resource.mimeType).toBe('text/csv');
    expect(Buffer.from(resource.resource.blob, 'base64').toString()).toBe('a,b\n1,2\n');
    expect(resource.resource.uri).toMatch(/^toolwire:\/\/[^/]+\/media\.export\/[0-9a-f-]{36}$/);

    // An ImageBitmap inside an object: the JSON (text and structured), then the image.
    const report = await client.callTool({ name: 'media_report', arguments: {} });
    const blocks = report.content as any[];
    expect(blocks.map((block) => block.type)).toEqual(['text', 'image']);
    expect(report.structuredContent).toMatchObject({
      caption: 'red and blue',
      chart: { mimeType: 'image/png', width: 3, height: 2 },
    });
    expect(blocks[1].data).toBe((report.structuredContent as any).chart.data);
    expect(pngHeader(blocks[1].data)).toEqual({ width: 3, height: 2 });

    // JSON that only looks like an image, from a tool that declares no image: JSON it stays.
    const lookalike = await client.callTool({ name: 'media_lookalike', arguments: {} });
    expect(lookalike.content).toEqual([
      { type: 'text', text: '{"mimeType":"image/png","data":"iVBORw0KGgo="}' },
    ]);
  } finally {
    await client.close();
  }
});
