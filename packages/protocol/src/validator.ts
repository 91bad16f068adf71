/**
 * Validation behind a provider (docs/style.md 6): `compile(schema)` once per schema, then
 * `validate(data) -> {valid: true, data} | {valid: false, errors}`. The bridge takes one as an
 * option and has no default, so this package does not depend on a validator: a Node host or a
 * test takes `createAjvProvider` from `@toolwire/protocol/ajv`, the endpoint the polyfill's
 * engines. Every engine reports the lowering's one `ValidationIssue` (a JSON Pointer `path`,
 * `reason`, `schemaPath`); `schemaFailure` is the one place that rewrites them as the wire's
 * `details` (`IssueDetail`: a `$`-rooted path, as docs/wire.md "tool.call" asks).
 */
import type { ValidationIssue } from '@toolwire/lowering';
import { errorPayload } from './errors.js';
import type { ErrorPayload, JsonSchema, JsonValue } from './messages.js';

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

/** JSON Pointer (`/a/0/b~1c`) to the `$`-rooted path the wire uses (`$.a[0]["b/c"]`). */
function pointerToPath(pointer: string): string {
  if (pointer === '') return '$';
  let path = '$';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^(0|[1-9][0-9]*)$/.test(segment)) path += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

/** The one adapter from ValidationIssue to the wire's `details` entry. */
function issueDetail(issue: ValidationIssue): IssueDetail {
  return {
    path: pointerToPath(issue.path),
    message: issue.reason,
    keyword: issue.schemaPath.split('/').at(-1) ?? '',
    schemaPath: issue.schemaPath,
  };
}

/**
 * The wire's error for arguments or a result that fail their schema (docs/wire.md "tool.call"):
 * `details` are the issues; the message names the first.
 */
export function schemaFailure(
  which: 'arguments' | 'result',
  toolId: string,
  issues: readonly ValidationIssue[],
): ErrorPayload {
  const details = issues.map(issueDetail);
  const first = details[0];
  const where = `${first?.path ?? '$'} ${first?.message ?? ''}`.trim();
  return which === 'arguments'
    ? errorPayload(
        'tool_arguments_schema_invalid',
        `The arguments do not match the tool's argumentsSchema: ${where}`,
        details as unknown as JsonValue,
      )
    : errorPayload(
        'tool_result_schema_invalid',
        `The result of "${toolId}" does not match its resultSchema: ${where}`,
        details as unknown as JsonValue,
      );
}
