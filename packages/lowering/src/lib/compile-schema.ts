import { LoweringError } from '../lowering-error.js';
import type { Json } from '../types.js';
import { isWebTypeName, type WebTypeName } from '../web-types.js';
import { escapeSegment, resolveFragment } from './pointer.js';
import {
  type AnyNode,
  type JsonNode,
  type PropertyRule,
  type RefNode,
  type SchemaNode,
  T_ARRAY,
  T_BOOLEAN,
  T_INTEGER,
  T_NULL,
  T_NUMBER,
  T_OBJECT,
  T_STRING,
  type WebNode,
} from './schema-node.js';

/**
 * Compiles a schema into SchemaNodes once; later calls with the same schema object reuse
 * them (schemas are treated as immutable, LOWERING.md §"Schema keywords"). Every keyword is
 * accounted for: annotations are ignored, the implemented ones compile, and anything else is
 * `unsupported_schema` rather than silently skipped.
 */

/** Keywords that describe and never assert (2020-12 §7.7 treats `format` as an annotation). */
export const ANNOTATIONS: ReadonlySet<string> = new Set([
  '$schema',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'format',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  '$defs',
  'definitions',
]);

/** The plain keywords lift and lower check themselves (LOWERING.md [L6]). */
const JSON_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'uniqueItems',
]);

/** Keywords that combine schemas; each compiles to its own node kind. */
const COMBINATORS = new Set(['$ref', 'anyOf', 'oneOf', 'allOf', 'not']);

/** The parameters each web type accepts beside `webType`. */
export const WEB_PARAMETERS: Partial<Record<WebTypeName, readonly string[]>> = {
  Map: ['keys', 'values'],
  Set: ['items'],
  Error: ['cause'],
  DOMException: ['cause'],
};

/** Web types whose JSON form is a string (so they may key a Map in its object form). */
export const STRING_FORM_WEB_TYPES: ReadonlySet<WebTypeName> = new Set<WebTypeName>([
  'Date',
  'BigInt',
  'URL',
  'ArrayBuffer',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
  'DataView',
]);

const TYPE_BITS: Record<string, number> = {
  null: T_NULL,
  boolean: T_BOOLEAN,
  object: T_OBJECT,
  array: T_ARRAY,
  number: T_NUMBER,
  integer: T_INTEGER,
  string: T_STRING,
};

/** Schema objects nest at most this deep (a guard for the compiler's own recursion). */
const MAX_SCHEMA_DEPTH = 256;

/** Keyed by the root schema object: a registration compiles once, whatever it is called. */
const cache = new WeakMap<object, SchemaNode>();

export function compileSchema(schema: unknown): SchemaNode {
  if (typeof schema === 'object' && schema !== null) {
    const cached = cache.get(schema);
    if (cached) return cached;
    const node = new Compiler(schema).run();
    cache.set(schema, node);
    return node;
  }
  return new Compiler(schema).run();
}

/** A node that accepts anything, for absent parameters and schema-less lowering. */
export function anyNode(at: string): AnyNode {
  return { kind: 'any', at };
}

/** Whether a node's JSON form is always a string (decides a Map's object form). */
function isStringForm(node: SchemaNode): boolean {
  if (node.kind === 'web') return STRING_FORM_WEB_TYPES.has(node.webType);
  if (node.kind === 'json') return node.types === T_STRING;
  if (node.kind === 'ref') return node.target !== undefined && isStringForm(node.target);
  if (node.kind === 'check') return isStringForm(node.produce);
  return false;
}

/** A schema problem is the tool author's, not the caller's: its path is always the root. */
function unsupported(schemaPath: string, message: string): LoweringError {
  return new LoweringError('unsupported_schema', message, { path: '', schemaPath });
}

class Compiler {
  readonly #root: unknown;
  readonly #refs = new Map<string, RefNode>();
  readonly #stack = new Set<object>();
  /** Assertion-only nodes, checked for web types once every $ref target exists. */
  readonly #assertOnly: SchemaNode[] = [];

  constructor(root: unknown) {
    this.#root = root;
  }

