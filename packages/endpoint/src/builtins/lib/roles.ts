/**
 * ARIA roles: the explicit `role` attribute (its first token) wins; otherwise the implicit role
 * of common HTML elements (HTML-AAM / html-aria), enough for forms, navigation, lists, tables
 * and dialogs. Elements without a meaningful role get `generic`.
 */

/** Roles that do not make a node worth reporting on their own (docs/style.md: compact tree). */
export const STRUCTURAL_ROLES: ReadonlySet<string> = new Set([
  'generic',
  'none',
  'presentation',
  'rowgroup',
]);

/** ARIA 1.2 "children presentational": descendant text is already in the node's name. */
export const PRESENTATIONAL_CHILDREN_ROLES: ReadonlySet<string> = new Set([
  'button',
  'checkbox',
  'img',
  'math',
  'menuitemcheckbox',
  'menuitemradio',
  'meter',
  'option',
  'progressbar',
  'radio',
  'scrollbar',
  'separator',
  'slider',
  'switch',
  'tab',
]);

/** ARIA 1.2 roles whose accessible name may come from their content (accname step 2F). */
export const NAME_FROM_CONTENT_ROLES: ReadonlySet<string> = new Set([
  'button',
  'cell',
  'checkbox',
  'columnheader',
  'gridcell',
  'heading',
  'link',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'radio',
  'row',
  'rowheader',
  'switch',
  'tab',
  'tooltip',
  'treeitem',
]);

/** Roles whose state is `checked` (aria-checked, or the native checkbox/radio state). */
export const CHECKABLE_ROLES: ReadonlySet<string> = new Set([
  'checkbox',
  'menuitemcheckbox',
  'menuitemradio',
  'radio',
  'switch',
]);

const TAG_ROLES: Readonly<Record<string, string>> = {
  article: 'article',
  aside: 'complementary',
  blockquote: 'blockquote',
  button: 'button',
  dialog: 'dialog',
  fieldset: 'group',
  figure: 'figure',
  form: 'form',
  h1: 'heading',
  h2: 'heading',
  h3: 'heading',
  h4: 'heading',
  h5: 'heading',
  h6: 'heading',
  hr: 'separator',
  li: 'listitem',
  main: 'main',
  menu: 'list',
  meter: 'meter',
  nav: 'navigation',
  ol: 'list',
  optgroup: 'group',
  option: 'option',
  output: 'status',
  p: 'paragraph',
  progress: 'progressbar',
  summary: 'button',
  table: 'table',
  tbody: 'rowgroup',
  textarea: 'textbox',
  tfoot: 'rowgroup',
  thead: 'rowgroup',
  tr: 'row',
  ul: 'list',
};

const INPUT_ROLES: Readonly<Record<string, string>> = {
  button: 'button',
  checkbox: 'checkbox',
  file: 'button',
  image: 'button',
  number: 'spinbutton',
  radio: 'radio',
  range: 'slider',
  reset: 'button',
  search: 'searchbox',
  submit: 'button',
};

// header/footer are landmarks only outside sectioning content (html-aria).
const SECTIONING = 'article, aside, main, nav, section';

function implicitRole(element: Element): string {
  const tag = element.localName;
  switch (tag) {
    case 'a':
    case 'area':
      return element.hasAttribute('href') ? 'link' : 'generic';
    case 'input': {
      const input = element as HTMLInputElement;
      const type = input.type;
      if (type === 'hidden') return 'none';
      const mapped = INPUT_ROLES[type];
      if (mapped) return mapped;
      // Text-like inputs (text, email, tel, url, password, dates...): a list makes a combobox.
      return element.hasAttribute('list') ? 'combobox' : 'textbox';
    }
    case 'select': {
      const select = element as HTMLSelectElement;
      return select.multiple || select.size > 1 ? 'listbox' : 'combobox';
    }
    case 'img':
      return element.getAttribute('alt') === '' ? 'presentation' : 'img';
    case 'svg':
      return element.hasAttribute('aria-label') || element.querySelector(':scope > title')
        ? 'img'
        : 'generic';
    case 'header':
      return element.parentElement?.closest(SECTIONING) ? 'generic' : 'banner';
    case 'footer':
      return element.parentElement?.closest(SECTIONING) ? 'generic' : 'contentinfo';
    case 'section':
      return element.hasAttribute('aria-label') || element.hasAttribute('aria-labelledby')
        ? 'region'
        : 'generic';
    case 'td':
      return 'cell';
    case 'th':
      return element.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
    default:
      if (
        element.getAttribute('contenteditable') === '' ||
        element.getAttribute('contenteditable') === 'true' ||
        element.getAttribute('contenteditable') === 'plaintext-only'
      )
        return 'textbox';
      return TAG_ROLES[tag] ?? 'generic';
  }
}

/** The element's role: the first token of `role`, else its implicit role. */
export function roleOf(element: Element): string {
  const explicit = element.getAttribute('role')?.trim().toLowerCase().split(/\s+/)[0];
  return explicit ? explicit : implicitRole(element);
}
