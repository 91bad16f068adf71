import type { LoweringErrorCode } from './error-codes.js';
import type { ValidationIssue } from './types.js';

/**
 * The one error lower, lift and expandSchema throw for data and schema problems. `path` is a
 * JSON Pointer (RFC 6901) into the JSON side: the lift input, or the place in lower's output
 * where the offending value would have gone. `schemaPath` is a URI-fragment pointer to the
 * schema keyword that decided (`#/properties/when/webType`), as ajv reports it.
 */
export class LoweringError extends Error {
  override name = 'LoweringError';
  readonly code: LoweringErrorCode;
  readonly path: string;
  readonly schemaPath: string;

  constructor(
    code: LoweringErrorCode,
    message: string,
    options: { path?: string; schemaPath?: string; cause?: unknown } = {},
  ) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.code = code;
    this.path = options.path ?? '';
    this.schemaPath = options.schemaPath ?? '#';
  }

  /** Its code and the ValidationIssue it amounts to (the shape a DataError message carries). */
  toJSON(): { code: LoweringErrorCode } & ValidationIssue {
    return { code: this.code, path: this.path, reason: this.message, schemaPath: this.schemaPath };
  }
}

/**
 * What a lowering failure says (LOWERING.md §11): `schema`, the value is readable but not what
 * the schema describes (a schema's verdict, with its path); `definition`, the schema itself
 * cannot be followed; `value`, the value cannot be read or made JSON whatever the schema says
 * (a cycle, too deep or too large, a type with no lowering, a throwing getter). Anything that is
 * not a LoweringError is `value`.
 */
export type LoweringFailureKind = 'schema' | 'definition' | 'value';

const VALUE_CODES: ReadonlySet<string> = new Set<LoweringErrorCode>([
  'unsupported_type',
  'unsupported_in_environment',
  'not_json',
  'cycle',
  'read_failed',
  'depth_exceeded',
  'json_too_large',
  'binary_too_large',
]);

export function failureKind(error: unknown): LoweringFailureKind {
  if (!(error instanceof LoweringError)) return 'value';
  if (error.code === 'unsupported_schema') return 'definition';
  return VALUE_CODES.has(error.code) ? 'value' : 'schema';
}
