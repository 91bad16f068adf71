/**
 * The `tools` permissions-policy feature, emulated from an `<iframe allow>` attribute
 * (docs/browser-api.md "Permissions"; the WebMCP spec's feature has the default allowlist 'self').
 *
 * An allow attribute is a list of `feature allowlist` directives separated by `;`. For `tools`:
 * absent -> the default 'self' (the child must be same-origin with its parent); `tools` alone
 * -> 'src'; `*` -> everyone; `'none'` -> no one; `'self'` -> the parent's origin; `'src'` ->
 * the origin of the iframe's src; an origin -> that origin. The child's actual origin is what
 * is checked, so a frame that navigates elsewhere loses the grant (WPT permissions-policy 1).
 */

export interface AllowContext {
  /** The child document's origin, as attested by postMessage. */
  childOrigin: string;
  /** The embedding (parent) document's origin. */
  parentOrigin: string;
  /** The origin of the iframe's src attribute, resolved against the parent's URL. */
  srcOrigin: string | undefined;
}

/** The allowlist the attribute gives `tools`, or undefined when the attribute does not name it. */
export function toolsAllowlist(allow: string | null | undefined): string[] | undefined {
  if (!allow) return undefined;
  for (const directive of allow.split(';')) {
    const tokens = directive.trim().split(/\s+/).filter(Boolean);
    if (tokens[0]?.toLowerCase() !== 'tools') continue;
    const list = tokens.slice(1);
    return list.length === 0 ? ["'src'"] : list;
  }
  return undefined;
}

function sameOrigin(token: string, origin: string): boolean {
  try {
    return new URL(token).origin === origin;
  } catch {
    return false;
  }
}

/** Does the embedding grant `tools` to the child? (The parent must be allowed itself, too.) */
export function allowGrantsTools(allow: string | null | undefined, context: AllowContext): boolean {
  const list = toolsAllowlist(allow) ?? ["'self'"];
  const { childOrigin, parentOrigin, srcOrigin } = context;
  if (childOrigin === 'null') return false;
  for (const raw of list) {
    const token = raw.toLowerCase();
    if (token === "'none'") return false;
  }
  return list.some((raw) => {
    const token = raw.toLowerCase();
    if (token === '*') return true;
    if (token === "'self'") return childOrigin === parentOrigin;
    if (token === "'src'") return srcOrigin !== undefined && childOrigin === srcOrigin;
    return sameOrigin(raw, childOrigin);
  });
}
