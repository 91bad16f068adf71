/**
 * Filling a form from a tool call's input, the way a user would:
 *
 * 1. The whole input is checked first and nothing is filled when a value does not fit its
 *    control (Chromium 156 does the same: "Invalid value ... for parameter"): a JSON type
 *    other than the control's, a value outside a choice's options, or a date, time, month,
 *    week or datetime-local value the control would blank (HTML's value sanitization). Every
 *    misfit is reported as a ValidationIssue placed in the form's input schema. Keys that name
 *    no control are ignored.
 * 2. Each control whose state changes gets one `input` (bubbling, composed) and one `change`
 *    (bubbling), as Chromium dispatches them; an unchanged control gets none. A radio group
 *    fires on the radio that becomes checked; a `<select multiple>` fires once for the whole
 *    new selection; a checkbox group fires on each box that flips.
 * 3. Values are written through the prototype's setter, so frameworks that shadow `value` on
 *    the element (React's value tracker) still see the change as a user edit.
 */
import type { ValidationIssue } from '../validation/types.js';
import type { Control, Field } from './schema.js';

/** Types whose value sanitization blanks a value that is not of the type's format. */
const BLANKS_INVALID = new Set(['date', 'time', 'datetime-local', 'month', 'week']);

function pointer(name: string): string {
  return `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** ajv's words for a value of the wrong JSON type, at the property (or item) it fails. */
function typeIssue(path: string, schemaPath: string, type: string): ValidationIssue {
  return { path, reason: `must be ${type}`, schemaPath: `${schemaPath}/type` };
}

function enumIssue(path: string, schemaPath: string): ValidationIssue {
  return {
    path,
    reason: 'must be equal to one of the allowed values',
    schemaPath: `${schemaPath}/enum`,
  };
}

/** Would `control` keep `text`, or blank it as not of its type's format? */
function keeps(control: Control, text: string): boolean {
  const type = (control as HTMLInputElement).type;
  if (text === '' || control.localName !== 'input' || !BLANKS_INVALID.has(type)) return true;
  // A detached input of the same type: the browser's own sanitization, nothing filled.
  const probe = control.ownerDocument.createElement('input');
  probe.type = type;
  probe.value = text;
  return probe.value !== '';
}

/** What a date-like control's schema says of its format (schema.ts): its words for a misfit. */
function formatIssue(control: Control, path: string, schemaPath: string): ValidationIssue {
  const type = (control as HTMLInputElement).type;
  return type === 'date'
    ? { path, reason: 'must match format "date"', schemaPath: `${schemaPath}/format` }
    : { path, reason: `must be a valid ${type} value`, schemaPath: `${schemaPath}/pattern` };
}

function misfits(name: string, field: Field, value: unknown): ValidationIssue[] {
  const path = pointer(name);
  const at = `#/properties${pointer(name)}`;
  const values = field.values as string[];
  switch (field.kind) {
    case 'text': {
      if (typeof value !== 'string') return [typeIssue(path, at, 'string')];
      const control = field.controls[0] as Control;
      return keeps(control, value) ? [] : [formatIssue(control, path, at)];
    }
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
        ? []
        : [typeIssue(path, at, 'number')];
    case 'checkbox':
      return typeof value === 'boolean' ? [] : [typeIssue(path, at, 'boolean')];
    case 'radio':
    case 'select':
      if (typeof value !== 'string') return [typeIssue(path, at, 'string')];
      return values.includes(value) ? [] : [enumIssue(path, at)];
    default: {
      if (!Array.isArray(value)) return [typeIssue(path, at, 'array')];
      const issues: ValidationIssue[] = [];
      value.forEach((item, index) => {
        const itemPath = `${path}/${index}`;
        if (typeof item !== 'string') issues.push(typeIssue(itemPath, `${at}/items`, 'string'));
        else if (!values.includes(item)) issues.push(enumIssue(itemPath, `${at}/items`));
      });
      return issues;
    }
  }
}

/**
 * Every way `input` does not fit the form's controls (an empty list when it fits): what a call
 * is refused for before anything is filled (1 above).
 */
export function checkInput(fields: Map<string, Field>, input: unknown): ValidationIssue[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return [{ path: '', reason: 'must be object', schemaPath: '#/type' }];
  const record = input as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  for (const [name, field] of fields) {
    if (Object.hasOwn(record, name)) issues.push(...misfits(name, field, record[name]));
  }
  return issues;
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
  for (const [name, field] of fields) if (Object.hasOwn(input, name)) fillField(field, input[name]);
}
