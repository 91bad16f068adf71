/**
 * The arguments of a call on the native path, checked against the tool's inputSchema before the
 * browser runs it, as the page's own endpoint checks a browser's tool on the wire: the same
 * validator (ajv, JSON Schema 2020-12), the same code and issues (`schemaFailure`). Validators
 * are compiled once per schema text.
 */
import type { JsonSchema, Validate } from '@toolwire/protocol';
import { schemaFailure } from '@toolwire/protocol';
import { createAjvProvider } from '@toolwire/protocol/ajv';
import { WebMCPError } from './errors.js';

const provider = createAjvProvider();
const compiled = new Map<string, Promise<Validate | undefined>>();

function validatorFor(schema: object): Promise<Validate | undefined> {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return known;
  // A schema ajv cannot compile is the browser's to judge: the call goes on unchecked.
  const validate = Promise.resolve()
    .then(() => provider.compile(schema as JsonSchema))
    .catch(() => undefined);
  compiled.set(key, validate);
  return validate;
}

/** The `tool_arguments_schema_invalid` WebMCPError for `input`, or undefined when it passes. */
export async function checkArguments(
  name: string,
  schema: unknown,
  input: Record<string, unknown>,
): Promise<WebMCPError | undefined> {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const validate = await validatorFor(schema);
  const check = validate?.(input);
  if (!check || check.valid) return undefined;
  const failure = schemaFailure('arguments', name, check.errors, schema);
  return new WebMCPError('tool_arguments_schema_invalid', failure.message, 'native', name, {
    retryable: failure.retryable,
    details: failure.details,
  });
}
