/**
 * Input schema synthesis for a `<form toolname>` (the explainer's "Input schema
 * synthesis" is a TODO, so the shapes follow what Chromium 156 emits where that is sound):
 *
 * 1. One property per named, enabled control, in tree order; the first control of a name wins.
 *    hidden/submit/button/reset/image inputs are skipped; file inputs are refused (below).
 * 2. Text-like inputs and textarea: string, with `pattern` (anchored, as HTML matches the whole
 *    value); email -> format email, url -> format uri. `minlength`/`maxlength` give nothing:
 *    HTML checks them only against what a user typed, never a value a script set, so the form
 *    takes any length from a call (docs/browser-api.md "Declarative forms": what refuses a call).
 * 3. number/range: number with minimum/maximum (range defaults 0..100) and multipleOf = step
 *    (HTML's default step is 1; `step=any` gives none), only when the step counts from a
 *    multiple of itself: HTML counts steps from `min` (else `value`, else 0), so `min=1 step=2`
 *    allows 1, 3, 5, which no multipleOf says (Chromium leaves it out too).
 * 4. checkbox: boolean; several checkboxes sharing a name: an array of their values.
 *    radio group and `<select>`: string enum (anyOf carries option labels as titles);
 *    `<select multiple>`: array of that enum, uniqueItems.
 * 5. date -> format date. time, datetime-local, month, week and color have no matching JSON
 *    Schema format (`time`/`date-time` demand seconds and a zone offset), so they get a `pattern`.
 * 6. `required` on any control of a property makes it required; `toolparamtitle` /
 *    `toolparamdescription` become the property's title / description. Without a
 *    toolparamdescription, the control's `<label>`s describe it (joined by "; ", as Chromium
 *    does), and each radio's or grouped checkbox's label titles its enum value.
 * 7. File inputs: an agent cannot pick a file for the user, so they are left out and named in
 *    the schema's description (the user chooses those files before submitting).
 */
import type { JsonSchema } from '../types.js';

export type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** How a property is filled: one kind per schema shape. */
type FieldKind = 'text' | 'number' | 'checkbox' | 'radio' | 'checks' | 'select' | 'multi';

export interface Field {
  kind: FieldKind;
  /** The controls behind the property (a radio group or checkbox group has several). */
  controls: Control[];
  /** Allowed values, for the enum kinds. */
  values?: string[];
}

export interface Synthesized {
  schema: JsonSchema;
  fields: Map<string, Field>;
}

const SKIPPED = new Set(['hidden', 'submit', 'button', 'reset', 'image']);

// HTML value formats without a JSON Schema format of their own (HTML "dates and times").
const PATTERNS: Record<string, string> = {
  time: '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$',
  'datetime-local':
    '^[0-9]{4,}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$',
  month: '^[0-9]{4,}-(0[1-9]|1[0-2])$',
  week: '^[0-9]{4,}-W(0[1-9]|[1-4][0-9]|5[0-3])$',
  color: '^#[0-9a-fA-F]{6}$',
};

function isControl(element: Element): element is Control {
  const tag = element.localName;
  return tag === 'input' || tag === 'select' || tag === 'textarea';
}

/** Disabled directly or by a disabled fieldset (happy-dom's :disabled misses the latter). */
function isDisabled(control: Control): boolean {
  return control.matches(':disabled') || control.closest('fieldset[disabled]') !== null;
}

