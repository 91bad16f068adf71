import { afterEach, describe, expect, it } from 'vitest';
import type { Host, McpBridge } from '../src/index.js';
import { createHost } from '../src/index.js';
import { binaryKindOf, resultContent } from '../src/mcp/content.js';
import { FakePage, mcpOverMemory, tool } from './helpers.js';

// Issue 16, item 9: images and Blobs as MCP content, the page's hints as MCP annotations.
// The schemas are what the page's expandSchema makes of {webType: "ImageData"}, "Blob" and
// "File" (LOWERING.md [T8]-[T10]); e2e/mcp-content.e2e.ts checks the real page's.

const MIME = '^[a-z0-9!#$&^_.+-]+\\/[a-z0-9!#$&^_.+-]+(?:;[\\x20-\\x40\\x5b-\\x7e]*)?$';
const IMAGE = {
  type: 'object',
  properties: {
    mimeType: { const: 'image/png' },
    data: { type: 'string', contentEncoding: 'base64', contentMediaType: 'image/png' },
    width: { type: 'integer', minimum: 1 },
    height: { type: 'integer', minimum: 1 },
  },
  required: ['mimeType', 'data', 'width', 'height'],
  additionalProperties: false,
};
const BLOB = {
  type: 'object',
  properties: {
    mimeType: { type: 'string', pattern: MIME },
    data: { type: 'string', contentEncoding: 'base64' },
  },
  required: ['mimeType', 'data'],
  additionalProperties: false,
};
const FILE = {
  ...BLOB,
  properties: { ...BLOB.properties, name: { type: 'string' }, lastModified: { type: 'integer' } },
  required: ['mimeType', 'data', 'name'],
};
const PIXEL = { mimeType: 'image/png', data: 'iVBORw0KGgo=', width: 1, height: 1 };
const BYTES = { mimeType: 'text/csv', data: 'YSxiCjEsMgo=' };
const URI = /^toolwire:\/\/[^/]+\/[^/]+\/[0-9a-f-]{36}/;

let host: Host | undefined;
let bridge: McpBridge | undefined;
const pages: FakePage[] = [];

afterEach(async () => {
  await bridge?.close();
  for (const page of pages.splice(0)) page.socket.terminate();
  await host?.close();
  host = bridge = undefined;
});

async function start(tools: ReturnType<typeof tool>[]) {
  host = await createHost({ origins: ['*'], maxToolPolicy: 'write' });
  const client = await mcpOverMemory(host);
  bridge = client.bridge;
  const { rpc } = client;
  const connected = await FakePage.connect(host.url, { tools });
  pages.push(connected);
  await host.waitForSession({ filter: (s) => s.info?.key === connected.key });
  // The page's tools, after the bridge's own three.
  const listed = (await rpc('tools/list')).result.tools.slice(3);
  const call = async (name: string) => (await rpc('tools/call', { name })).result;
  return { listed, call };
}

