/**
 * Schema validation for callTool, loaded on first use (issue 4: "the core stays small").
 * ajv (JSON Schema 2020-12 + formats) compiles validators with `new Function`; on pages whose
 * CSP forbids `unsafe-eval` that throws, so the first load probes for eval and falls back to
 * @cfworker/json-schema, an interpreting validator. Either way a check returns every failure
 * as `{path (JSON Pointer), reason, schemaPath}`.
 */

export interface ValidationIssue {
  path: string;
  reason: string;
  schemaPath: string;
}

/** null when valid, else every failure found. */
export type Check = (data: unknown) => ValidationIssue[] | null;

export interface SchemaValidator {
  readonly engine: 'ajv' | 'cfworker';
  /** `structured` checks `webType` against runtime types; `json` treats the schema as plain. */
  compile(schema: object, mode: 'structured' | 'json'): Check;
}

import { loadChunk } from './lib/chunks.js';

let loading: Promise<SchemaValidator> | undefined;

/** Can this realm compile code from strings? False under a CSP without 'unsafe-eval'. */
export function canEval(): boolean {
  try {
    return new Function('return true')() === true;
  } catch {
    return false;
  }
}

export function loadValidator(options: { forceFallback?: boolean } = {}): Promise<SchemaValidator> {
  if (options.forceFallback)
    return loadChunk('validator-cfworker').then((chunk) => chunk.createValidator());
  loading ??= loadChunk(canEval() ? 'validator-ajv' : 'validator-cfworker')
    .then((chunk) => chunk.createValidator())
    .catch((error) => {
      loading = undefined;
      throw error;
    });
  return loading;
}

export { matchesWebType } from './lib/web-type-check.js';
