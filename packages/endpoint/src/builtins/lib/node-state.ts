/**
 * What a node reports besides its role and name: automation id, value, checked/selected
 * state and bounds. Values of password and file inputs are never reported (secrets, and
 * fake paths).
 */
import type { Bounds } from '../types.js';
import { CHECKABLE_ROLES } from './roles.js';
import { truncate } from './text.js';

/** `data-testid` is made for automation, so it wins over `id` (often generated). */
export function automationIdOf(element: Element): string | undefined {
  const testId = element.getAttribute('data-testid');
  if (testId) return testId;
  return element.id || undefined;
}

/** Query by automation id accepts either attribute. */
export function hasAutomationId(element: Element, automationId: string): boolean {
  return element.getAttribute('data-testid') === automationId || element.id === automationId;
}

const VALUELESS_INPUTS: ReadonlySet<string> = new Set([
  'button',
  'checkbox',
  'file',
  'hidden',
  'image',
  'password',
  'radio',
  'reset',
  'submit',
]);

/** The current value, unbounded; undefined when the element has none worth reporting. */
export function rawValueOf(element: Element): string | undefined {
  switch (element.localName) {
    case 'input': {
      const input = element as HTMLInputElement;
      return VALUELESS_INPUTS.has(input.type) ? undefined : input.value;
    }
    case 'textarea':
      return (element as HTMLTextAreaElement).value;
    case 'select': {
      // The selected options' values (the option nodes carry their labels and `selected`).
      const select = element as HTMLSelectElement;
      return selectedOptionsOf(select)
        .map((option) => option.value)
        .join(', ');
    }
    case 'progress':
    case 'meter':
      return String((element as HTMLProgressElement).value);
    default: {
      const valueText =
        element.getAttribute('aria-valuetext') ?? element.getAttribute('aria-valuenow');
      return valueText ?? undefined;
    }
  }
}

/** The value as the tree reports it: bounded, omitted when empty. */
export function reportedValueOf(element: Element): string | undefined {
  const value = rawValueOf(element);
  return value ? truncate(value) : undefined;
}

/** `true`, `false` or `'mixed'` for checkable roles; undefined otherwise. */
export function checkedOf(element: Element, role: string): boolean | 'mixed' | undefined {
  const input = element as HTMLInputElement;
  if (element.localName === 'input' && (input.type === 'checkbox' || input.type === 'radio'))
    return input.indeterminate ? 'mixed' : input.checked;
  if (!CHECKABLE_ROLES.has(role)) return undefined;
  const aria = element.getAttribute('aria-checked');
  return aria === 'mixed' ? 'mixed' : aria === 'true';
}

/** `true` for a selected option (or `aria-selected="true"`); undefined otherwise (omitted). */
export function selectedOf(element: Element): true | undefined {
  if (element.localName === 'option') return (element as HTMLOptionElement).selected || undefined;
  return element.getAttribute('aria-selected') === 'true' || undefined;
}

export function boundsOf(element: Element): Bounds | undefined {
  if (typeof element.getBoundingClientRect !== 'function') return undefined;
  const rect = element.getBoundingClientRect();
  return {
    x: Math.round(rect.x),
    y: Math.round(rect.y),
    width: Math.round(rect.width),
    height: Math.round(rect.height),
  };
}

/** Selected options, read from each option (happy-dom's `selectedOptions` can lag behind). */
function selectedOptionsOf(select: HTMLSelectElement): HTMLOptionElement[] {
  return Array.from(select.options).filter((option) => option.selected);
}
