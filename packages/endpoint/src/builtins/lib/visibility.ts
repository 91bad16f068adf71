/**
 * Whether a node is hidden, and whether it is enabled, as a user would judge it.
 *
 * - Hidden **with its whole subtree** (`isHiddenSelf`): the `hidden` attribute,
 *   `aria-hidden="true"`, `<input type="hidden">`, the content of a closed `<details>`, or a
 *   computed `display: none`. No descendant can undo these.
 * - Hidden **by itself** (`isVisibilityHidden`): computed `visibility: hidden | collapse`. It is
 *   inherited, but a descendant may set `visibility: visible` again, so the walk goes on below.
 * - Geometry is not consulted: a zero-sized or scrolled-away node is still "visible" (happy-dom
 *   has no layout, and scrolled-away content is one `scrollIntoView` from the user).
 */

function styleOf(element: Element): CSSStyleDeclaration | undefined {
  const view = element.ownerDocument.defaultView;
  if (!view || typeof view.getComputedStyle !== 'function') return undefined;
  try {
    return view.getComputedStyle(element);
  } catch {
    return undefined;
  }
}

export function isHiddenSelf(element: Element): boolean {
  if (element.hasAttribute('hidden') || element.getAttribute('aria-hidden') === 'true') return true;
  if (element.localName === 'input' && (element as HTMLInputElement).type === 'hidden') return true;
  const parent = element.parentElement;
  if (
    parent?.localName === 'details' &&
    !parent.hasAttribute('open') &&
    !(element.localName === 'summary' && parent.querySelector(':scope > summary') === element)
  )
    return true;
  return styleOf(element)?.display === 'none';
}

export function isVisibilityHidden(element: Element): boolean {
  const visibility = styleOf(element)?.visibility;
  return visibility === 'hidden' || visibility === 'collapse';
}

/** True when an ancestor hides its subtree (used when a walk starts below the document). */
export function hasHiddenAncestor(element: Element): boolean {
  for (let parent = element.parentElement; parent; parent = parent.parentElement)
    if (isHiddenSelf(parent)) return true;
  return false;
}

const DISABLEABLE: ReadonlySet<string> = new Set([
  'button',
  'fieldset',
  'input',
  'optgroup',
  'option',
  'select',
  'textarea',
]);

/**
 * Disabled: the control's own `disabled`, a disabled `<fieldset>` ancestor (except inside its
 * first `<legend>`), a disabled `<optgroup>` around an option, or `aria-disabled="true"` on the
 * element or an ancestor (ARIA 1.2: it applies to descendants).
 */
export function isEnabled(element: Element): boolean {
  if (element.closest('[aria-disabled="true"]')) return false;
  if (!DISABLEABLE.has(element.localName)) return true;
  if ((element as HTMLInputElement).disabled === true) return false;
  // happy-dom does not implement :disabled through fieldsets: walk up ourselves.
  for (let parent = element.parentElement; parent; parent = parent.parentElement) {
    if (parent.localName === 'optgroup' && (parent as HTMLOptGroupElement).disabled) return false;
    if (parent.localName === 'fieldset' && (parent as HTMLFieldSetElement).disabled) {
      const legend = parent.querySelector(':scope > legend');
      if (!legend?.contains(element)) return false;
    }
  }
  return true;
}
