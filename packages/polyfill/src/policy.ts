import type { ToolAnnotations, ToolPolicy } from './types.js';

/**
 * The wire policy a tool's annotations imply when it declares none (docs/browser-api.md "Registering"):
 * destructiveHint -> critical, readOnlyHint -> read, else write. A tool hinted both ways is
 * critical: the hint that asks for more care wins. Every layer uses this one rule: toolManager
 * and document.modelContext registrations, form tools, and the browser's own tools on the wire.
 */
export function policyFromAnnotations(
  annotations:
    | Readonly<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint'>>
    | null
    | undefined,
): ToolPolicy {
  if (annotations?.destructiveHint) return 'critical';
  if (annotations?.readOnlyHint) return 'read';
  return 'write';
}
