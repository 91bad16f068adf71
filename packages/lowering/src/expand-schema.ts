import { ANNOTATIONS, STRING_FORM_WEB_TYPES, WEB_PARAMETERS } from './lib/compile-schema.js';
import { setOwn } from './lib/plain.js';
import { escapeSegment, resolveFragment } from './lib/pointer.js';
import { MIME_TYPE } from './lib/web/blob.js';
import { LoweringError } from './lowering-error.js';
import type { JsonSchema } from './types.js';
import { isWebTypeName, type WebTypeName } from './web-types.js';

/**
 * Turns every `webType` into the plain JSON Schema 2020-12 an agent sees in a catalog
 * (LOWERING.md, the type table). Annotations beside `webType` are kept; everything else is
 * copied as is, recursing through every keyword that holds schemas. Unlike lower and lift it
 * accepts every JSON Schema keyword: catalogs may use what lift leaves to the validator.
 */
export function expandSchema(schema: JsonSchema): JsonSchema {
  return new Expander(schema).expand(schema, '#', 0) as JsonSchema;
}

type Schema = boolean | Record<string, unknown>;

/** Keywords whose value is one schema, a map of schemas, or a list of schemas (2020-12). */
const SINGLE = new Set([
  'additionalProperties',
  'propertyNames',
  'contains',
  'additionalItems',
  'unevaluatedItems',
  'unevaluatedProperties',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
]);
const MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);
const LISTS = new Set(['prefixItems', 'anyOf', 'oneOf', 'allOf']);

const BASE64 = { type: 'string', contentEncoding: 'base64' };

class Expander {
  readonly #root: unknown;
  readonly #stack = new Set<object>();

  constructor(root: unknown) {
    this.#root = root;
  }

