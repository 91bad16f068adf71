// @vitest-environment happy-dom
// When the form-tools chunk starts (src/declarative/gate.ts): a tool form, or an open shadow
// root that may hold one, starts it; the endpoint's pairing prompt (an open shadow root of its
// own, shown on every page that pairs) does not, so pairing fetches no form-tools chunk.
import { Window as HappyWindow } from 'happy-dom';
import { afterEach, describe, expect, it } from 'vitest';
import { watchForms } from '../src/declarative/gate.js';

const windows: HappyWindow[] = [];
afterEach(async () => {
  for (const win of windows.splice(0)) await win.happyDOM.close();
});

/**
 * A fresh document, watched. `add(node)` appends to the body and resolves with the starts so
 * far once the gate has seen the change: an observer made after the gate's is told after it.
 */
function watched() {
  const win = new HappyWindow({ url: 'https://shop.example/' });
  windows.push(win);
  let starts = 0;
  watchForms(win as unknown as Window & typeof globalThis, () => {
    starts += 1;
  });
  const doc = win.document as unknown as Document;
  const add = (node: Node) =>
    new Promise<number>((resolve) => {
      const after = new win.MutationObserver(() => {
        after.disconnect();
        resolve(starts);
      });
      after.observe(win.document, { subtree: true, childList: true });
      doc.body.append(node);
    });
  return { doc, add };
}

function withShadow(doc: Document, tag: string): HTMLElement {
  const element = doc.createElement(tag);
  element.attachShadow({ mode: 'open' }).append(doc.createElement('p'));
  return element;
}

describe('the form-tools gate', () => {
  it('starts for a tool form and for a page element with an open shadow root', async () => {
    const form = watched();
    const element = form.doc.createElement('form');
    element.setAttribute('toolname', 'search');
    expect(await form.add(element)).toBe(1);

    const shadow = watched();
    expect(await shadow.add(withShadow(shadow.doc, 'shop-cart'))).toBe(1);
  });

  it("does not start for the endpoint's pairing prompt, nor for one nested in the page", async () => {
    const { doc, add } = watched();
    expect(await add(withShadow(doc, 'toolwire-pairing'))).toBe(0);
    const wrapper = doc.createElement('div');
    wrapper.append(withShadow(doc, 'toolwire-pairing'));
    expect(await add(wrapper)).toBe(0);
    // Still watching: a page's own shadow root starts it.
    expect(await add(withShadow(doc, 'shop-cart'))).toBe(1);
  });
});