  run(): SchemaNode {
    // The root is reachable as `$ref: "#"`, so it is compiled as the target of that ref.
    const root: RefNode = { kind: 'ref', at: '#', target: undefined };
    this.#refs.set('#', root);
    root.target = this.#compile(this.#root, '#', 0);
    for (const node of this.#assertOnly) {
      if (containsWeb(node, new Set())) {
        throw unsupported(
          node.at,
          'allOf, not, propertyNames and keywords beside $ref/anyOf/oneOf only check JSON: they may not use webType.',
        );
      }
    }
    return root.target;
  }

  #compile(schema: unknown, at: string, depth: number): SchemaNode {
    if (schema === true) return { kind: 'any', at };
    if (schema === false) return { kind: 'never', at };
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw unsupported(at, 'A schema must be an object or a boolean.');
    }
    if (depth > MAX_SCHEMA_DEPTH) throw unsupported(at, 'The schema nests too deep.');
    if (this.#stack.has(schema)) {
      throw unsupported(at, 'The schema object contains itself; use $ref for recursion.');
    }
    this.#stack.add(schema);
    try {
      return this.#compileObject(schema as Record<string, unknown>, at, depth);
    } finally {
      this.#stack.delete(schema);
    }
  }

  /**
   * One schema object into one node. Which part produces the value is decided here, once:
   * $ref, anyOf or oneOf when present (the plain keywords beside them then only assert),
   * otherwise the plain keywords themselves; allOf and not always only assert ([L10]).
   */
  #compileObject(s: Record<string, unknown>, at: string, depth: number): SchemaNode {
    const keys = Object.keys(s);
    if (s.webType !== undefined) return this.#compileWeb(s, keys, at, depth);
    let hasJson = false;
    for (const key of keys) {
      if (JSON_KEYWORDS.has(key)) hasJson = true;
      else if (key === '$id' && at === '#') continue;
      else if (!ANNOTATIONS.has(key) && !COMBINATORS.has(key) && !key.startsWith('x-')) {
        throw unsupported(
          `${at}/${escapeSegment(key)}`,
          key === 'keys' || key === 'values' || key === 'cause'
            ? `"${key}" is a webType parameter and needs webType beside it.`
            : `The keyword "${key}" is not implemented by lower/lift (LOWERING.md §"Schema keywords").`,
        );
      }
    }
    // Annotations alone compile to `any`: a described-but-unconstrained value is free JSON.
    const json = hasJson ? this.#compileJson(s, at, depth) : undefined;
    const hasRef = s.$ref !== undefined;
    const hasAny = s.anyOf !== undefined;
    const hasOne = s.oneOf !== undefined;
    if (Number(hasRef) + Number(hasAny) + Number(hasOne) > 1) {
      throw unsupported(at, 'Use only one of $ref, anyOf and oneOf in one schema object.');
    }
    const asserts: SchemaNode[] = [];
    let produce: SchemaNode;
    if (hasRef) produce = this.#compileRef(s.$ref, `${at}/$ref`);
    else if (hasAny || hasOne) {
      const word = hasAny ? 'anyOf' : 'oneOf';
      const branches = this.#schemaList(s[word], `${at}/${word}`, depth);
      produce = { kind: 'union', at: `${at}/${word}`, one: hasOne, branches };
    } else produce = json ?? { kind: 'any', at };
    if (produce !== json && json !== undefined) {
      this.#assertOnly.push(json);
      asserts.push(json);
    }
    if (s.allOf !== undefined) {
      for (const branch of this.#schemaList(s.allOf, `${at}/allOf`, depth)) {
        this.#assertOnly.push(branch);
        asserts.push(branch);
      }
    }
    let negate: SchemaNode | undefined;
    if (s.not !== undefined) {
      negate = this.#compile(s.not, `${at}/not`, depth + 1);
      this.#assertOnly.push(negate);
    }
    if (asserts.length === 0 && negate === undefined) return produce;
    return { kind: 'check', at, produce, asserts, negate };
  }

  #compileWeb(s: Record<string, unknown>, keys: string[], at: string, depth: number): WebNode {
    const webType = s.webType;
    if (!isWebTypeName(webType)) {
      throw unsupported(`${at}/webType`, `Unknown webType ${JSON.stringify(webType)}.`);
    }
    const parameters = WEB_PARAMETERS[webType] ?? [];
    for (const key of keys) {
      if (key === 'webType' || ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
      if (parameters.includes(key)) continue;
      throw unsupported(
        `${at}/${escapeSegment(key)}`,
        `A webType schema takes only annotations${parameters.length ? ` and ${parameters.join(', ')}` : ''}; "${key}" is not allowed beside webType ${webType}.`,
      );
    }
    const sub = (name: string): SchemaNode =>
      s[name] === undefined
        ? anyNode(`${at}/${name}`)
        : this.#compile(s[name], `${at}/${name}`, depth + 1);
    const keyNode = sub('keys');
    return {
      kind: 'web',
      at,
      webType,
      keys: keyNode,
      values: sub('values'),
      objectForm: webType === 'Map' && isStringForm(keyNode),
      items: webType === 'Set' ? sub('items') : anyNode(`${at}/items`),
      cause: sub('cause'),
    };
  }

  /**
   * One RefNode per target pointer, registered before its target compiles, so a recursive
   * schema ($ref back to an ancestor) closes the loop instead of compiling forever.
   */
  #compileRef(ref: unknown, at: string): RefNode {
    if (typeof ref !== 'string' || (ref !== '#' && !ref.startsWith('#/'))) {
      throw unsupported(at, 'Only same-document $ref ("#" or "#/...") is implemented.');
    }
    const known = this.#refs.get(ref);
    if (known) return known;
    const node: RefNode = { kind: 'ref', at: ref, target: undefined };
    this.#refs.set(ref, node);
    const target = resolveFragment(this.#root, ref);
    if (target === undefined) throw unsupported(at, `$ref ${ref} does not resolve.`);
    node.target = this.#compile(target, ref, 1);
    return node;
  }

  /** anyOf, oneOf, allOf and prefixItems hold non-empty lists of schemas (2020-12 §10.2). */
  #schemaList(value: unknown, at: string, depth: number): SchemaNode[] {
    if (!Array.isArray(value) || value.length === 0) {
      throw unsupported(at, 'Expected a non-empty array of schemas.');
    }
    return value.map((item, i) => this.#compile(item, `${at}/${i}`, depth + 1));
  }

  /**
   * The plain keywords of one schema object, validated as they compile: a malformed value
   * (a negative minLength, a pattern that does not compile) is unsupported_schema now rather
   * than a check that silently never fires later.
   */
  #compileJson(s: Record<string, unknown>, at: string, depth: number): JsonNode {
    const word = (key: string) => `${at}/${key}`;
    const count = (key: string): number | undefined => {
      const value = s[key];
      if (value === undefined) return undefined;
      if (!Number.isSafeInteger(value) || (value as number) < 0) {
        throw unsupported(word(key), `${key} must be a non-negative integer.`);
      }
      return value as number;
    };
    const bound = (key: string): number | undefined => {
      const value = s[key];
      if (value === undefined) return undefined;
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        throw unsupported(word(key), `${key} must be a finite number.`);
      }
      return value;
    };
    let types = 0;
    if (s.type !== undefined) {
      const list = Array.isArray(s.type) ? s.type : [s.type];
      for (const name of list) {
        const bit = typeof name === 'string' ? TYPE_BITS[name] : undefined;
        if (bit === undefined) throw unsupported(word('type'), `Unknown type ${String(name)}.`);
        types |= bit;
      }
      if (list.length === 0) throw unsupported(word('type'), 'type must not be empty.');
    }
    if (s.enum !== undefined && (!Array.isArray(s.enum) || s.enum.length === 0)) {
      throw unsupported(word('enum'), 'enum must be a non-empty array.');
    }
    let pattern: RegExp | undefined;
    if (s.pattern !== undefined) {
      try {
        // JSON Schema patterns are ECMA-262 with Unicode semantics, as ajv compiles them.
        pattern = new RegExp(s.pattern as string, 'u');
      } catch {
        throw unsupported(word('pattern'), 'pattern is not a valid regular expression.');
      }
      if (typeof s.pattern !== 'string') throw unsupported(word('pattern'), 'pattern: string.');
    }
    const multipleOf = bound('multipleOf');
    if (multipleOf !== undefined && multipleOf <= 0) {
      throw unsupported(word('multipleOf'), 'multipleOf must be greater than 0.');
    }
    let required: string[] | undefined;
    if (s.required !== undefined) {
      if (!Array.isArray(s.required) || !s.required.every((x) => typeof x === 'string')) {
        throw unsupported(word('required'), 'required must be an array of strings.');
      }
      required = [...new Set(s.required as string[])];
    }
    let properties: Map<string, PropertyRule> | undefined;
    if (s.properties !== undefined) {
      if (typeof s.properties !== 'object' || s.properties === null) {
        throw unsupported(word('properties'), 'properties must be an object.');
      }
      properties = new Map();
      for (const [name, sub] of Object.entries(s.properties)) {
        const at = `${word('properties')}/${escapeSegment(name)}`;
        properties.set(name, {
          node: this.#compile(sub, at, depth + 1),
          required: required?.includes(name) ?? false,
        });
      }
    }
    // Walkers count required names as the properties go by and look closer only on a shortfall.
    const requiredInProperties = required?.filter((name) => properties?.has(name)).length ?? 0;
    if (Array.isArray(s.items)) {
      throw unsupported(word('items'), 'Array-form items is draft-07; use prefixItems.');
    }
    let prefixItems: SchemaNode[] | undefined;
    if (s.prefixItems !== undefined) {
      if (!Array.isArray(s.prefixItems) || s.prefixItems.length === 0) {
        throw unsupported(word('prefixItems'), 'prefixItems must be a non-empty array.');
      }
      prefixItems = s.prefixItems.map((sub, i) =>
        this.#compile(sub, `${word('prefixItems')}/${i}`, depth + 1),
      );
    }
    if (s.uniqueItems !== undefined && typeof s.uniqueItems !== 'boolean') {
      throw unsupported(word('uniqueItems'), 'uniqueItems must be a boolean.');
    }
    const optional = (key: string): SchemaNode =>
      s[key] === undefined ? anyNode(word(key)) : this.#compile(s[key], word(key), depth + 1);
    const propertyNames =
      s.propertyNames === undefined
        ? undefined
        : this.#compile(s.propertyNames, word('propertyNames'), depth + 1);
    if (propertyNames) this.#assertOnly.push(propertyNames);
    const has = (...keys: string[]) => keys.some((key) => s[key] !== undefined);
    return {
      kind: 'json',
      at,
      types,
      enum: s.enum as Json[] | undefined,
      hasConst: 'const' in s,
      const: s.const as Json,
      minLength: count('minLength'),
      maxLength: count('maxLength'),
      pattern,
      minimum: bound('minimum'),
      maximum: bound('maximum'),
      exclusiveMinimum: bound('exclusiveMinimum'),
      exclusiveMaximum: bound('exclusiveMaximum'),
      multipleOf,
      properties,
      required,
      requiredInProperties,
      requiredElsewhere: (required?.length ?? 0) > requiredInProperties,
      stringChecks: has('minLength', 'maxLength', 'pattern'),
      numberChecks: has('minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'),
      additional: optional('additionalProperties'),
      propertyNames,
      minProperties: count('minProperties'),
      maxProperties: count('maxProperties'),
      prefixItems,
      items: optional('items'),
      minItems: count('minItems'),
      maxItems: count('maxItems'),
      uniqueItems: s.uniqueItems === true,
    };
  }
}

/** Whether a node can produce a web value anywhere below it (refs followed once each). */
function containsWeb(node: SchemaNode, seen: Set<SchemaNode>): boolean {
  if (seen.has(node)) return false;
  seen.add(node);
  switch (node.kind) {
    case 'web':
      return true;
    case 'any':
    case 'never':
      return false;
    case 'ref':
      return node.target !== undefined && containsWeb(node.target, seen);
    case 'union':
      return node.branches.some((branch) => containsWeb(branch, seen));
    case 'check':
      return (
        containsWeb(node.produce, seen) ||
        node.asserts.some((branch) => containsWeb(branch, seen)) ||
        (node.negate !== undefined && containsWeb(node.negate, seen))
      );
    case 'json':
      return (
        [...(node.properties?.values() ?? [])].some((rule) => containsWeb(rule.node, seen)) ||
        (node.prefixItems ?? []).some((sub) => containsWeb(sub, seen)) ||
        containsWeb(node.additional, seen) ||
        containsWeb(node.items, seen) ||
        (node.propertyNames !== undefined && containsWeb(node.propertyNames, seen))
      );
  }
}
