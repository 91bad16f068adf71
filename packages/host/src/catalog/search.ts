/** The tool search of the control API (`toolwire tools --query`), over the host's copy. */
import type { HostTool } from './cache.js';

/** Case-insensitive: every word of `query` in the id, name, description, category or keywords. */
export function matchesQuery(tool: HostTool, query: string): boolean {
  const haystack = [tool.id, tool.name, tool.description, tool.category, ...(tool.keywords ?? [])]
    .join(' ')
    .toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}
