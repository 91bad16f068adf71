/**
 * A form from a tool's input schema (page-controlled data): one control per top-level
 * property of an object schema (text, number, checkbox, select for enums; JSON for nested
 * values), and a JSON editor for everything else. Schemas are read, never run: every string
 * from them is inserted as text, and nothing from them becomes markup, a URL or code.
 */

type Schema = Record<string, unknown>;

export interface ToolForm {
  /** The form's root element. */
  readonly element: HTMLElement;
  /** The schema has no fields to lay out: the form is a JSON editor already. */
  readonly jsonOnly: boolean;
  /** The arguments as entered, or a message saying which field is wrong. */
  read(): { ok: true; value: unknown } | { ok: false; message: string };
}

interface Field {
  name: string;
  required: boolean;
  read(): { ok: true; value: unknown; empty: boolean } | { ok: false; message: string };
}

function el<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  if (text !== undefined) node.textContent = text;
  return node;
}

function asSchema(value: unknown): Schema | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Schema)
    : undefined;
}

/** Web types whose JSON form is a string (docs/lowering.md): a text field takes them. */
const STRING_WEB_TYPES = new Set(['Date', 'URL', 'BigInt']);

function typeOf(schema: Schema): string | undefined {
  if (typeof schema.webType === 'string' && STRING_WEB_TYPES.has(schema.webType)) return 'string';
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((t) => t !== 'null') as string | undefined;
  return undefined;
}

/** A JSON text area: parses on read; empty means "not given". */
export function jsonEditor(
  doc: Document,
  initial: unknown,
  label: string,
): {
  element: HTMLTextAreaElement;
  read(): { ok: true; value: unknown; empty: boolean } | { ok: false; message: string };
} {
  const area = el(doc, 'textarea');
  area.spellcheck = false;
  area.rows = 4;
  area.setAttribute('aria-label', label);
  if (initial !== undefined) area.value = JSON.stringify(initial, null, 2);
  return {
    element: area,
    read() {
      const text = area.value.trim();
      if (text === '') return { ok: true, value: undefined, empty: true };
      try {
        return { ok: true, value: JSON.parse(text), empty: false };
      } catch {
        return { ok: false, message: `${label}: not valid JSON` };
      }
    },
  };
}

function control(
  doc: Document,
  name: string,
  schema: Schema,
  id: string,
): [HTMLElement, Field['read']] {
  const type = typeOf(schema);
  const choices = Array.isArray(schema.enum) ? schema.enum : undefined;
  if (choices?.every((c) => ['string', 'number'].includes(typeof c))) {
    const select = el(doc, 'select');
    select.id = id;
    select.append(el(doc, 'option', ''));
    choices.forEach((choice, index) => {
      const option = el(doc, 'option', String(choice));
      option.value = String(index);
      select.append(option);
    });
    return [
      select,
      () =>
        select.value === ''
          ? { ok: true, value: undefined, empty: true }
          : { ok: true, value: choices[Number(select.value)], empty: false },
    ];
  }
  if (type === 'boolean') {
    const box = el(doc, 'input');
    box.type = 'checkbox';
    box.id = id;
    return [box, () => ({ ok: true, value: box.checked, empty: false })];
  }
  if (type === 'string' || type === 'number' || type === 'integer') {
    const input = el(doc, 'input');
    input.id = id;
    input.type = type === 'string' ? 'text' : 'number';
    if (type === 'integer') input.step = '1';
    return [
      input,
      () => {
        if (input.value === '') return { ok: true, value: undefined, empty: true };
        if (type === 'string') return { ok: true, value: input.value, empty: false };
        const value = Number(input.value);
        if (!Number.isFinite(value) || (type === 'integer' && !Number.isInteger(value)))
          return {
            ok: false,
            message: `${name}: not ${type === 'integer' ? 'an integer' : 'a number'}`,
          };
        return { ok: true, value, empty: false };
      },
    ];
  }
  const editor = jsonEditor(doc, undefined, name);
  editor.element.id = id;
  editor.element.rows = 2;
  return [editor.element, editor.read];
}

let forms = 0;

/** Builds the form for `schema`; a schema it cannot lay out gets the JSON editor alone. */
export function buildForm(doc: Document, inputSchema: unknown): ToolForm {
  const schema = asSchema(inputSchema) ?? {};
  const properties = asSchema(schema.properties);
  const root = el(doc, 'div');
  root.className = 'tool-form';
  forms += 1;
  if (!properties || (schema.type !== undefined && typeOf(schema) !== 'object')) {
    const editor = jsonEditor(doc, inputSchema === undefined ? {} : undefined, 'arguments (JSON)');
    root.append(editor.element);
    return {
      element: root,
      jsonOnly: true,
      read: () => {
        const result = editor.read();
        return result.ok ? { ok: true, value: result.empty ? {} : result.value } : result;
      },
    };
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const fields: Field[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    const property = asSchema(raw) ?? {};
    const id = `tw-form-${forms}-${fields.length}`;
    const row = el(doc, 'div');
    row.className = 'field';
    const label = el(doc, 'label', required.has(name) ? `${name} *` : name);
    label.htmlFor = id;
    const [input, read] = control(doc, name, property, id);
    input.dataset.field = name;
    row.append(label, input);
    if (typeof property.description === 'string') {
      const hint = el(doc, 'small', property.description);
      row.append(hint);
    }
    root.append(row);
    fields.push({ name, required: required.has(name), read });
  }
  return {
    element: root,
    jsonOnly: false,
    read() {
      const value: Record<string, unknown> = {};
      for (const field of fields) {
        const result = field.read();
        if (!result.ok) return result;
        if (result.empty) {
          if (field.required) return { ok: false, message: `${field.name} is required` };
          continue;
        }
        Object.defineProperty(value, field.name, {
          value: result.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return { ok: true, value };
    },
  };
}
