/**
 * Standard Schema tools (@standard-schema/spec 1.1): what `defineTool` attaches to a
 * definition whose `inputSchema` / `outputSchema` is a zod, valibot... schema, and how a call
 * runs it.
 *
 * 1. The schema object itself never reaches the registry's schema fields: those hold the JSON
 *    Schema agents read (Standard JSON Schema's `~standard.jsonSchema`, see define-tool.ts).
 *    The schema rides beside them under STANDARD_SCHEMAS, a registered symbol, so that a
 *    `defineTool` from one copy of the package (a bundle) works with a `toolManager` from
 *    another (the IIFE).
 * 2. It is the tool's one validator: the polyfill's JSON Schema engine does not check such a
 *    side again, and `webType` lifting does not apply (the schema sees the input as the caller
 *    sent it: JSON from agents). Its result `value` (transforms, defaults applied) is what
 *    `execute` gets, or what the caller gets back.
 * 3. Its issues become the polyfill's ValidationIssue: `path` a JSON Pointer built from the
 *    issue's path, `reason` its message, `schemaPath` `~standard/<vendor>[/<code>]` (no JSON
 *    Schema keyword refused it: the vendor's own issue code, when it gives one, is the last
 *    segment, which the wire reports as the keyword).
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { ValidationIssue } from './validation/types.js';

/** The Standard Schemas a registration validates with, by side. */
export interface StandardSchemas {
  input?: StandardSchemaV1 | undefined;
  output?: StandardSchemaV1 | undefined;
}

/** Where `defineTool` puts them on a definition; `toolManager.register` reads them. */
export const STANDARD_SCHEMAS: unique symbol = Symbol.for('toolwire.standardSchemas');

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return (
    typeof props === 'object' &&
    props !== null &&
    typeof (props as { validate?: unknown }).validate === 'function'
  );
}

/** A definition's attached schemas, checked to be Standard Schemas (else TypeError). */
export function standardSchemasOf(definition: object): StandardSchemas | undefined {
  const attached = (definition as { [STANDARD_SCHEMAS]?: unknown })[STANDARD_SCHEMAS];
  if (attached === undefined) return undefined;
  const { input, output } = (attached ?? {}) as StandardSchemas;
  for (const schema of [input, output])
    if (schema !== undefined && !isStandardSchema(schema))
      throw new TypeError('The attached Standard Schemas are not Standard Schemas.');
  return { input, output };
}

export type StandardOutcome =
  | { ok: true; value: unknown }
  | { ok: false; issues: ValidationIssue[] };

/** Runs the schema's own `validate`; throws what it throws. */
export async function validateStandard(
  schema: StandardSchemaV1,
  value: unknown,
): Promise<StandardOutcome> {
  const result = await schema['~standard'].validate(value);
  if (!result.issues) return { ok: true, value: result.value };
  const vendor = schema['~standard'].vendor;
  return { ok: false, issues: result.issues.map((issue) => toIssue(issue, vendor)) };
}

function toIssue(issue: StandardSchemaV1.Issue, vendor: string): ValidationIssue {
  let path = '';
  for (const segment of issue.path ?? []) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    path += `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
  }
  // Not part of the standard, but what zod (`code`) and valibot (`type`) say went wrong.
  const { code, type } = issue as { code?: unknown; type?: unknown };
  const keyword = typeof code === 'string' ? code : typeof type === 'string' ? type : '';
  return {
    path,
    reason: issue.message,
    schemaPath: `~standard/${vendor}${keyword ? `/${keyword}` : ''}`,
  };
}