  expand(schema: unknown, at: string, depth: number): Schema {
    if (typeof schema === 'boolean') return schema;
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw fail(at, 'A schema must be an object or a boolean.');
    }
    if (this.#stack.has(schema) || depth > 256) {
      throw fail(at, 'The schema object contains itself (use $ref) or nests too deep.');
    }
    this.#stack.add(schema);
    try {
      const s = schema as Record<string, unknown>;
      return s.webType === undefined ? this.#plain(s, at, depth) : this.#web(s, at, depth);
    } finally {
      this.#stack.delete(schema);
    }
  }

  /** A schema without webType: copied keyword by keyword, recursing into schema-valued ones. */
  #plain(s: Record<string, unknown>, at: string, depth: number): Schema {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(s)) {
      const here = `${at}/${escapeSegment(key)}`;
      if (key === 'keys' || key === 'values' || key === 'cause') {
        throw fail(here, `"${key}" is a webType parameter and needs webType beside it.`);
      }
      setOwn(out, key, this.#keyword(key, value, here, depth));
    }
    return out;
  }

  #keyword(key: string, value: unknown, at: string, depth: number): unknown {
    if (SINGLE.has(key) || (key === 'items' && !Array.isArray(value))) {
      return this.expand(value, at, depth + 1);
    }
    if (LISTS.has(key) || key === 'items') {
      if (!Array.isArray(value)) throw fail(at, `${key} must be an array of schemas.`);
      return value.map((item, i) => this.expand(item, `${at}/${i}`, depth + 1));
    }
    if (MAPS.has(key)) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw fail(at, `${key} must be an object of schemas.`);
      }
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value)) {
        setOwn(out, name, this.expand(sub, `${at}/${escapeSegment(name)}`, depth + 1));
      }
      return out;
    }
    return copy(value);
  }

  /** A webType schema: its annotations, then the plain form of §7 (which wins on a clash). */
  #web(s: Record<string, unknown>, at: string, depth: number): Schema {
    const type = s.webType;
    if (!isWebTypeName(type))
      throw fail(`${at}/webType`, `Unknown webType ${JSON.stringify(type)}.`);
    const parameters = WEB_PARAMETERS[type] ?? [];
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(s)) {
      if (key === 'webType' || parameters.includes(key)) continue;
      const here = `${at}/${escapeSegment(key)}`;
      if (!ANNOTATIONS.has(key) && !key.startsWith('x-')) {
        throw fail(here, `"${key}" is not allowed beside webType ${type}.`);
      }
      setOwn(out, key, this.#keyword(key, value, here, depth));
    }
    const sub = (name: string): Schema =>
      s[name] === undefined ? true : this.expand(s[name], `${at}/${name}`, depth + 1);
    return Object.assign(out, this.#form(type, s, sub));
  }

  /**
   * The published form of each web type. Every record is closed (additionalProperties false)
   * and lists its required fields, so what a validator accepts is what lift accepts, except
   * for rules JSON Schema cannot say (canonical base64, a PNG's own size, calendar dates).
   */
  #form(type: WebTypeName, s: Record<string, unknown>, sub: (name: string) => Schema): object {
    if (STRING_FORM_WEB_TYPES.has(type)) {
      if (type === 'Date') return { type: 'string', format: 'date-time' };
      if (type === 'BigInt') return { type: 'string', pattern: '^-?[0-9]+$' };
      if (type === 'URL') return { type: 'string', format: 'uri' };
      return { ...BASE64 };
    }
    switch (type) {
      case 'Map': {
        const keys = sub('keys');
        const values = sub('values');
        if (this.#stringForm(s.keys, new Set())) {
          const plainString =
            typeof keys === 'object' && Object.keys(keys).length === 1 && keys.type === 'string';
          return {
            type: 'object',
            ...(plainString ? {} : { propertyNames: keys }),
            additionalProperties: values,
          };
        }
        return {
          type: 'array',
          items: { type: 'array', prefixItems: [keys, values], minItems: 2, items: false },
        };
      }
      case 'Set':
        return s.items === undefined
          ? { type: 'array', uniqueItems: true }
          : { type: 'array', uniqueItems: true, items: sub('items') };
      case 'Blob':
      case 'File': {
        const file = type === 'File';
        return record(
          {
            mimeType: { type: 'string', pattern: MIME_TYPE.source },
            data: { ...BASE64 },
            ...(file ? { name: { type: 'string' }, lastModified: { type: 'integer' } } : {}),
          },
          file ? ['mimeType', 'data', 'name'] : ['mimeType', 'data'],
        );
      }
      case 'Error':
      case 'DOMException':
        return record(
          {
            name: { type: 'string' },
            message: { type: 'string' },
            code: type === 'Error' ? { type: ['string', 'number'] } : { type: 'integer' },
            cause: sub('cause'),
          },
          ['name', 'message'],
        );
      case 'RegExp':
        return record(
          { source: { type: 'string' }, flags: { type: 'string', pattern: '^[dgimsuvy]*$' } },
          ['source', 'flags'],
        );
      default: {
        const side = { type: 'integer', minimum: 1 };
        return record(
          {
            mimeType: { const: 'image/png' },
            data: { ...BASE64, contentMediaType: 'image/png' },
            width: side,
            height: { ...side },
          },
          ['mimeType', 'data', 'width', 'height'],
        );
      }
    }
  }

  /** The raw-schema twin of isStringForm: `type: "string"`, a string-form webType, or a $ref to one. */
  #stringForm(keys: unknown, seen: Set<unknown>): boolean {
    if (typeof keys !== 'object' || keys === null || seen.has(keys)) return false;
    seen.add(keys);
    const s = keys as Record<string, unknown>;
    if (s.webType !== undefined)
      return isWebTypeName(s.webType) && STRING_FORM_WEB_TYPES.has(s.webType);
    if (s.anyOf !== undefined || s.oneOf !== undefined) return false;
    if (typeof s.$ref === 'string')
      return this.#stringForm(resolveFragment(this.#root, s.$ref), seen);
    return (
      s.type === 'string' ||
      (Array.isArray(s.type) && s.type.length === 1 && s.type[0] === 'string')
    );
  }
}

function record(properties: Record<string, unknown>, required: string[]): object {
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Data inside a schema (enum, const, default, examples) is copied, never interpreted. */
function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) setOwn(out, key, copy(item));
  return out;
}

function fail(schemaPath: string, message: string): LoweringError {
  return new LoweringError('unsupported_schema', message, { path: '', schemaPath });
}
