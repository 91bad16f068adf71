/**
 * Errors between frames: structured clone keeps a DOMException's name but drops extra
 * properties (`toolCode`, a validation failure's `issues`) and turns unknown Error subclasses
 * into plain Errors, so errors cross as records and are rebuilt on the caller's side with their
 * kind, their wire code and their issues intact (`@toolwire/polyfill/wire` reads those).
 */
import { withCode } from '../lib/dom.js';
import type { ValidationIssue } from '../validation/types.js';
import type { SerializedError } from './messages.js';
import { isRecord } from './messages.js';

/** The core's error constructors (in the IIFE build this module is a chunk with no copies of its own). */
export interface ErrorFactories {
  toolExecutionError(toolName: string, cause: unknown): Error;
  dataError(issues: ValidationIssue[], toolCode?: string): Error;
}

/** A wire code as a frame may claim one: lowercase words joined by `_`. */
const TOOL_CODE = /^[a-z][a-z0-9_]{0,63}$/;
/** The most issues one error carries across. */
const MAX_ISSUES = 256;

function toolCodeOf(value: unknown): string | undefined {
  return typeof value === 'string' && TOOL_CODE.test(value) ? value : undefined;
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
    const { toolCode, issues, errors } = error as {
      toolCode?: unknown;
      issues?: unknown;
      errors?: unknown;
    };
    const code = toolCodeOf(toolCode);
    if (code) out.toolCode = code;
    const list = Array.isArray(issues) ? issues : errors;
    // A DataError's as `errors`, which frames of every version read; any other's as `issues`.
    if (Array.isArray(list))
      out[error.name === 'DataError' ? 'errors' : 'issues'] = safeClone(list);
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
  const toolCode = toolCodeOf(value.toolCode);
  const list = Array.isArray(value.issues) ? value.issues : value.errors;
  const issues = Array.isArray(list)
    ? list
        .slice(0, MAX_ISSUES)
        .filter(
          (issue): issue is ValidationIssue =>
            isRecord(issue) &&
            typeof issue.path === 'string' &&
            typeof issue.reason === 'string' &&
            typeof issue.schemaPath === 'string',
        )
        .map(({ path, reason, schemaPath }) => ({ path, reason, schemaPath }))
    : [];
  if (name === 'DataError' && issues.length > 0) return make.dataError(issues, toolCode);
  if (name === 'TypeError') return new TypeError(message);
  const error = new DOMException(message, /^[A-Za-z]{1,64}$/.test(name) ? name : 'OperationError');
  return toolCode ? withCode(error, toolCode, issues.length > 0 ? issues : undefined) : error;
}

/** JSON-safe copy (causes and issues are JSON by construction; this guards against surprises). */
function safeClone(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value ?? null));
  } catch {
    return null;
  }
}
