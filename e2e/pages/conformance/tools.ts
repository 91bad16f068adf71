// The page tools the official MCP conformance suite calls by name (its server scenarios, as
// `@modelcontextprotocol/conformance` describes them), written as a page writes tools:
// e2e/mcp-conformance.e2e.ts connects this page to a real `toolwire host` and runs the suite
// against the host's `/mcp`. The host's URL comes in the fragment: `#toolwire=<encoded ws URL>`.
import { connect } from '../../../packages/endpoint/src/index.js';
import { install } from '../../../packages/polyfill/src/index.js';

const fragment = new URLSearchParams(location.hash.slice(1));
const { toolManager } = install();
const readOnly = { readOnlyHint: true };

interface Context {
  reportProgress?: (progress: number, total?: number, message?: string) => void;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A 1x1 red pixel: an ImageData, which reaches MCP as a PNG image block. */
function redPixel(): ImageData {
  const canvas = new OffscreenCanvas(1, 1);
  const context = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
  context.fillStyle = '#f00';
  context.fillRect(0, 0, 1, 1);
  return context.getImageData(0, 0, 1, 1);
}

await toolManager.register({
  name: 'test_simple_text',
  naturalLanguageProperties: { description: 'Answers a line of text.', annotations: readOnly },
  execute: () => 'This is a simple text response for testing.',
});
await toolManager.register({
  name: 'test_image_content',
  naturalLanguageProperties: {
    description: 'Answers a 1x1 red pixel as an image.',
    annotations: readOnly,
    outputSchema: { webType: 'ImageData' },
  },
  execute: () => redPixel(),
});
await toolManager.register({
  name: 'test_embedded_resource',
  naturalLanguageProperties: {
    description: 'Answers a text/plain Blob, which MCP receives as an embedded resource.',
    annotations: readOnly,
    outputSchema: { webType: 'Blob' },
  },
  execute: () => new Blob(['This is an embedded resource content.'], { type: 'text/plain' }),
});
await toolManager.register({
  name: 'test_multiple_content_types',
  naturalLanguageProperties: {
    description: 'Answers text, an image and a JSON Blob in one object.',
    annotations: readOnly,
    outputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string' },
        image: { webType: 'ImageData' },
        resource: { webType: 'Blob' },
      },
      required: ['text', 'image', 'resource'],
    },
  },
  execute: () => ({
    text: 'Multiple content types test:',
    image: redPixel(),
    resource: new Blob([JSON.stringify({ test: 'data', value: 123 })], {
      type: 'application/json',
    }),
  }),
});
await toolManager.register({
  name: 'test_error_handling',
  naturalLanguageProperties: { description: 'Always fails.', annotations: readOnly },
  execute: () => {
    throw new Error('This tool intentionally returns an error for testing');
  },
});
await toolManager.register({
  name: 'test_tool_with_progress',
  naturalLanguageProperties: {
    description: 'Reports progress 0, 50 and 100 of 100, about 50 ms apart.',
    annotations: readOnly,
  },
  execute: async (_input: unknown, context: Context) => {
    context.reportProgress?.(0, 100);
    await pause(50);
    context.reportProgress?.(50, 100);
    await pause(50);
    context.reportProgress?.(100, 100);
    return 'Progress reported: 0, 50 and 100 of 100.';
  },
});
await toolManager.register({
  name: 'json_schema_2020_12_tool',
  naturalLanguageProperties: {
    description: 'Tool with JSON Schema 2020-12 features',
    annotations: readOnly,
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  },
  execute: (input: unknown) => ({ received: input }),
});
await toolManager.register({
  name: 'test_reconnection',
  naturalLanguageProperties: {
    description: 'Answers at once (the SSE polling scenario calls it).',
    annotations: readOnly,
  },
  execute: () => 'Reconnection test answered.',
});

const session = connect({ url: fragment.get('toolwire') ?? '', guard: 'full-access' });
session.addEventListener('statuschange', () => {
  (document.getElementById('status') as HTMLElement).textContent = session.status;
});
