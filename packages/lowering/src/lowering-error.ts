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
