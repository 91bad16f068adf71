import { compileSchema } from './lib/compile-schema.js';
import { liftNode } from './lib/lift-walk.js';
import { Pending } from './lib/pending.js';
import { WalkState } from './lib/walk-state.js';
import type { LoweringOptions } from './limits.js';
import type { JsonSchema } from './types.js';

/**
 * Lifts JSON to web values through a schema, strictly (LOWERING.md §"Strict lifting"): no
 * coercion, no guessing, and web types only where the schema names them. Rejects with a
 * LoweringError whose `path` points into `json` and whose `schemaPath` names the keyword.
 */
export async function lift(
  json: unknown,
  schema: JsonSchema,
  options?: LoweringOptions,
): Promise<unknown> {
  const node = compileSchema(schema);
  const w = new WalkState(options);
  let result = liftNode(node, json, w, 0);
  // The input is fully walked: settle its size before decoding any image.
  w.finishBudget(json);
  if (result instanceof Pending) {
    result.fill.push((ready) => {
      result = ready;
    });
  }
  await w.runTasks();
  return result;
}
