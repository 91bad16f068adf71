import { encodeBase64 } from '../base64.js';
import { Pending } from '../pending.js';
import { countKeys, field, liftRecord, stringField } from '../record.js';
import type { WalkState } from '../walk-state.js';
import { liftBase64 } from './base64-text.js';

/**
 * ImageBitmap, ImageData, HTMLCanvasElement, OffscreenCanvas <-> `{mimeType: "image/png",
 * data, width, height}`. PNG because it is lossless and every decoder reads it. Encoding
 * draws into a 2D canvas (OffscreenCanvas, else a <canvas>) and asks it for PNG; decoding is
 * `createImageBitmap` of the PNG. Where no 2D canvas exists (Node, happy-dom) both directions
 * fail with `unsupported_in_environment`.
 */

export type ImageName = 'ImageBitmap' | 'ImageData' | 'HTMLCanvasElement' | 'OffscreenCanvas';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

interface Canvas2D {
  ctx: CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;
  png(): Promise<Blob | null>;
}

export function imageTypeOf(value: object): ImageName | undefined {
  if (typeof ImageBitmap === 'function' && value instanceof ImageBitmap) return 'ImageBitmap';
  if (typeof ImageData === 'function' && value instanceof ImageData) return 'ImageData';
  if (typeof OffscreenCanvas === 'function' && value instanceof OffscreenCanvas) {
    return 'OffscreenCanvas';
  }
  if (typeof HTMLCanvasElement === 'function' && value instanceof HTMLCanvasElement) {
    return 'HTMLCanvasElement';
  }
  return undefined;
}

/** A working 2D canvas, or undefined. happy-dom has canvas classes whose getContext is null. */
function makeCanvas(width: number, height: number): Canvas2D | undefined {
  if (typeof OffscreenCanvas === 'function') {
    try {
      const canvas = new OffscreenCanvas(width, height);
      const ctx = canvas.getContext('2d');
      if (ctx && typeof canvas.convertToBlob === 'function') {
        return { ctx, png: () => canvas.convertToBlob({ type: 'image/png' }) };
      }
    } catch {
      // Fall through to a <canvas>.
    }
  }
  if (typeof document === 'object' && document !== null && 'createElement' in document) {
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const ctx = canvas.getContext('2d');
    if (ctx) return { ctx, png: () => canvasPng(canvas) };
  }
  return undefined;
}

/** Probed once per realm: whether a canvas can draw does not change while a page runs. */
let canvasProbe: boolean | undefined;
function hasCanvas(): boolean {
  canvasProbe ??= makeCanvas(1, 1) !== undefined;
  return canvasProbe;
}

function canvasPng(canvas: HTMLCanvasElement): Promise<Blob | null> {
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
}

/** Width and height from a PNG's IHDR chunk, or undefined when the bytes are not a PNG. */
function pngSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes.length < 24) return undefined;
  for (let i = 0; i < 8; i++) if (bytes[i] !== PNG_SIGNATURE[i]) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // IHDR is the first chunk: length 13 at byte 8, its type at 12, then width and height.
  if (view.getUint32(8) !== 13 || view.getUint32(12) !== 0x49484452) return undefined;
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

export function lowerImage(
  name: ImageName,
  value: ImageBitmap | ImageData | HTMLCanvasElement | OffscreenCanvas,
  w: WalkState,
  depth: number,
  at: string,
): Record<string, unknown> {
  const { width, height } = value;
  if (!(width >= 1 && height >= 1)) {
    // A closed ImageBitmap and a 0x0 canvas alike: PNG has no empty image.
    w.fail('invalid_value', `${name} has no pixels (${width}x${height}).`, at);
  }
  w.checkBinary(width * height * 4, at, `${name} pixels`);
  if (!hasCanvas()) {
    w.fail('unsupported_in_environment', `No 2D canvas here to encode ${name} as PNG.`, at);
  }
  w.enter(value, depth, at);
  countKeys(w, ['mimeType', 'data', 'width', 'height']);
  w.exact += 'image/png'.length;
  w.items += 3;
  const record: Record<string, unknown> = { mimeType: 'image/png', data: '', width, height };
  const path = w.capture();
  w.tasks.push(async () => {
    let png: Uint8Array | undefined;
    try {
      png = await encodePng(name, value, width, height);
    } catch (error) {
      // A tainted canvas (cross-origin pixels) throws SecurityError here.
      w.resume(path);
      w.fail('read_failed', `Encoding ${name} as PNG failed.`, at, error);
    }
    w.resume([...path, 'data']);
    const size = png && pngSize(png);
    if (!png || size?.width !== width || size.height !== height) {
      w.fail('unsupported_in_environment', `The canvas did not produce a PNG of ${name}.`, at);
    }
    w.checkBinary(png.byteLength, at, 'PNG');
    const data = encodeBase64(png);
    w.addExact(data.length, at);
    record.data = data;
  });
  return record;
}

