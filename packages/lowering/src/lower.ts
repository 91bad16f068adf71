import { anyNode, compileSchema } from './lib/compile-schema.js';
import { lowerNode } from './lib/lower-walk.js';
import { WalkState } from './lib/walk-state.js';
import type { LoweringOptions } from './limits.js';
import type { Json, JsonSchema } from './types.js';

/** Without a schema every position is `{}`: values lower by their runtime type. */
const RUNTIME = anyNode('#');

/**
 * Lowers a value to JSON the caller owns (LOWERING.md). Without a schema, by runtime type;
 * with one, as the schema says, checking the JSON it makes against the schema's keywords.
 * Rejects with a LoweringError whose `path` is where the value would sit in the JSON.
 * Asynchronous only because Blob bytes and PNG encoding are.
 */
export async function lower(
  value: unknown,
  schema?: JsonSchema,
  options?: LoweringOptions,
): Promise<Json> {
  const node = schema === undefined ? RUNTIME : compileSchema(schema);
  const w = new WalkState(options);
  // A tool that returns nothing returns JSON null (LOWERING.md §"Special values").
  const json = lowerNode(node, value === undefined ? null : value, w, 0, '');
  await w.runTasks();
  w.finishBudget(json);
  return json;
}
