/**
 * The tool search of the control API (`toolwire tools --query`), over the host's copy of a
 * catalog. It is the page's own `tool.query` search (@toolwire/protocol): the same fields, and
 * the same words, `normalizeSearch` splitting at every character that is not a letter or digit
 * (so `notes.add` finds `notes.add`, and `ADD note` finds it too).
 */
import { normalizeSearch } from '@toolwire/protocol';
import type { HostTool } from './cache.js';

/** The words of a query; none matches every tool. */
export function searchTerms(query: string): string[] {
  return normalizeSearch(query)
    .split(' ')
    .filter((term) => term !== '');
}

/** True when every term is in the tool's id, name, description, category, keywords or prerequisites. */
export function matchesSearch(tool: HostTool, terms: readonly string[]): boolean {
  if (terms.length === 0) return true;
  const haystack = normalizeSearch(
    [
      tool.id,
      tool.name,
      tool.description,
      tool.category,
      ...(tool.keywords ?? []),
      ...(tool.prerequisiteToolIds ?? []),
    ].join(' '),
  );
  return terms.every((term) => haystack.includes(term));
}
