/**
 * What a schema check reports, shared by the engines (ajv.ts, cfworker.ts) and their loader
 * (load.ts): every failure as the lowering's one ValidationIssue (`{path (JSON Pointer),
 * reason, schemaPath}`).
 */
import type { ValidationIssue } from '@toolwire/lowering';
import type { CallEncoding } from '../types.js';

export type { ValidationIssue };

/** null when valid, else every failure found. */
export type Check = (data: unknown) => ValidationIssue[] | null;

export interface SchemaValidator {
  readonly engine: 'ajv' | 'cfworker';
  /** `structured` checks `webType` against runtime types; `json` treats the schema as plain. */
  compile(schema: object, mode: CallEncoding): Check;
  /**
   * A promise to await before compiling `schema` when the engine that can check it is still
   * loading (load.ts: ajv for a `webType` below a structured schema's top); else undefined.
   */
  ready?(schema: object, mode: CallEncoding): Promise<void> | undefined;
}
