/** JSON Pointer (RFC 6901) helpers: the `path` and `schemaPath` of every LoweringError. */

export function escapeSegment(segment: string | number): string {
  const text = String(segment);
  return text.includes('~') || text.includes('/')
    ? text.replaceAll('~', '~0').replaceAll('/', '~1')
    : text;
}

/** `['a', 0, 'b/c']` -> `/a/0/b~1c`; the root is the empty string. */
export function toPointer(
  segments: readonly (string | number)[],
  length = segments.length,
): string {
  let out = '';
  for (let i = 0; i < length; i++) out += `/${escapeSegment(segments[i] as string | number)}`;
  return out;
}

/**
 * Resolves a same-document `$ref` (`#`, `#/$defs/x`, `#/properties/a%20b`) against the root
 * schema; undefined when it does not resolve. Fragment percent-escapes are decoded first,
 * then `~1` and `~0`, as RFC 6901 §6 orders it.
 */
export function resolveFragment(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) {
      return undefined;
    }
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}
