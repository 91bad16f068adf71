import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, type Page, test } from '@playwright/test';
import type { JsonSchema } from '../packages/lowering/src/index.js';

// @toolwire/lowering in Debian's Chromium: the parts Node cannot run. Blob and File bytes,
// and every image type through a real canvas and a real PNG codec (LOWERING.md §5), plus the
// browser's own base64 paths (no Buffer here).

declare global {
  interface Window {
    toolwireLowering: typeof import('../packages/lowering/src/index.js');
  }
}

interface Fixture {
  cases: {
    schema?: JsonSchema | null;
    direction?: string;
    json?: unknown;
    value?: string;
    error?: { code: string; path: string; schemaPath: string };
  }[];
  schema: JsonSchema;
  png2x2: { json: { data: string; width: number; height: number }; rgba: number[] };
}

const fixture = (name: string): Fixture =>
  JSON.parse(
    readFileSync(
      fileURLToPath(new URL(`../packages/lowering/test/fixtures/types/${name}`, import.meta.url)),
      'utf8',
    ),
  );

async function open(page: Page, query = ''): Promise<void> {
  await page.goto(`/e2e/pages/lowering.html${query}`);
  await expect(page.locator('#status')).toHaveText('ready');
}

test.beforeEach(async ({ page }) => open(page));

test('[T8] [T9] Blob and File keep bytes, type, name and lastModified', async ({ page }) => {
  const bytes = Array.from({ length: 256 }, (_, i) => i);
  const outcome = await page.evaluate(async (bytes) => {
    const { lower, lift } = window.toolwireLowering;
    const file = new File([new Uint8Array(bytes)], 'all-bytes.bin', {
      type: 'application/x-test',
      lastModified: 1_700_000_000_123,
    });
    const json = (await lower({ file, blob: new Blob(['hi']) })) as Record<string, unknown>;
    const schema = {
      type: 'object',
      properties: { file: { webType: 'File' }, blob: { webType: 'Blob' } },
    };
    const back = (await lift(json, schema)) as { file: File; blob: Blob };
    return {
      json,
      file: {
        isFile: back.file instanceof File,
        name: back.file.name,
        type: back.file.type,
        lastModified: back.file.lastModified,
        bytes: [...new Uint8Array(await back.file.arrayBuffer())],
      },
      blob: { type: back.blob.type, text: await back.blob.text() },
    };
  }, bytes);
  expect(outcome.json).toEqual({
    file: {
      mimeType: 'application/x-test',
      data: Buffer.from(bytes).toString('base64'),
      name: 'all-bytes.bin',
      lastModified: 1_700_000_000_123,
    },
    blob: { mimeType: 'application/octet-stream', data: 'aGk=' },
  });
  expect(outcome.file).toEqual({
    isFile: true,
    name: 'all-bytes.bin',
    type: 'application/x-test',
    lastModified: 1_700_000_000_123,
    bytes,
  });
  expect(outcome.blob).toEqual({ type: 'application/octet-stream', text: 'hi' });
});

/** A 3x2 opaque test card: six distinct colours. */
const CARD = [
  [255, 0, 0, 255],
  [0, 255, 0, 255],
  [0, 0, 255, 255],
  [255, 255, 0, 255],
  [0, 255, 255, 255],
  [17, 34, 51, 255],
].flat();

test('[I1] [I2] [I5] ImageData: a PNG record whose opaque pixels come back exactly, as each image type', async ({
  page,
}) => {
  const outcome = await page.evaluate(async (card) => {
    const { lower, lift } = window.toolwireLowering;
    const image = new ImageData(new Uint8ClampedArray(card), 3, 2);
    const json = (await lower(image, { webType: 'ImageData' })) as {
      mimeType: string;
      data: string;
      width: number;
      height: number;
    };
    const head = [...atob(json.data).slice(0, 8)].map((c) => c.charCodeAt(0));
    const pixels = async (value: unknown): Promise<number[]> => {
      if (value instanceof ImageData) return [...value.data];
      const canvas = new OffscreenCanvas(3, 2);
      const ctx = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
      ctx.drawImage(value as CanvasImageSource, 0, 0);
      return [...ctx.getImageData(0, 0, 3, 2).data];
    };
    const types = ['ImageData', 'ImageBitmap', 'OffscreenCanvas', 'HTMLCanvasElement'] as const;
    const lifted: Record<
      string,
      { kind: string; width: number; height: number; pixels: number[] }
    > = {};
    for (const webType of types) {
      const value = (await lift(json, { webType })) as { width: number; height: number };
      lifted[webType] = {
        kind: Object.prototype.toString.call(value).slice(8, -1),
        width: value.width,
        height: value.height,
        pixels: await pixels(value),
      };
    }
    return { record: { ...json, data: undefined }, head, lifted };
  }, CARD);
  expect(outcome.record).toEqual({ mimeType: 'image/png', width: 3, height: 2 });
  expect(outcome.head).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(outcome.lifted).toEqual({
    ImageData: { kind: 'ImageData', width: 3, height: 2, pixels: CARD },
    ImageBitmap: { kind: 'ImageBitmap', width: 3, height: 2, pixels: CARD },
    OffscreenCanvas: { kind: 'OffscreenCanvas', width: 3, height: 2, pixels: CARD },
    HTMLCanvasElement: { kind: 'HTMLCanvasElement', width: 3, height: 2, pixels: CARD },
  });
});

