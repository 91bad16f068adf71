/**
 * Validation behind a provider (docs/style.md 6): `compile(schema)` once per schema, then
 * `validate(data) -> {valid: true, data} | {valid: false, errors}`. The bridge takes one as an
 * option and has no default, so this package does not depend on a validator: a Node host or a
 * test takes `createAjvProvider` from `@toolwire/protocol/ajv`, the endpoint the polyfill's
 * engines. Every engine reports the lowering's one `ValidationIssue` (a JSON Pointer `path`,
 * `reason`, `schemaPath`); `schemaFailure` (schema-failure.ts) is the one place that rewrites
 * them as the wire's `details` (`IssueDetail`: a `$`-rooted path, as docs/wire.md "tool.call"
 * asks).
 */
import type { ValidationIssue } from '@toolwire/lowering';
import type { JsonSchema } from './messages.js';

export type { ValidationIssue };

/** One entry of a schema failure's `details` on the wire. */
export interface IssueDetail {
  /** `$`-rooted path of the offending value, e.g. `$.items[2].name`. */
  path: string;
  message: string;
  /** The keyword that refused it: the last segment of `schemaPath`. */
  keyword: string;
  schemaPath: string;
}

export type ValidationResult =
  | { valid: true; data: unknown }
  | { valid: false; errors: ValidationIssue[] };
export type Validate = (data: unknown) => ValidationResult;

export interface ValidatorProvider {
  /** Compiles a schema; may throw (the schema itself is invalid) or return a promise. */
  compile(schema: JsonSchema): Validate | Promise<Validate>;
}
