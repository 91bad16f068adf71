import { describe, expect, test, vi } from 'vitest';
import { DEFAULT_LIMITS, lift, lower } from '../src/index.js';
import { expectCode } from './support/expect-error.js';

// The limits of LOWERING.md §6 that hostile.test.ts does not already drive to breaking point.

const utf8 = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('maxJsonBytes is the exact UTF-8 size of the JSON text [X2]', () => {
  // Two-, four- and six-byte characters on the wire put the limit between the walk's bounds,
  // so the text gets measured: the answer must be exact to the byte.
  const value = { text: 'é😀\u0001'.repeat(50), list: [1.25, -3e-7, true, null], '"key"': 'x' };
  const size = utf8(value);

  test('exactly at the limit passes; one byte under it fails, both ways', async () => {
    expect(await lower(value, undefined, { maxJsonBytes: size })).toEqual(value);
    await expectCode(
      lower(value, undefined, { maxJsonBytes: size - 1 }),
      'json_too_large',
      '',
      '#',
    );
    expect(await lift(value, {}, { maxJsonBytes: size })).toEqual(value);
    await expectCode(lift(value, {}, { maxJsonBytes: size - 1 }), 'json_too_large');
  });

  test('binary data counts as its base64 text', async () => {
    const bytes = new Uint8Array(300);
    const json = { data: bytes };
    const exact = utf8({ data: Buffer.from(bytes).toString('base64') });
    expect(await lower(json, undefined, { maxJsonBytes: exact })).toEqual({
      data: 'A'.repeat(400),
    });
    await expectCode(lower(json, undefined, { maxJsonBytes: exact - 1 }), 'json_too_large');
    const blob = { b: new Blob([bytes], { type: 'application/x-a' }) };
    const blobSize = utf8({ b: { mimeType: 'application/x-a', data: 'A'.repeat(400) } });
    expect(await lower(blob, undefined, { maxJsonBytes: blobSize })).toBeTruthy();
    await expectCode(lower(blob, undefined, { maxJsonBytes: blobSize - 1 }), 'json_too_large');
  });

  test('a walk stops as soon as the size must be over, with the path where it noticed', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ i, name: 'x'.repeat(100) }));
    const error = await expectCode(
      lower({ rows }, undefined, { maxJsonBytes: 10_000 }),
      'json_too_large',
    );
    expect(error.path).toMatch(/^\/rows\/\d+$/);
    expect(Number(error.path.split('/')[2])).toBeLessThan(200);
  });

  test('the text is measured only when the bounds disagree', async () => {
    const spy = vi.spyOn(JSON, 'stringify');
    await lower({ ascii: 'plain text' }, undefined, { maxJsonBytes: 10_000 });
    expect(spy).not.toHaveBeenCalled();
    await lower(value, undefined, { maxJsonBytes: size });
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });
});

describe('limits are options with defaults [X5]', () => {
  test('the defaults', () => {
    expect(DEFAULT_LIMITS).toEqual({
      maxDepth: 128,
      maxJsonBytes: 64 * 1024 * 1024,
      maxBinaryBytes: 32 * 1024 * 1024,
    });
    expect(Object.isFrozen(DEFAULT_LIMITS)).toBe(true);
  });

  test('a limit that is not a positive integer, or maxDepth over 1000, is a RangeError', async () => {
    for (const options of [
      { maxDepth: 0 },
      { maxDepth: 1001 },
      { maxDepth: 1.5 },
      { maxJsonBytes: -1 },
      { maxBinaryBytes: Number.NaN },
      { maxJsonBytes: Number.POSITIVE_INFINITY },
    ]) {
      await expect(lower(1, undefined, options)).rejects.toBeInstanceOf(RangeError);
      await expect(lift(1, {}, options)).rejects.toBeInstanceOf(RangeError);
    }
    expect(await lower([[1]], undefined, { maxDepth: 1000 })).toEqual([[1]]);
  });
});

describe('byte order [B4]', () => {
  test('a big-endian host refuses multi-byte elements and keeps bytes', async () => {
    vi.resetModules();
    vi.doMock('../src/lib/endian.js', () => ({ LITTLE_ENDIAN: false }));
    const fresh = await import('../src/index.js');
    // The fresh module graph has its own LoweringError class: match on the coded fields.
    const code = (promise: Promise<unknown>) =>
      promise.then(
        () => 'resolved',
        (error: { code: string }) => error.code,
      );
    expect(await code(fresh.lower(new Uint16Array([1]), { webType: 'Uint16Array' }))).toBe(
      'unsupported_in_environment',
    );
    expect(await code(fresh.lift('AQA=', { webType: 'Float32Array' }))).toBe('invalid_value');
    expect(await code(fresh.lift('AQAAAA==', { webType: 'Float32Array' }))).toBe(
      'unsupported_in_environment',
    );
    expect(await fresh.lower(new Uint8Array([1]), { webType: 'Uint8Array' })).toBe('AQ==');
    expect(await fresh.lift('AQ==', { webType: 'DataView' })).toBeInstanceOf(DataView);
    vi.doUnmock('../src/lib/endian.js');
    vi.resetModules();
  });
});