test('[I2] the golden PNG lifts to its known pixels in every image type', async ({ page }) => {
  const { png2x2 } = fixture('image.json');
  const pixels = await page.evaluate(async (json) => {
    const { lift } = window.toolwireLowering;
    const out: Record<string, number[]> = {};
    for (const webType of ['ImageData', 'ImageBitmap', 'OffscreenCanvas', 'HTMLCanvasElement']) {
      const value = await lift(json, { webType });
      if (value instanceof ImageData) {
        out[webType] = [...value.data];
        continue;
      }
      const canvas = new OffscreenCanvas(2, 2);
      const ctx = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
      ctx.drawImage(value as CanvasImageSource, 0, 0);
      out[webType] = [...ctx.getImageData(0, 0, 2, 2).data];
    }
    return out;
  }, png2x2.json);
  for (const webType of ['ImageData', 'ImageBitmap', 'OffscreenCanvas', 'HTMLCanvasElement']) {
    expect(pixels[webType], webType).toEqual(png2x2.rgba);
  }
});

test('[I1] every image source lowers: ImageBitmap, <canvas>, OffscreenCanvas, with no schema too', async ({
  page,
}) => {
  const outcome = await page.evaluate(async (card) => {
    const { lower, lift } = window.toolwireLowering;
    const paint = (ctx: CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D) =>
      ctx.putImageData(new ImageData(new Uint8ClampedArray(card), 3, 2), 0, 0);
    const element = document.createElement('canvas');
    element.width = 3;
    element.height = 2;
    paint(element.getContext('2d') as CanvasRenderingContext2D);
    const offscreen = new OffscreenCanvas(3, 2);
    paint(offscreen.getContext('2d') as OffscreenCanvasRenderingContext2D);
    const bitmap = await createImageBitmap(offscreen);
    const sources = { bitmap, element, offscreen };
    const schemas = {
      bitmap: { webType: 'ImageBitmap' },
      element: { webType: 'HTMLCanvasElement' },
      offscreen: { webType: 'OffscreenCanvas' },
    };
    const out: Record<string, { schema: number[]; runtime: number[] }> = {};
    for (const [name, source] of Object.entries(sources)) {
      const typed = await lower(source, schemas[name as keyof typeof schemas]);
      const runtime = await lower(source);
      const decode = async (json: unknown) => [
        ...((await lift(json, { webType: 'ImageData' })) as ImageData).data,
      ];
      out[name] = { schema: await decode(typed), runtime: await decode(runtime) };
    }
    return out;
  }, CARD);
  for (const name of ['bitmap', 'element', 'offscreen']) {
    expect(outcome[name], name).toEqual({ schema: CARD, runtime: CARD });
  }
});

test('[I5] translucent pixels keep alpha; colour moves only by premultiplication rounding', async ({
  page,
}) => {
  // [r, g, b, a]: alpha 128, 64 and 1 with colours that do not divide evenly, and alpha 0.
  const source = [
    [201, 103, 57, 128],
    [250, 13, 99, 64],
    [255, 128, 7, 1],
    [90, 80, 70, 0],
  ];
  const back = await page.evaluate(async (flat) => {
    const { lower, lift } = window.toolwireLowering;
    const json = await lower(new ImageData(new Uint8ClampedArray(flat), 4, 1));
    return [...((await lift(json, { webType: 'ImageData' })) as ImageData).data];
  }, source.flat());
  for (let i = 0; i < source.length; i++) {
    const [r, g, b, a] = source[i] as [number, number, number, number];
    const got = back.slice(i * 4, i * 4 + 4);
    expect(got[3], `alpha of pixel ${i}`).toBe(a);
    if (a === 0) continue; // A fully transparent pixel's colour is not kept (LOWERING.md [I5]).
    // A colour survives to within what a premultiplied 8-bit store can hold: 255 / alpha.
    const step = Math.ceil(255 / a);
    for (const [k, want] of [r, g, b].entries()) {
      expect(Math.abs((got[k] as number) - want), `channel ${k} of pixel ${i}`).toBeLessThanOrEqual(
        step,
      );
    }
  }
});

