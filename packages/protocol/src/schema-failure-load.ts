/**
 * schema-failure.ts (a schema failure's `details` and message), loaded on first need: a page
 * script whose calls never fail their schema never fetches it.
 */
import { errorPayload } from './errors.js';
import type { ErrorPayload } from './messages.js';
import * as SchemaFailure from './schema-failure.js';
import type { ValidationIssue } from './validator.js';

/** The module schema-failure.ts: `schemaFailure`. */
export type SchemaFailureModule = typeof SchemaFailure;

/**
 * Set in the page scripts (a define, see packages/polyfill/src/lib/chunks.ts). The split
 * script fetches the module as a chunk of its own (`loadSchemaFailure` of
 * `@toolwire/polyfill/wire`, passed to the bridge); the one-file script inlines it.
 */
declare const __TOOLWIRE_IIFE__: 'split' | 'standalone' | undefined;

/**
 * The bridge's default `loadSchemaFailure`: this package's schema-failure.ts, imported
 * statically (the package exports `schemaFailure` itself, so a module build holds it anyway).
 */
export function importSchemaFailure(): Promise<SchemaFailureModule> {
  // The define makes the module dead code in the split page script, which loads its own.
  return typeof __TOOLWIRE_IIFE__ !== 'undefined' && __TOOLWIRE_IIFE__ === 'split'
    ? Promise.reject(new Error('this page script loads schema-failure itself'))
    : Promise.resolve(SchemaFailure);
}

/**
 * `schemaFailure`, once `load` has loaded it. When it cannot be loaded (a page script whose
 * chunk is missing), the same code with a plainer message and no `details`.
 */
export function loadedSchemaFailure(
  load: () => Promise<SchemaFailureModule>,
  which: 'arguments' | 'result',
  toolId: string,
  issues: readonly ValidationIssue[],
  schema?: unknown,
): Promise<ErrorPayload> {
  return load().then(
    (module) => module.schemaFailure(which, toolId, issues, schema),
    () => plainSchemaFailure(which, toolId),
  );
}

/** A schema failure said without its issues (their wording could not be loaded). */
export function plainSchemaFailure(which: 'arguments' | 'result', toolId: string): ErrorPayload {
  return errorPayload(
    `tool_${which}_schema_invalid`,
    `The ${which} of "${toolId}" ${which === 'result' ? 'does' : 'do'} not match its ${which}Schema.`,
  );
}
