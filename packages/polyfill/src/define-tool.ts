/**
 * `defineTool()`: a definition for `toolManager.register`
 * whose `execute` is typed from its schemas.
 *
 * - JSON Schema (an object literal; the const type parameters read it as `as const` would):
 *   `execute`'s input is `FromSchema<inputSchema>` (from-schema.ts, `webType` included) and
 *   its result `FromSchema<outputSchema>`. At run time the definition is returned as it is.
 * - A Standard Schema (zod 4, valibot...): `execute` takes the schema's output type and
 *   returns the output schema's input type. The returned definition carries JSON Schema for
 *   agents in `inputSchema` / `outputSchema` and the schemas themselves beside them
 *   (standard-schema.ts), so that every call is validated by them.
 *
 * The JSON Schema of a Standard Schema side comes from, in order: the definition's
 * `naturalLanguageProperties.inputSchema` / `outputSchema` (the author says what agents read),
 * the library's Standard JSON Schema converter (`~standard.jsonSchema`, draft 2020-12; zod 4
 * has it), else none. A tool without `naturalLanguageProperties` needs none (page scripts call
 * it; only agents need a schema to write arguments); an agent-exposed one without a schema is
 * a ToolDefinitionError, thrown here, where the tool is written.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { FromSchema, JsonSchemaLike } from './from-schema.js';
import { isStandardSchema, STANDARD_SCHEMAS, type StandardSchemas } from './standard-schema.js';
import type { JsonSchema, ToolDefinition, ToolExecuteContext } from './types.js';

/** The codes of ToolDefinitionError, one per way a definition cannot be made. */
export const TOOL_DEFINITION_ERROR_CODES = [
  /** An agent-exposed tool's Standard Schema has no JSON Schema (no converter, none given). */
  'no_json_schema',
  /** The library's converter threw (a type JSON Schema cannot express); `cause` is its error. */
  'json_schema_failed',
  /** `~standard.version` is not 1. */
  'unsupported_standard_version',
] as const;

export type ToolDefinitionErrorCode = (typeof TOOL_DEFINITION_ERROR_CODES)[number];

/** A definition `defineTool` cannot make. A TypeError, as registration's own schema errors. */
export class ToolDefinitionError extends TypeError {
  override name = 'ToolDefinitionError';
  readonly code: ToolDefinitionErrorCode;
  /** The wire contract's code: a definition the page got wrong. */
  readonly toolCode = 'tool_definition_invalid';

  constructor(code: ToolDefinitionErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** A schema `defineTool` accepts: JSON Schema, or a Standard Schema object. */
export type ToolSchema = JsonSchemaLike | StandardSchemaV1;

/** What `execute` receives for an `inputSchema` (no schema: whatever the caller passed). */
export type InputOf<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends undefined
    ? unknown
    : FromSchema<S>;

/** What `execute` must return for an `outputSchema` (no schema: anything). */
export type OutputOf<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferInput<S>
  : S extends undefined
    ? unknown
    : FromSchema<S>;

/** `defineTool`'s argument: a ToolDefinition whose schemas type its `execute`. */
export interface ToolSpec<I, O>
  extends Omit<ToolDefinition, 'execute' | 'inputSchema' | 'outputSchema'> {
  inputSchema?: I;
  outputSchema?: O;
  // A property, not a method: parameters are checked strictly (a method's are bivariant).
  execute: (
    input: InputOf<I>,
    context: ToolExecuteContext,
  ) => OutputOf<O> | PromiseLike<OutputOf<O>>;
}

/** A definition ready for `toolManager.register`, with `execute` typed. */
export interface DefinedTool<Input = unknown, Output = unknown> extends ToolDefinition {
  execute(input: Input, context: ToolExecuteContext): Output | PromiseLike<Output>;
}

export function defineTool<
  const I extends ToolSchema | undefined = undefined,
  const O extends ToolSchema | undefined = undefined,
>(definition: ToolSpec<I, O>): DefinedTool<InputOf<I>, OutputOf<O>> {
  const { inputSchema, outputSchema } = definition;
  const input = isStandardSchema(inputSchema) ? inputSchema : undefined;
  const output = isStandardSchema(outputSchema) ? outputSchema : undefined;
  if (!input && !output) return definition as unknown as DefinedTool<InputOf<I>, OutputOf<O>>;

  const nlp = definition.naturalLanguageProperties;
  const published = nlp ? { ...nlp } : undefined;
  const tool: ToolDefinition & { [STANDARD_SCHEMAS]: StandardSchemas } = {
    ...(definition as unknown as ToolDefinition),
    [STANDARD_SCHEMAS]: { input, output },
  };
  for (const [side, schema] of [
    ['input', input],
    ['output', output],
  ] as const) {
    if (!schema) continue;
    const props = schema['~standard'];
    if (props.version !== 1) {
      throw new ToolDefinitionError(
        'unsupported_standard_version',
        `"${String(definition.name)}"'s ${side}Schema (${String(props.vendor)}) is Standard ` +
          `Schema version ${String(props.version)}; toolwire reads version 1.`,
      );
    }
    const key = side === 'input' ? 'inputSchema' : 'outputSchema';
    const given = published?.[key];
    // The JSON Schema goes at the top level only: register() refuses two that differ.
    if (published) delete published[key];
    const json = given ?? jsonSchemaOf(schema, side, definition.name, nlp !== undefined);
    if (json) tool[key] = json;
    else delete tool[key];
  }
  if (published) tool.naturalLanguageProperties = published;
  return tool as DefinedTool<InputOf<I>, OutputOf<O>>;
}

/** The library's JSON Schema of one side; undefined when it has none and none is needed. */
function jsonSchemaOf(
  schema: StandardSchemaV1,
  side: 'input' | 'output',
  name: string,
  agentExposed: boolean,
): JsonSchema | undefined {
  const props = schema['~standard'];
  const label = `"${String(name)}"'s ${side}Schema (${String(props.vendor)})`;
  const converter = (props as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
  if (typeof converter?.[side] !== 'function') {
    if (!agentExposed) return undefined;
    throw new ToolDefinitionError(
      'no_json_schema',
      `${label} cannot give agents a JSON Schema: it does not implement Standard JSON Schema ` +
        '(~standard.jsonSchema). Use a library version that does (zod 4.2 or later), wrap the ' +
        `schema in one that does, or write the JSON Schema in naturalLanguageProperties.${side}Schema.`,
    );
  }
  try {
    // The agent writes the input side's JSON and reads the output side's. Copied as plain
    // data: zod hangs a (non-enumerable) Standard Schema of its own on what it returns.
    const json = converter[side]({ target: 'draft-2020-12' });
    return JSON.parse(JSON.stringify(json)) as JsonSchema;
  } catch (error) {
    if (!agentExposed) return undefined;
    throw new ToolDefinitionError(
      'json_schema_failed',
      `${label} has no JSON Schema form: ${error instanceof Error ? error.message : String(error)}. ` +
        `Agents send and receive JSON: describe that (a string for a date, say, then transform it), ` +
        `or write the JSON Schema in naturalLanguageProperties.${side}Schema.`,
      { cause: error },
    );
  }
}