function numberAttr(control: Element, name: string): number | undefined {
  const text = control.getAttribute(name);
  if (text === null || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

function textSchema(control: HTMLInputElement | HTMLTextAreaElement): JsonSchema {
  const schema: JsonSchema = { type: 'string' };
  const type = control.type;
  if (type === 'email') schema.format = 'email';
  else if (type === 'url') schema.format = 'uri';
  else if (type === 'date') schema.format = 'date';
  else if (PATTERNS[type]) schema.pattern = PATTERNS[type];
  const pattern = control.getAttribute('pattern');
  // HTML patterns match the whole value; a JSON Schema pattern matches anywhere.
  if (pattern && control.localName === 'input' && !schema.pattern)
    schema.pattern = `^(?:${pattern})$`;
  return schema;
}

function numberSchema(control: HTMLInputElement): JsonSchema {
  const schema: JsonSchema = { type: 'number' };
  const range = control.type === 'range';
  const min = numberAttr(control, 'min') ?? (range ? 0 : undefined);
  const max = numberAttr(control, 'max') ?? (range ? 100 : undefined);
  if (min !== undefined) schema.minimum = min;
  if (max !== undefined) schema.maximum = max;
  const stepText = control.getAttribute('step');
  if (stepText?.trim().toLowerCase() !== 'any') {
    const given = numberAttr(control, 'step');
    const step = given !== undefined && given > 0 ? given : 1;
    // HTML's step base: min, else the value attribute, else 0 (range: min defaults to 0).
    const base = min ?? numberAttr(control, 'value') ?? 0;
    if (Number.isInteger(base / step)) schema.multipleOf = step;
  }
  return schema;
}

/** The enum schema Chromium emits: `anyOf` of consts (with labels as titles), plus `enum`. */
function enumSchema(values: string[], titles?: string[]): JsonSchema {
  return {
    type: 'string',
    anyOf: values.map((value, index) => ({
      type: 'string',
      const: value,
      ...(titles ? { title: titles[index] } : {}),
    })),
    enum: values,
  };
}

function selectField(select: HTMLSelectElement): { field: Field; schema: JsonSchema } {
  const options = [...select.options].filter((option) => !option.disabled);
  const values = options.map((option) => option.value);
  const items = enumSchema(
    values,
    // label falls back to the text; happy-dom leaves it empty, so the text is read here too.
    options.map((option) => option.label || (option.textContent ?? '').replace(/\s+/g, ' ').trim()),
  );
  if (select.multiple) {
    return {
      field: { kind: 'multi', controls: [select], values },
      schema: { type: 'array', items, uniqueItems: true },
    };
  }
  return { field: { kind: 'select', controls: [select], values }, schema: items };
}

/** Builds the input schema and the fill plan of a form. */
export function synthesize(form: HTMLFormElement): Synthesized {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const fields = new Map<string, Field>();
  const files: string[] = [];
  for (const element of form.elements) {
    if (!isControl(element) || !element.name || isDisabled(element)) continue;
    const name = element.name;
    const type = element.localName === 'input' ? element.type : element.localName;
    if (SKIPPED.has(type)) continue;
    if (type === 'file') {
      if (!files.includes(name)) files.push(name);
      continue;
    }
    const existing = fields.get(name);
    if (existing) {
      // Radio groups and checkbox groups gather; any other repeat of a name is ignored.
      const gathers =
        (existing.kind === 'radio' && type === 'radio') ||
        (existing.kind === 'checkbox' && type === 'checkbox');
      if (!gathers) continue;
      existing.controls.push(element);
      if (element.required && !required.includes(name)) required.push(name);
      continue;
    }
    let field: Field;
    let schema: JsonSchema;
    if (element.localName === 'select') {
      ({ field, schema } = selectField(element as HTMLSelectElement));
    } else if (element.localName === 'textarea') {
      field = { kind: 'text', controls: [element] };
      schema = textSchema(element as HTMLTextAreaElement);
    } else if (type === 'checkbox' || type === 'radio') {
      field = { kind: type, controls: [element] };
      schema = {};
    } else if (type === 'number' || type === 'range') {
      field = { kind: 'number', controls: [element] };
      schema = numberSchema(element as HTMLInputElement);
    } else {
      field = { kind: 'text', controls: [element] };
      schema = textSchema(element as HTMLInputElement);
    }
    fields.set(name, field);
    properties[name] = schema;
    if (element.required) required.push(name);
  }
  for (const [name, field] of fields) {
    const schema = groupSchema(field, properties[name] as JsonSchema);
    describe(schema, field.controls);
    properties[name] = schema;
  }
  const schema: JsonSchema = { type: 'object', properties, required };
  if (files.length > 0) {
    schema.description = `File inputs (${files.join(', ')}) cannot be filled by an agent; the user must choose those files before the form is submitted.`;
  }
  return { schema, fields };
}

/** Radio and checkbox schemas depend on the whole group, so they are made once it is known. */
function groupSchema(field: Field, schema: JsonSchema): JsonSchema {
  if (field.kind === 'checkbox' && field.controls.length > 1) field.kind = 'checks';
  if (field.kind === 'radio' || field.kind === 'checks') {
    field.values = field.controls.map((control) => control.value);
    const labels = field.controls.map(labelText);
    const items = enumSchema(field.values, labels.some(Boolean) ? labels : undefined);
    return field.kind === 'radio' ? items : { type: 'array', items, uniqueItems: true };
  }
  if (field.kind === 'checkbox') return { type: 'boolean' };
  return schema;
}

/** toolparamtitle / toolparamdescription: the first control of the property that has one. */
function describe(schema: JsonSchema, controls: Control[]): void {
  for (const attribute of ['toolparamtitle', 'toolparamdescription']) {
    const value = controls
      .find((control) => control.hasAttribute(attribute))
      ?.getAttribute(attribute);
    if (value) schema[attribute === 'toolparamtitle' ? 'title' : 'description'] = value;
  }
  // A group's labels title its values (above); a lone control's labels describe it.
  if (schema.description === undefined && controls.length === 1 && controls[0]) {
    const text = labelText(controls[0]);
    if (text) schema.description = text;
  }
}

/** The text of a control's labels, without the text of controls inside them (options...). */
function labelText(control: Control): string {
  const texts: string[] = [];
  for (const label of control.labels ?? []) {
    const copy = label.cloneNode(true) as HTMLElement;
    for (const inner of copy.querySelectorAll('select, textarea, button, datalist')) inner.remove();
    const text = (copy.textContent ?? '').trim();
    if (text) texts.push(text);
  }
  return texts.join('; ');
}