test('[I6] a closed ImageBitmap and an empty canvas are invalid_value; a tainted canvas is read_failed', async ({
  page,
}) => {
  const crossOrigin = new URL('/e2e/pages/lowering-pixel.png', page.url());
  crossOrigin.hostname = crossOrigin.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  const outcome = await page.evaluate(async (src) => {
    const { lower } = window.toolwireLowering;
    const code = (promise: Promise<unknown>) =>
      promise.then(
        () => 'resolved',
        (error: { code: string; cause?: { name?: string } }) =>
          `${error.code}${error.cause?.name ? `/${error.cause.name}` : ''}`,
      );
    const bitmap = await createImageBitmap(new ImageData(1, 1));
    bitmap.close();
    const empty = document.createElement('canvas');
    empty.width = 0;
    const image = new Image();
    image.src = src;
    await image.decode();
    const tainted = document.createElement('canvas');
    tainted.width = 2;
    tainted.height = 2;
    (tainted.getContext('2d') as CanvasRenderingContext2D).drawImage(image, 0, 0);
    return {
      closed: await code(lower(bitmap)),
      empty: await code(lower(empty)),
      tainted: await code(lower({ shot: tainted })),
    };
  }, crossOrigin.href);
  expect(outcome).toEqual({
    closed: 'invalid_value',
    empty: 'invalid_value',
    tainted: 'read_failed/SecurityError',
  });
});

test('[I4] lift checks the PNG before decoding, and refuses one that does not decode', async ({
  page,
}) => {
  const { png2x2 } = fixture('image.json');
  // Same signature and IHDR, broken image data: only the decoder can tell.
  const broken = Buffer.from(png2x2.json.data, 'base64');
  broken.fill(0, 37, 50);
  const outcome = await page.evaluate(
    async ({ good, broken }) => {
      const { lift } = window.toolwireLowering;
      const attempt = (json: unknown, webType = 'ImageData') =>
        lift(json, { webType }).then(
          () => 'resolved',
          (error: { code: string; path: string }) => `${error.code} ${error.path}`,
        );
      return {
        broken: await attempt({ ...good, data: broken }),
        brokenBitmap: await attempt({ ...good, data: broken }, 'ImageBitmap'),
        lies: await attempt({ ...good, width: 4, height: 4 }),
        bomb: await attempt({ ...good, width: 50_000, height: 50_000 }),
      };
    },
    { good: png2x2.json, broken: broken.toString('base64') },
  );
  expect(outcome).toEqual({
    broken: 'invalid_value /data',
    brokenBitmap: 'invalid_value /data',
    lies: 'invalid_value /data',
    bomb: 'binary_too_large ',
  });
});

for (const query of ['', '?legacy-base64']) {
  test(`[B1] [B2] binary fixtures in the browser${query ? ' through atob/btoa' : ''}`, async ({
    page,
  }) => {
    if (query) await open(page, query);
    const { cases, schema } = fixture('binary.json');
    const lifts = cases.filter((c) => c.direction !== 'lower' && c.schema !== null);
    const outcomes = await page.evaluate(
      async ({ lifts, schema }) => {
        const { lift, lower } = window.toolwireLowering;
        const native = typeof (Uint8Array as { fromBase64?: unknown }).fromBase64 === 'function';
        const results = [];
        for (const c of lifts) {
          results.push(
            await lift(c.json, c.schema ?? schema).then(
              (value) => {
                const v = value as ArrayBuffer | ArrayBufferView;
                const bytes =
                  v instanceof ArrayBuffer
                    ? new Uint8Array(v)
                    : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
                return { bytes: btoa(String.fromCharCode(...bytes)) };
              },
              (error: { code: string; path: string; schemaPath: string }) => ({
                error: { code: error.code, path: error.path, schemaPath: error.schemaPath },
              }),
            ),
          );
        }
        const big = new Uint8Array(1024 * 1024 + 1).map((_, i) => (i * 7919) % 251);
        const bigJson = (await lower(big)) as string;
        const bigBack = (await lift(bigJson, { webType: 'Uint8Array' })) as Uint8Array;
        return {
          native,
          results,
          lowered: [
            await lower(new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7]).subarray(2, 5)),
            await lower(new Float64Array([1])),
            await lower(new DataView(new Uint8Array([9, 8, 7, 6]).buffer, 1, 2)),
            await lower(new BigInt64Array([-1n])),
          ],
          big: bigBack.length === big.length && bigBack.every((b, i) => b === big[i]),
        };
      },
      { lifts, schema },
    );
    // The legacy page really runs without the TC39 methods.
    if (query) expect(outcomes.native).toBe(false);
    expect(outcomes.lowered).toEqual(['AgME', 'AAAAAAAA8D8=', 'CAc=', '//////////8=']);
    expect(outcomes.big).toBe(true);
    lifts.forEach((c, i) => {
      const got = outcomes.results[i];
      if (c.error) expect(got, JSON.stringify(c.json)).toEqual({ error: c.error });
      else expect(got, JSON.stringify(c.json)).toHaveProperty('bytes', c.json);
    });
  });
}
