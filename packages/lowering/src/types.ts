import type { WebTypeName } from './web-types.js';

/**
 * One failure of a value against its schema: the one shape every validator and the lowering
 * report, and a DataError's `.errors` hold (docs/browser-api.md "Errors from callTool"). `path` is a JSON
 * Pointer (RFC 6901) into the checked value, `schemaPath` a URI-fragment pointer to the keyword
 * that refused it (`#/properties/when/format`), `reason` says why in words. The wire's
 * `details` are these, rewritten once by `@toolwire/protocol`'s `schemaFailure`.
 */
export interface ValidationIssue {
  path: string;
  reason: string;
  schemaPath: string;
}

/** A JSON value as JSON.parse returns it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * A JSON Schema (2020-12) that may name web types with `webType`. Plain keywords keep their
 * JSON Schema meaning; `keys`/`values` (Map), `items` (Set) and `cause` (Error, DOMException)
 * are the web-type parameters.
 */
export type JsonSchema = boolean | JsonSchemaObject;

export interface JsonSchemaObject {
  /**
   * One of WEB_TYPES. Any string type-checks (schemas are often built loosely or read from
   * JSON); an unknown name is refused at run time as `unsupported_schema` (LOWERING.md [W1]).
   */
  webType?: WebTypeName | (string & {});
  keys?: JsonSchema;
  values?: JsonSchema;
  cause?: JsonSchema;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema;
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $defs?: Record<string, JsonSchema>;
  [keyword: string]: unknown;
}
