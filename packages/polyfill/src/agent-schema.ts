/**
 * The schemas an agent sees: a registration's inputSchema / outputSchema with `webType`
 * expanded to plain JSON Schema (packages/lowering/LOWERING.md), memoized per registration.
 * The generic layer checks JSON calls against them; modelContext and the native mirror publish
 * them.
 */
import type { LoweringModule } from './lib/lowering.js';
import { usesWebTypes } from './lib/lowering.js';
import type { RegistryEntry } from './registry.js';

const EXPANDED = 'tools.expanded.';

/** The entry's memo, made on first use (registry.ts). */
function memoOf(entry: RegistryEntry): Map<string, unknown> {
  entry.memo ??= new Map();
  return entry.memo;
}

/** Does this registration's schema name a web type anywhere? (Memoized per registration.) */
export function namesWebTypes(entry: RegistryEntry, which: 'input' | 'output'): boolean {
  const key = `${EXPANDED}uses.${which}`;
  let uses = memoOf(entry).get(key) as boolean | undefined;
  if (uses === undefined) {
    uses = usesWebTypes(JSON.stringify(which === 'input' ? entry.inputSchema : entry.outputSchema));
    memoOf(entry).set(key, uses);
  }
  return uses;
}

/** The schema an agent sees (webType expanded), memoized per registration. */
export function expanded(
  entry: RegistryEntry,
  which: 'input' | 'output',
  lowering: LoweringModule,
): object {
  const key = EXPANDED + which;
  let schema = memoOf(entry).get(key) as object | undefined;
  if (!schema) {
    schema = lowering.expandSchema(
      (which === 'input' ? entry.inputSchema : entry.outputSchema) as object,
    );
    memoOf(entry).set(key, schema);
  }
  return schema;
}
