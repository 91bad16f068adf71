/**
 * The accessible name, after accname 1.2 / HTML-AAM, simplified for a compact tree:
 *
 * 1. `aria-labelledby` (the referenced elements' `aria-label` or text, even when hidden);
 * 2. `aria-label`;
 * 3. the native label: `<label>` elements (`for=` and wrapping; the control's own text is left
 *    out), `value` of input buttons, `alt` of images, `<legend>`, `<caption>`, `<figcaption>`,
 *    an SVG `<title>`;
 * 4. content, for roles that take their name from content (button, link, heading, cell...);
 * 5. `title`, then `placeholder`.
 *
 * Content comes before `title` as accname orders it (2F before 2I), so `<button title="Close
 * dialog">X</button>` is named "X" and the title stays a tooltip. Landmarks, lists and forms never
 * take their name from content: their whole text would be the name. Bounded to 200 characters.
 */
import { NAME_FROM_CONTENT_ROLES } from './roles.js';
import { clean, contentText } from './text.js';

const INPUT_BUTTON_DEFAULTS: Readonly<Record<string, string>> = {
  submit: 'Submit',
  reset: 'Reset',
  image: 'Submit',
};

const LABELABLE: ReadonlySet<string> = new Set([
  'button',
  'input',
  'meter',
  'output',
  'progress',
  'select',
  'textarea',
]);

function byIdList(element: Element, attribute: string): Element[] {
  const ids = element.getAttribute(attribute)?.trim().split(/\s+/) ?? [];
  const found: Element[] = [];
  for (const id of ids) {
    const target = id ? element.ownerDocument.getElementById(id) : null;
    if (target) found.push(target);
  }
  return found;
}

/** `<label>` elements of a labelable control: `control.labels` when the DOM has it. */
function labelsOf(element: Element): Element[] {
  if (!LABELABLE.has(element.localName)) return [];
  if (element.localName === 'input' && (element as HTMLInputElement).type === 'hidden') return [];
  const native = (element as HTMLInputElement).labels;
  if (native) return Array.from(native);
  const labels: Element[] = [];
  const wrapping = element.closest('label');
  if (wrapping && !wrapping.hasAttribute('for')) labels.push(wrapping);
  if (element.id) {
    for (const label of element.ownerDocument.querySelectorAll('label[for]'))
      if (label.getAttribute('for') === element.id && !labels.includes(label)) labels.push(label);
  }
  return labels;
}

function nativeLabel(element: Element): string | undefined {
  const labels = labelsOf(element);
  if (labels.length > 0) {
    const text = clean(labels.map((label) => contentText(label, element)).join(' '));
    if (text) return text;
  }
  const tag = element.localName;
  if (tag === 'input') {
    const input = element as HTMLInputElement;
    if (input.type === 'image') return clean(input.getAttribute('alt') ?? input.value);
    if (input.type === 'button' || input.type === 'submit' || input.type === 'reset')
      return clean(input.value) ?? INPUT_BUTTON_DEFAULTS[input.type];
    return undefined;
  }
  if (tag === 'img' || tag === 'area') return clean(element.getAttribute('alt'));
  if (tag === 'option' && element.hasAttribute('label'))
    return clean(element.getAttribute('label'));
  const caption =
    tag === 'fieldset'
      ? ':scope > legend'
      : tag === 'table'
        ? ':scope > caption'
        : tag === 'figure'
          ? ':scope > figcaption'
          : tag === 'svg'
            ? ':scope > title'
            : null;
  const captionElement = caption ? element.querySelector(caption) : null;
  return captionElement ? clean(contentText(captionElement)) : undefined;
}

export interface ComputedName {
  name: string | undefined;
  /** True when the name is the element's own content (its text is then not repeated below it). */
  fromContent: boolean;
}

export function computeName(element: Element, role: string): ComputedName {
  const labelledBy = byIdList(element, 'aria-labelledby');
  if (labelledBy.length > 0) {
    const text = clean(
      labelledBy
        .map((target) => target.getAttribute('aria-label')?.trim() || contentText(target))
        .join(' '),
    );
    if (text) return { name: text, fromContent: false };
  }
  const ariaLabel = clean(element.getAttribute('aria-label'));
  if (ariaLabel) return { name: ariaLabel, fromContent: false };
  const native = nativeLabel(element);
  if (native) return { name: native, fromContent: false };
  if (NAME_FROM_CONTENT_ROLES.has(role)) {
    const content = clean(contentText(element));
    if (content) return { name: content, fromContent: true };
  }
  const fallback =
    clean(element.getAttribute('title')) ?? clean(element.getAttribute('placeholder'));
  return { name: fallback, fromContent: false };
}
