/**
 * Errors between frames: structured clone keeps a DOMException's name but drops extra
 * properties (DataError's `errors`) and turns unknown Error subclasses into plain Errors, so
 * errors cross as records and are rebuilt on the caller's side with their kind intact.
 */
import type { ValidationIssue } from '../validation/types.js';
import type { SerializedError } from './messages.js';
import { isRecord } from './messages.js';

/** The core's error constructors (in the IIFE build this module is a chunk with no copies of its own). */
export interface ErrorFactories {
  toolExecutionError(toolName: string, cause: unknown): Error;
  dataError(issues: ValidationIssue[]): Error;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error && error.name === 'ToolExecutionError') {
    const { toolName, cause } = error as Error & { toolName?: unknown };
    return {
      name: error.name,
      message: error.message,
      cause: safeClone(cause),
      toolName: String(toolName ?? ''),
    };
  }
  if (error instanceof DOMException || error instanceof Error) {
    const out: SerializedError = { name: error.name, message: error.message };
    const errors = (error as { errors?: unknown }).errors;
    if (Array.isArray(errors)) out.errors = safeClone(errors);
    return out;
  }
  return { name: 'Error', message: String(error) };
}

export function deserializeError(value: unknown, make: ErrorFactories): Error {
  if (!isRecord(value))
    return new DOMException('A frame answered with an unreadable error.', 'OperationError');
  const name = typeof value.name === 'string' ? value.name : 'Error';
  const message = typeof value.message === 'string' ? value.message : '';
  if (name === 'ToolExecutionError') {
    return make.toolExecutionError(
      typeof value.toolName === 'string' ? value.toolName : '',
      value.cause,
    );
  }
  if (name === 'DataError' && Array.isArray(value.errors)) {
    const issues = value.errors.filter(
      (issue): issue is ValidationIssue =>
        isRecord(issue) &&
        typeof issue.path === 'string' &&
        typeof issue.reason === 'string' &&
        typeof issue.schemaPath === 'string',
    );
    if (issues.length > 0) return make.dataError(issues);
  }
  if (name === 'TypeError') return new TypeError(message);
  return new DOMException(message, /^[A-Za-z]{1,64}$/.test(name) ? name : 'OperationError');
}

/** JSON-safe copy (causes and issues are JSON by construction; this guards against surprises). */
function safeClone(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value ?? null));
  } catch {
    return null;
  }
}