describe('MCP content of images and Blobs', () => {
  it('a declared image is image content, a Blob and a File embedded resources', async () => {
    const { listed, call } = await start([
      tool('demo.shot', () => PIXEL, { resultSchema: IMAGE }),
      tool('demo.export', () => BYTES, { resultSchema: BLOB }),
      tool('demo.file', () => ({ ...BYTES, name: 'a b.csv', lastModified: 1 }), {
        resultSchema: FILE,
      }),
    ]);
    // No outputSchema: MCP would then want structuredContent, a second copy of the bytes.
    for (const listedTool of listed) expect(listedTool).not.toHaveProperty('outputSchema');
    const shot = await call('demo_shot');
    expect(shot).toEqual({
      content: [{ type: 'image', data: PIXEL.data, mimeType: 'image/png' }],
      isError: false,
    });
    const exported = await call('demo_export');
    expect(exported.content).toHaveLength(1);
    expect(exported.content[0]).toMatchObject({
      type: 'resource',
      resource: { mimeType: 'text/csv', blob: BYTES.data },
    });
    const { uri } = exported.content[0].resource;
    expect(uri).toMatch(URI);
    expect(uri).toContain('/demo.export/');
    expect(exported).not.toHaveProperty('structuredContent');
    const file = await call('demo_file');
    expect(file.content[0].resource.uri).toMatch(/\/a%20b\.csv$/);
    // A URI per call.
    expect((await call('demo_export')).content[0].resource.uri).not.toBe(uri);
  });

  it('look-alike JSON from a tool without such a schema stays text and structured content', async () => {
    const { call } = await start([
      tool('hostile.plain', () => PIXEL),
      tool('hostile.object', () => PIXEL, { resultSchema: { type: 'object' } }),
      tool('hostile.blob', () => BYTES, {
        // The Blob's keys, but an open object: not the form of a Blob.
        resultSchema: { ...BLOB, additionalProperties: true },
      }),
    ]);
    expect((await call('hostile_plain')).content).toEqual([
      { type: 'text', text: JSON.stringify(PIXEL) },
    ]);
    const object = await call('hostile_object');
    expect(object.content).toEqual([{ type: 'text', text: JSON.stringify(PIXEL) }]);
    expect(object.structuredContent).toEqual(PIXEL);
    const blob = await call('hostile_blob');
    expect(blob.content).toEqual([{ type: 'text', text: JSON.stringify(BYTES) }]);
    expect(blob.structuredContent).toEqual(BYTES);
  });

  it('images and Blobs inside an object add their blocks after the JSON', async () => {
    const value = { caption: 'a chart', chart: PIXEL, pages: [BYTES, BYTES], note: PIXEL };
    const { listed, call } = await start([
      tool('demo.report', () => value, {
        resultSchema: {
          type: 'object',
          properties: {
            caption: { type: 'string' },
            chart: IMAGE,
            pages: { type: 'array', items: BLOB },
            // Not declared as an image: stays JSON only.
            note: { type: 'object' },
          },
        },
      }),
    ]);
    expect(listed[0].outputSchema).toMatchObject({ type: 'object' });
    const report = await call('demo_report');
    expect(report.structuredContent).toEqual(value);
    expect(report.content.map((block: any) => block.type)).toEqual([
      'text',
      'image',
      'resource',
      'resource',
    ]);
    expect(report.content[0].text).toBe(JSON.stringify(value));
    expect(report.content[2].resource.uri).toMatch(/#\/pages\/0$/);
    expect(report.content[3].resource.uri).toMatch(/#\/pages\/1$/);
  });

  it('bounds the blocks added for nested values', () => {
    const many = Array.from({ length: 20 }, () => PIXEL);
    const big = { mimeType: 'application/octet-stream', data: 'A'.repeat(17 * 1024 * 1024) };
    const answer = resultContent(
      { toolId: 't', success: true, message: null, evidence: null, result: { many, big } },
      {
        type: 'object',
        properties: { big: BLOB, many: { type: 'array', items: IMAGE } },
      },
      { sessionId: 's', toolId: 't' },
    );
    const content = answer.content as any[];
    // The JSON, then 16 of the 20 images; the 17 MiB Blob is over the budget on its own.
    expect(content).toHaveLength(17);
    expect(content.slice(1).every((block) => block.type === 'image')).toBe(true);
    expect((answer._meta as any)['toolwire/omitted']).toEqual([
      '/big',
      '/many/16',
      '/many/17',
      '/many/18',
      '/many/19',
    ]);
  });

  it('a value without the declared form is text (a native tool is not checked)', () => {
    const answer = resultContent(
      { toolId: 't', success: true, message: 'note', evidence: null, result: { data: 1 } },
      IMAGE,
      { sessionId: 's', toolId: 't' },
    );
    expect(answer.content).toEqual([
      { type: 'text', text: 'note' },
      { type: 'text', text: '{"data":1}' },
    ]);
  });

  it('recognises only the expanded forms, and ui.get_screenshot', () => {
    expect(binaryKindOf(IMAGE)).toBe('image');
    expect(binaryKindOf(BLOB)).toBe('blob');
    expect(binaryKindOf(FILE)).toBe('file');
    const screenshot = {
      ...IMAGE,
      properties: { ...IMAGE.properties, mimeType: { type: 'string', pattern: '^image/' } },
    };
    expect(binaryKindOf(screenshot)).toBe('image');
    expect(binaryKindOf({ ...IMAGE, additionalProperties: undefined })).toBeUndefined();
    expect(
      binaryKindOf({ ...IMAGE, properties: { ...IMAGE.properties, mimeType: { type: 'string' } } }),
    ).toBeUndefined();
    expect(
      binaryKindOf({ ...BLOB, properties: { ...BLOB.properties, data: { type: 'string' } } }),
    ).toBeUndefined();
    expect(
      binaryKindOf({ ...BLOB, properties: { ...BLOB.properties, extra: { type: 'string' } } }),
    ).toBeUndefined();
  });
});

describe('MCP annotations from the page', () => {
  it('passes idempotentHint, openWorldHint and the title through', async () => {
    const { listed } = await start([
      tool('demo.set', () => ({}), {
        name: 'Set the value',
        policy: 'write',
        annotations: { idempotentHint: true, openWorldHint: false },
      }),
      tool('demo.plain', () => ({}), { name: 'Plain' }),
    ]);
    const byName = Object.fromEntries(listed.map((t: any) => [t.name, t]));
    expect(byName.demo_set.title).toBe('Set the value');
    expect(byName.demo_set.annotations).toEqual({
      title: 'Set the value',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    // Hints the page did not set are left to MCP's defaults.
    expect(byName.demo_plain.annotations).toEqual({
      title: 'Plain',
      readOnlyHint: true,
      destructiveHint: false,
    });
  });
});
