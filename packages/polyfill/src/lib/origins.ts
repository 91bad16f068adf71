/**
 * Origins in `exposedTo` / `fromOrigins` (WebMCP "registerTool" step 8, "getTools" step 2):
 * each entry is URL-parsed and must be potentially trustworthy (https, wss, file, or a
 * loopback http host). The generic layer also accepts `'*'` (the explainer's proposal).
 */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The serialized origin of `entry`, or undefined when it is not a potentially trustworthy origin. */
export function trustworthyOrigin(entry: unknown): string | undefined {
  if (typeof entry !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return undefined;
  }
  const { protocol, hostname } = url;
  if (protocol === 'https:' || protocol === 'wss:') return url.origin;
  if (protocol === 'http:' || protocol === 'ws:') {
    const host = hostname.toLowerCase();
    if (
      LOOPBACK_HOSTS.has(host) ||
      host.endsWith('.localhost') ||
      /^127(\.\d{1,3}){3}$/.test(host)
    ) {
      return url.origin;
    }
  }
  return undefined;
}

/** The current document's origin, as the registry compares origins. */
export function documentOrigin(): string {
  return typeof location === 'undefined' ? 'null' : location.origin;
}

/**
 * Is `value` an origin in its one serialized form (`new URL(o).origin === o`)? Origins that
 * cross between frames are compared as strings, so `HTTP://A.EXAMPLE` or `https://a.example/`
 * must never stand in for `https://a.example`: anything else is refused, not normalized.
 */
export function isCanonicalOrigin(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 2048) return false;
  // Every cross-frame request names its caller: the answer is remembered (URL parsing is most
  // of what checking a same-origin call costs), for a bounded number of strings.
  const known = canonical.get(value);
  if (known !== undefined) return known;
  let answer: boolean;
  try {
    answer = new URL(value).origin === value;
  } catch {
    answer = false;
  }
  if (canonical.size >= 256) canonical.clear();
  canonical.set(value, answer);
  return answer;
}

const canonical = new Map<string, boolean>();