async function encodePng(
  name: ImageName,
  value: ImageBitmap | ImageData | HTMLCanvasElement | OffscreenCanvas,
  width: number,
  height: number,
): Promise<Uint8Array | undefined> {
  let blob: Blob | null;
  if (name === 'OffscreenCanvas') {
    blob = await (value as OffscreenCanvas).convertToBlob({ type: 'image/png' });
  } else if (name === 'HTMLCanvasElement') {
    blob = await canvasPng(value as HTMLCanvasElement);
  } else {
    const canvas = makeCanvas(width, height);
    if (!canvas) return undefined;
    if (name === 'ImageData') canvas.ctx.putImageData(value as ImageData, 0, 0);
    else canvas.ctx.drawImage(value as ImageBitmap, 0, 0);
    blob = await canvas.png();
  }
  return blob ? new Uint8Array(await blob.arrayBuffer()) : undefined;
}

export function liftImage(
  name: ImageName,
  value: unknown,
  w: WalkState,
  depth: number,
  at: string,
): unknown {
  const rule = `${at}/webType`;
  const record = liftRecord(value, w, depth, at, name, ['mimeType', 'data', 'width', 'height']);
  field(w, 'mimeType', () => {
    if (stringField(w, record.mimeType, rule, 'mimeType') !== 'image/png') {
      w.fail('invalid_value', 'Images travel as image/png.', rule);
    }
  });
  const dimension = (key: 'width' | 'height'): number =>
    field(w, key, () => {
      const n = record[key];
      if (typeof n !== 'number') w.fail('type_mismatch', `${key} is a number.`, rule);
      if (!Number.isSafeInteger(n) || n < 1) {
        w.fail('invalid_value', `${key} is a positive integer.`, rule);
      }
      w.items++;
      return n;
    });
  const width = dimension('width');
  const height = dimension('height');
  // A small PNG can declare a huge canvas: bound the pixels before decoding anything.
  w.checkBinary(width * height * 4, rule, `${name} pixels`);
  const bytes = field(w, 'data', () => {
    const png = liftBase64(record.data, w, at, 'PNG');
    const size = pngSize(png);
    if (!size) w.fail('invalid_value', 'data is not a PNG.', rule);
    if (size.width !== width || size.height !== height) {
      w.fail(
        'invalid_value',
        `The PNG is ${size.width}x${size.height}, not ${width}x${height}.`,
        rule,
      );
    }
    return png;
  });
  if (!hasCanvas() || typeof createImageBitmap !== 'function' || !canMake(name)) {
    w.fail('unsupported_in_environment', `No 2D canvas here to decode a PNG into ${name}.`, at);
  }
  const path = w.capture();
  const decode = async (): Promise<ImageBitmap> => {
    let bitmap: ImageBitmap;
    try {
      bitmap = await createImageBitmap(
        new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'image/png' }),
        {
          premultiplyAlpha: 'none',
          colorSpaceConversion: 'none',
        },
      );
    } catch (error) {
      w.resume([...path, 'data']);
      w.fail('invalid_value', 'The PNG does not decode.', rule, error);
    }
    return bitmap;
  };
  const draw = async (ctx: Canvas2D['ctx'] | null): Promise<void> => {
    const bitmap = await decode();
    ctx?.drawImage(bitmap, 0, 0);
    bitmap.close();
  };
  // ImageBitmap has no synchronous constructor, so it is a Pending until decoded; the others
  // exist at once (their identity is already placed in the result) and are painted later.
  switch (name) {
    case 'ImageBitmap': {
      const pending = new Pending();
      w.tasks.push(async () => {
        const bitmap = await decode();
        for (const fill of pending.fill) fill(bitmap);
      });
      return pending;
    }
    case 'ImageData': {
      const image = new ImageData(width, height);
      w.tasks.push(async () => {
        const canvas = makeCanvas(width, height) as Canvas2D;
        await draw(canvas.ctx);
        image.data.set(canvas.ctx.getImageData(0, 0, width, height).data);
      });
      return image;
    }
    case 'OffscreenCanvas': {
      const canvas = new OffscreenCanvas(width, height);
      w.tasks.push(() => draw(canvas.getContext('2d')));
      return canvas;
    }
    case 'HTMLCanvasElement': {
      const canvas = document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      w.tasks.push(() => draw(canvas.getContext('2d')));
      return canvas;
    }
  }
}

function canMake(name: ImageName): boolean {
  if (name === 'ImageData') return typeof ImageData === 'function';
  if (name === 'OffscreenCanvas') return typeof OffscreenCanvas === 'function';
  if (name === 'HTMLCanvasElement') return typeof document === 'object' && document !== null;
  return true;
}
