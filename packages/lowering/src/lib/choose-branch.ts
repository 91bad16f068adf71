import { LoweringError } from '../lowering-error.js';
import type { SchemaNode, UnionNode } from './schema-node.js';
import type { WalkState } from './walk-state.js';

/**
 * anyOf / oneOf for both walkers (LOWERING.md [L9]): anyOf takes the first branch that walks
 * the value without error; oneOf needs exactly one. A failed branch leaves nothing behind
 * (path, size budget, queued tasks), and when none fits, the error of the branch that got
 * furthest into the value becomes the cause: it is most likely the one the caller meant.
 */
export function chooseBranch<T>(node: UnionNode, w: WalkState, walk: (branch: SchemaNode) => T): T {
  let result: T | undefined;
  let found = -1;
  let closest: LoweringError | undefined;
  for (let i = 0; i < node.branches.length; i++) {
    const mark = w.mark();
    let out: T;
    try {
      out = walk(node.branches[i] as SchemaNode);
    } catch (error) {
      w.restore(mark);
      if (!(error instanceof LoweringError)) throw error;
      if (closest === undefined || error.path.length > closest.path.length) closest = error;
      continue;
    }
    if (!node.one) return out;
    if (found >= 0) {
      w.restore(mark);
      w.fail('no_matching_branch', `Fits oneOf branches ${found} and ${i}.`, node.at);
    }
    found = i;
    result = out;
  }
  if (found < 0) {
    w.fail(
      'no_matching_branch',
      `Fits no ${node.one ? 'oneOf' : 'anyOf'} branch; closest: ${closest?.path || '(root)'}: ${closest?.message}`,
      node.at,
      closest,
    );
  }
  return result as T;
}
