// A page whose tools answer images and Blobs (e2e/mcp-content.e2e.ts, issue 16 item 9). The
// host's URL comes in the fragment as `#toolwire=<encoded ws URL>`.
import { connect } from '../../../packages/endpoint/src/index.js';
import { install } from '../../../packages/polyfill/src/index.js';

const fragment = new URLSearchParams(location.hash.slice(1));
const { toolManager } = install();
const readOnly = { readOnlyHint: true };

/** A 3x2 canvas: red on the left, blue on the right. */
function canvas(): OffscreenCanvas {
  const offscreen = new OffscreenCanvas(3, 2);
  const context = offscreen.getContext('2d') as OffscreenCanvasRenderingContext2D;
  context.fillStyle = '#f00';
  context.fillRect(0, 0, 2, 2);
  context.fillStyle = '#00f';
  context.fillRect(2, 0, 1, 2);
  return offscreen;
}

await toolManager.register({
  name: 'media.chart',
  naturalLanguageProperties: {
    title: 'Chart',
    description: 'A chart as ImageData.',
    annotations: readOnly,
    outputSchema: { webType: 'ImageData' },
  },
  execute: () =>
    (canvas().getContext('2d') as OffscreenCanvasRenderingContext2D).getImageData(0, 0, 3, 2),
});
await toolManager.register({
  name: 'media.export',
  naturalLanguageProperties: {
    title: 'Export',
    description: 'The table as a CSV Blob.',
    annotations: readOnly,
    outputSchema: { webType: 'Blob' },
  },
  execute: () => new Blob(['a,b\n1,2\n'], { type: 'text/csv' }),
});
await toolManager.register({
  name: 'media.report',
  naturalLanguageProperties: {
    description: 'A caption and a chart.',
    annotations: readOnly,
    outputSchema: {
      type: 'object',
      properties: { caption: { type: 'string' }, chart: { webType: 'ImageBitmap' } },
      required: ['caption', 'chart'],
    },
  },
  execute: async () => ({
    caption: 'red and blue',
    chart: await createImageBitmap(canvas()),
  }),
});
await toolManager.register({
  name: 'media.lookalike',
  naturalLanguageProperties: {
    description: 'JSON that looks like an image, declared as nothing.',
    annotations: readOnly,
  },
  execute: () => ({ mimeType: 'image/png', data: 'iVBORw0KGgo=' }),
});
await toolManager.register({
  name: 'media.set',
  naturalLanguageProperties: {
    title: 'Set the value',
    description: 'Sets the value, as often as asked.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  execute: () => ({ set: true }),
});

const session = connect({ url: fragment.get('toolwire') ?? '', guard: 'full-access' });
session.addEventListener('statuschange', () => {
  (document.getElementById('status') as HTMLElement).textContent = session.status;
});
