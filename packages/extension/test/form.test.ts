// @vitest-environment happy-dom
/**
 * The panel's form generator (app/panel/form.ts) and result view (app/panel/result.ts):
 * controls from a schema, typed reads, required fields, the JSON fallback, and page strings
 * that stay text.
 */
import { describe, expect, it } from 'vitest';
import { buildForm } from '../app/panel/form.js';
import { findBinaries, prettyJson, renderResult } from '../app/panel/result.js';

const SCHEMA = {
  type: 'object',
  properties: {
    sku: { type: 'string', description: 'The item code' },
    qty: { type: 'integer' },
    price: { type: 'number' },
    gift: { type: 'boolean' },
    size: { enum: ['S', 'M', 3] },
    meta: { type: 'object' },
    when: { webType: 'Date' },
  },
  required: ['sku', 'qty'],
};

function field(form: { element: HTMLElement }, name: string) {
  return form.element.querySelector(`[data-field="${name}"]`) as HTMLInputElement;
}

describe('buildForm', () => {
  it('lays out one control per property and reads typed values', () => {
    const form = buildForm(document, SCHEMA);
    expect(form.jsonOnly).toBe(false);
    expect(field(form, 'sku').type).toBe('text');
    expect(field(form, 'qty').type).toBe('number');
    expect(field(form, 'gift').type).toBe('checkbox');
    expect(field(form, 'size').tagName).toBe('SELECT');
    expect(field(form, 'meta').tagName).toBe('TEXTAREA');
    expect([...form.element.querySelectorAll('label')].map((l) => l.textContent)).toEqual([
      'sku *',
      'qty *',
      'price',
      'gift',
      'size',
      'meta',
      'when',
    ]);
    expect(field(form, 'when').type).toBe('text');
    field(form, 'sku').value = 'A-1';
    field(form, 'qty').value = '2';
    field(form, 'price').value = '9.5';
    field(form, 'gift').checked = true;
    (field(form, 'size') as unknown as HTMLSelectElement).value = '2';
    field(form, 'meta').value = '{"a": [1]}';
    field(form, 'when').value = '2026-01-02T00:00:00Z';
    expect(form.read()).toEqual({
      ok: true,
      value: {
        sku: 'A-1',
        qty: 2,
        price: 9.5,
        gift: true,
        size: 3,
        meta: { a: [1] },
        when: '2026-01-02T00:00:00Z',
      },
    });
  });

  it('refuses a missing required field, a fraction for an integer, and bad JSON', () => {
    const form = buildForm(document, SCHEMA);
    expect(form.read()).toEqual({ ok: false, message: 'sku is required' });
    field(form, 'sku').value = 'A-1';
    field(form, 'qty').value = '1.5';
    expect(form.read()).toEqual({ ok: false, message: 'qty: not an integer' });
    field(form, 'qty').value = '1';
    field(form, 'meta').value = '{nope';
    expect(form.read()).toEqual({ ok: false, message: 'meta: not valid JSON' });
    field(form, 'meta').value = '';
    expect(form.read()).toEqual({ ok: true, value: { sku: 'A-1', qty: 1, gift: false } });
  });

  it('falls back to a JSON editor for schemas it cannot lay out', () => {
    for (const schema of [undefined, { type: 'array' }, { anyOf: [] }, 'junk']) {
      const form = buildForm(document, schema);
      expect(form.jsonOnly).toBe(true);
      const area = form.element.querySelector('textarea') as HTMLTextAreaElement;
      area.value = '{"x": 1}';
      expect(form.read()).toEqual({ ok: true, value: { x: 1 } });
      area.value = '';
      expect(form.read()).toEqual({ ok: true, value: {} });
    }
  });

  it('keeps page strings as text and property names as plain data', () => {
    const form = buildForm(
      document,
      JSON.parse(
        '{"type":"object","properties":{"<img src=x onerror=alert(1)>":{"type":"string","description":"<b>bold</b>"},"__proto__":{"type":"string"}}}',
      ),
    );
    expect(form.element.querySelector('img, b')).toBeNull();
    expect(form.element.textContent).toContain('<b>bold</b>');
    const inputs = form.element.querySelectorAll('input');
    expect(inputs).toHaveLength(2);
    (inputs[0] as HTMLInputElement).value = 'a';
    (inputs[1] as HTMLInputElement).value = 'b';
    const read = form.read();
    if (!read.ok) throw new Error(read.message);
    const value = read.value as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['<img src=x onerror=alert(1)>', '__proto__']);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe('{"<img src=x onerror=alert(1)>":"a","__proto__":"b"}');
  });
});

describe('renderResult', () => {
  const png = { mimeType: 'image/png', data: 'iVBORw0KGgo=', width: 1, height: 1 };
  it('shows lowered images as images, blobs as downloads, and pretty JSON', () => {
    const view = renderResult(document, {
      chart: png,
      file: { mimeType: 'text/html', data: 'PGI+', name: '../x.html' },
    });
    expect(view.querySelector('img')?.getAttribute('src')).toBe(
      `data:image/png;base64,${png.data}`,
    );
    const link = view.querySelector('a') as HTMLAnchorElement;
    expect(link.download).toBe('.._x.html');
    expect(view.querySelector('pre')?.textContent).toContain('"width": 1');
  });

  it('never makes an image of a non-image type or of data that is not base64', () => {
    expect(findBinaries({ mimeType: 'image/svg+xml', data: 'PHN2Zz4=' })[0]?.image).toBe(false);
    expect(findBinaries({ mimeType: 'image/png', data: 'a"b' })).toEqual([]);
    const view = renderResult(document, '<script>alert(1)</script>');
    expect(view.querySelector('script')).toBeNull();
    expect(prettyJson({ data: 'A'.repeat(200) })).toContain('(200 base64 characters)');
  });
});
