// @vitest-environment happy-dom
import { describe, expect, test } from 'vitest';
import { lift, lower } from '../src/index.js';
import { expectCode } from './support/expect-error.js';
import { loadFixture } from './support/fixtures.js';

// happy-dom has Blob, File, ImageData and canvas classes, but no canvas can draw: every
// image conversion must say so with a coded error instead of producing an empty PNG [I3].

const { png2x2 } = loadFixture('types/image.json') as unknown as { png2x2: { json: object } };

describe('images where no 2D canvas exists [I3]', () => {
  test('lowering an ImageData or a canvas element is unsupported_in_environment', async () => {
    await expectCode(
      lower(new ImageData(2, 2), { webType: 'ImageData' }),
      'unsupported_in_environment',
      '',
      '#',
    );
    const canvas = document.createElement('canvas');
    canvas.width = 2;
    canvas.height = 2;
    await expectCode(lower({ shot: canvas }), 'unsupported_in_environment', '/shot', '#');
  });

  test('lifting any image type is unsupported_in_environment', async () => {
    for (const webType of [
      'ImageBitmap',
      'ImageData',
      'HTMLCanvasElement',
      'OffscreenCanvas',
    ] as const) {
      await expectCode(lift(png2x2.json, { webType }), 'unsupported_in_environment', '', '#');
    }
  });

  test('Blob and File still work here', async () => {
    const json = await lower(new File(['hi'], 'a.txt', { type: 'text/plain', lastModified: 1 }));
    expect(json).toEqual({ mimeType: 'text/plain', data: 'aGk=', name: 'a.txt', lastModified: 1 });
    const file = (await lift(json, { webType: 'File' })) as File;
    expect(file.name).toBe('a.txt');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(new Uint8Array([104, 105]));
  });
});
