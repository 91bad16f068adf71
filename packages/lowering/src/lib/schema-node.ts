import type { Json } from '../types.js';
import type { WebTypeName } from '../web-types.js';

/**
 * A schema compiled once for walking (see compile-schema.ts). `at` is the node's location in
 * the root schema as a URI fragment (`#/properties/a`); errors append the deciding keyword.
 */
export type SchemaNode = AnyNode | NeverNode | WebNode | JsonNode | RefNode | UnionNode | CheckNode;

/** `true`, `{}` or annotations only: lowered by runtime type, lifted as plain JSON. */
export interface AnyNode {
  kind: 'any';
  at: string;
}

/** `false`, or `additionalProperties: false` for the properties it closes. */
interface NeverNode {
  kind: 'never';
  at: string;
}

export interface WebNode {
  kind: 'web';
  at: string;
  webType: WebTypeName;
  /** Map parameters; `any` when absent. */
  keys: SchemaNode;
  values: SchemaNode;
  /** Map only: string-typed keys give the object form, any other the pairs form. */
  objectForm: boolean;
  /** Set parameter. */
  items: SchemaNode;
  /** Error and DOMException parameter. */
  cause: SchemaNode;
}

/** Bits of JsonNode.types. `integer` is its own bit; `number` admits integers too. */
export const T_NULL = 1;
export const T_BOOLEAN = 2;
export const T_OBJECT = 4;
export const T_ARRAY = 8;
export const T_NUMBER = 16;
export const T_INTEGER = 32;
export const T_STRING = 64;

/** Plain JSON Schema keywords; children may hold web types. */
export interface JsonNode {
  kind: 'json';
  at: string;
  /** 0 when `type` is absent. */
  types: number;
  enum: Json[] | undefined;
  hasConst: boolean;
  const: Json;
  minLength: number | undefined;
  maxLength: number | undefined;
  pattern: RegExp | undefined;
  minimum: number | undefined;
  maximum: number | undefined;
  exclusiveMinimum: number | undefined;
  exclusiveMaximum: number | undefined;
  multipleOf: number | undefined;
  /** Each named property's schema, and whether `required` lists it. */
  properties: Map<string, PropertyRule> | undefined;
  required: string[] | undefined;
  /** How many `required` names have a `properties` entry; the walk counts them as it goes. */
  requiredInProperties: number;
  /** Whether some `required` name has no `properties` entry (checked one by one). */
  requiredElsewhere: boolean;
  /** Any of minLength, maxLength, pattern: lets the walk skip string checks outright. */
  stringChecks: boolean;
  /** Any of minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf. */
  numberChecks: boolean;
  /** The schema for properties `properties` does not name; a NeverNode for `false`. */
  additional: SchemaNode;
  propertyNames: SchemaNode | undefined;
  minProperties: number | undefined;
  maxProperties: number | undefined;
  prefixItems: SchemaNode[] | undefined;
  /** The schema for items after prefixItems; a NeverNode for `false`. */
  items: SchemaNode;
  minItems: number | undefined;
  maxItems: number | undefined;
  uniqueItems: boolean;
}

export interface PropertyRule {
  node: SchemaNode;
  required: boolean;
}

/** A same-document `$ref`; `target` is filled once the referenced schema is compiled. */
export interface RefNode {
  kind: 'ref';
  at: string;
  target: SchemaNode | undefined;
}

/** anyOf (`one: false`) or oneOf: the branch that fits produces the value. */
export interface UnionNode {
  kind: 'union';
  at: string;
  one: boolean;
  branches: SchemaNode[];
}

/**
 * `produce` makes the value; `asserts` (allOf, and keywords beside $ref/anyOf/oneOf) and
 * `negate` (not) only check its JSON form, so they may not contain web types.
 */
export interface CheckNode {
  kind: 'check';
  at: string;
  produce: SchemaNode;
  asserts: SchemaNode[];
  negate: SchemaNode | undefined;
}
