/**
 * Filling a form from a tool call's input, the way a user would (issue 9 "Execution"):
 *
 * 1. The whole input is checked first and nothing is filled when a value does not fit its
 *    control (Chromium 156 does the same: "Invalid value ... for parameter"); keys that name
 *    no control are ignored.
 * 2. Each control whose state changes gets one `input` (bubbling, composed) and one `change`
 *    (bubbling), as Chromium dispatches them; an unchanged control gets none. A radio group
 *    fires on the radio that becomes checked; a `<select multiple>` fires once for the whole
 *    new selection; a checkbox group fires on each box that flips.
 * 3. Values are written through the prototype's setter, so frameworks that shadow `value` on
 *    the element (React's value tracker) still see the change as a user edit.
 */
import type { Control, Field } from './schema.js';

function fits(field: Field, value: unknown): boolean {
  switch (field.kind) {
    case 'text':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'checkbox':
      return typeof value === 'boolean';
    case 'radio':
    case 'select':
      return typeof value === 'string' && (field.values as string[]).includes(value);
    default:
      return (
        Array.isArray(value) &&
        value.every((item) => typeof item === 'string' && (field.values as string[]).includes(item))
      );
  }
}

/** Throws a TypeError naming the first input member that does not fit its control. */
export function checkInput(fields: Map<string, Field>, input: unknown): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new TypeError('The input of a form tool must be an object.');
  const record = input as Record<string, unknown>;
  for (const [name, field] of fields) {
    if (name in record && !fits(field, record[name]))
      throw new TypeError(`Invalid value ${JSON.stringify(record[name])} for parameter ${name}.`);
  }
  return record;
}

/** Sets a property through the element's prototype setter (see 3 above). */
function assign(element: Element, property: string, value: unknown): void {
  let proto: object | null = Object.getPrototypeOf(element);
  while (proto) {
    const setter = Object.getOwnPropertyDescriptor(proto, property)?.set;
    if (setter) {
      setter.call(element, value);
      return;
    }
    proto = Object.getPrototypeOf(proto);
  }
  (element as unknown as Record<string, unknown>)[property] = value;
}

function fire(control: Control): void {
  // The control's own window's Event (a test may run several windows in one realm).
  const EventClass = control.ownerDocument.defaultView?.Event ?? Event;
  control.dispatchEvent(new EventClass('input', { bubbles: true, composed: true }));
  control.dispatchEvent(new EventClass('change', { bubbles: true }));
}

function fillField(field: Field, value: unknown): void {
  const [first] = field.controls as [Control];
  switch (field.kind) {
    case 'text':
    case 'number':
    case 'select': {
      const text = String(value);
      if (first.value === text) return;
      assign(first, 'value', text);
      fire(first);
      return;
    }
    case 'checkbox':
      if ((first as HTMLInputElement).checked === value) return;
      assign(first, 'checked', value);
      fire(first);
      return;
    case 'radio': {
      const radio = field.controls.find((control) => control.value === value) as HTMLInputElement;
      if (radio.checked) return;
      assign(radio, 'checked', true);
      fire(radio);
      return;
    }
    case 'checks':
      for (const box of field.controls as HTMLInputElement[]) {
        const want = (value as string[]).includes(box.value);
        if (box.checked === want) continue;
        assign(box, 'checked', want);
        fire(box);
      }
      return;
    default: {
      const select = first as HTMLSelectElement;
      const wanted = value as string[];
      const options = [...select.options];
      if (options.every((option) => option.selected === wanted.includes(option.value))) return;
      for (const option of options) assign(option, 'selected', wanted.includes(option.value));
      fire(select);
    }
  }
}

/** Fills every control the input names (check it with checkInput first). */
export function fill(fields: Map<string, Field>, input: Record<string, unknown>): void {
  for (const [name, field] of fields) if (name in input) fillField(field, input[name]);
}
