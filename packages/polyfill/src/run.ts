/**
 * The call pipeline for this document's own tools (docs/browser-api.md "Errors from callTool"), after
 * Tools.callTool found the tool and checked the permission and the caller's signal: the input
 * (DataError: JSON lifted through inputSchema, or structured values checked against it), the
 * tool itself (ToolExecutionError with the thrown value lowered in `.cause`), then the output
 * (OperationError when it fails outputSchema or cannot be lowered). With `encoding: 'json'` the
 * result comes back lowered to JSON. A side given as a Standard Schema (defineTool) is checked
 * by that schema alone, and its result is lowered by runtime type (standard-schema.ts).
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { expanded, namesWebTypes } from './agent-schema.js';
import { dataError, ToolExecutionError } from './errors.js';
import { checkPlain } from './json-input.js';
import { domException } from './lib/dom.js';
import type { LoweringModule } from './lib/lowering.js';
import { loadedLowering, loadLowering, lowerThrown } from './lib/lowering.js';
import type { RegistryEntry, ToolRegistry } from './registry.js';
import { ToolFailure } from './registry.js';
import type { StandardOutcome } from './standard-schema.js';
import { validateStandard } from './standard-schema.js';
import type { CallEncoding, JsonSchema, ToolProgress } from './types.js';
import { loadValidator } from './validation/load.js';
import { trivialCheck } from './validation/trivial.js';
import type { ValidationIssue } from './validation/types.js';
import { isWireJson } from './wire/result.js';

/**
 * Runs `entry` for `caller`. `wire`: the endpoint's WIRE_RESULT (wire/result.ts), a JSON result
 * may go out as it is. `onProgress`: the caller's listener for the tool's reportProgress.
 */
export async function runLocal(
  registry: ToolRegistry,
  entry: RegistryEntry,
  input: unknown,
  encoding: CallEncoding,
  signal: AbortSignal | undefined,
  caller: string,
  wire = false,
  onProgress?: ((progress: ToolProgress) => void) | undefined,
): Promise<unknown> {
  let value = input;
  const standard = entry.standard;
  if (standard?.input) {
    // The tool's Standard Schema is its one validator; JSON stays JSON (no webType lifting).
    if (encoding === 'json') checkPlain(value);
    const outcome = await runStandard(entry, standard.input, value);
    if (!outcome.ok) throw dataError(outcome.issues);
    value = outcome.value;
  } else if (entry.inputSchema) {
    if (encoding === 'json') {
      const lowering = await loweringFor(entry, 'input');
      await check(
        entry.inputSchema,
        lowering ? expanded(entry, 'input', lowering) : entry.inputSchema,
        value,
        'json',
        'input',
      );
      if (lowering) {
        try {
          value = await lowering.lift(value, entry.inputSchema);
        } catch (error) {
          throw asDataError(error);
        }
      }
    } else {
      await check(entry.inputSchema, entry.inputSchema, value, 'structured', 'input');
    }
  } else if (encoding === 'json') {
    checkPlain(value);
  }

  let result: unknown;
  try {
    result = await registry.execute(entry, value, {
      signal,
      caller: { origin: caller },
      onProgress,
    });
  } catch (error) {
    if (error instanceof ToolFailure)
      throw new ToolExecutionError(entry.name, await lowerThrown(error.error));
    throw error;
  }

  if (standard?.output) {
    const outcome = await runStandard(entry, standard.output, result);
    if (!outcome.ok) throw outputError(outcome.issues);
    result = outcome.value;
  }
  // The schema that decides the lowering: none for a Standard Schema side (by runtime type).
  const outputSchema = standard?.output ? undefined : entry.outputSchema;

  if (encoding === 'json') {
    // For the wire (see WIRE_RESULT): a result that is JSON as it is goes out as it is.
    if (wire && !outputSchema && isWireJson(result)) return result;
    let lowered: unknown;
    try {
      // The module once loaded is taken as it is: one await fewer per call.
      lowered = await (loadedLowering() ?? (await loadLowering())).lower(result, outputSchema);
    } catch (error) {
      throw domException(
        'OperationError',
        `The result of "${entry.name}" cannot be lowered to JSON: ${(error as Error).message}`,
      );
    }
    if (outputSchema) {
      const lowering = await loweringFor(entry, 'output');
      await check(
        outputSchema,
        lowering ? expanded(entry, 'output', lowering) : outputSchema,
        lowered,
        'json',
        'output',
      );
    }
    return lowered;
  }
  if (outputSchema) await check(outputSchema, outputSchema, result, 'structured', 'output');
  return result;
}

/**
 * A Standard Schema's verdict. Its `validate` is the tool's own code: a throw is the tool's
 * failure (ToolExecutionError), as a throw from `execute` is.
 */
async function runStandard(
  entry: RegistryEntry,
  schema: StandardSchemaV1,
  value: unknown,
): Promise<StandardOutcome> {
  try {
    return await validateStandard(schema, value);
  } catch (error) {
    throw new ToolExecutionError(entry.name, await lowerThrown(error));
  }
}

/** The lowering module when this schema names web types (memoized per registration). */
async function loweringFor(
  entry: RegistryEntry,
  which: 'input' | 'output',
): Promise<LoweringModule | undefined> {
  return namesWebTypes(entry, which) ? loadLowering() : undefined;
}

function asDataError(error: unknown): DOMException {
  const { path, schemaPath, message } = error as {
    path?: string;
    schemaPath?: string;
    message?: string;
  };
  return dataError([
    { path: path ?? '', reason: message ?? String(error), schemaPath: schemaPath ?? '' },
  ]);
}

/** Validates `value`; DataError for input, OperationError for output. */
async function check(
  original: JsonSchema,
  schema: object,
  value: unknown,
  mode: CallEncoding,
  which: 'input' | 'output',
): Promise<void> {
  const checked = mode === 'json' ? schema : original;
  // A schema any value (or any object) satisfies loads no validator (validation/trivial.ts); a
  // value it refuses goes to the engine, for the engine's own words.
  if (trivialCheck(checked)?.(value) === null) return;
  const validator = await loadValidator();
  const ready = validator.ready?.(checked, mode);
  if (ready) await ready;
  let issues: ValidationIssue[] | null;
  try {
    issues = validator.compile(checked, mode)(value);
  } catch (error) {
    // The schema passed registration's checks but the validator cannot compile it.
    throw domException(
      'OperationError',
      `The ${which} schema cannot be compiled: ${(error as Error).message}`,
    );
  }
  if (!issues) return;
  if (which === 'input') throw dataError(issues);
  throw outputError(issues);
}

/** A result that fails its output schema (JSON Schema or Standard Schema). */
function outputError(issues: ValidationIssue[]): DOMException {
  const first = issues[0];
  return domException(
    'OperationError',
    `The result does not match outputSchema: ${JSON.stringify({ path: first?.path, reason: first?.reason, schemaPath: first?.schemaPath })}`,
  );
}
