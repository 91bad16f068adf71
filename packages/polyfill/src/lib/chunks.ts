/**
 * Lazily loaded parts of the polyfill: the two validator engines, the lowering, the frames
 * bridge, the native layer and declarative (form) tools. Each is loaded where it is needed
 * (validation/load.ts, lib/lowering.ts, frames/gate.ts, native-proxy.ts, and install.ts for
 * form tools), so nothing down here imports the features above it. Module builds let
 * the bundler split each at its import(); the IIFE build (one classic script, which cannot be
 * split) loads them as ES modules from beside its own URL, captured while it runs.
 */

declare global {
  /**
   * The page script being built (a define, scripts/version-define.ts), undefined elsewhere:
   * `'split'` fetches every chunk by URL, `'standalone'` inlines the common ones. Each place
   * that loads a chunk tests it itself, `typeof __TOOLWIRE_IIFE__ !== 'undefined' &&
   * __TOOLWIRE_IIFE__ === 'split' ? chunkFromScript(name) : import(...)` for a common chunk,
   * `typeof __TOOLWIRE_IIFE__ !== 'undefined' ? ...` for a rare one: the define makes that
   * import() dead code, dropped from the IIFE with the chunk it would inline. (A constant exported from here is not folded
   * across modules: the IIFE then inlined every chunk. A loader function per chunk cost bytes.)
   */
  const __TOOLWIRE_IIFE__: 'split' | 'standalone' | undefined;
  /** The package's name and version in its page scripts (defines), undefined elsewhere. */
  const __TOOLWIRE_PACKAGE__: '@toolwire/polyfill' | '@toolwire/endpoint' | undefined;
  const __TOOLWIRE_VERSION__: string | undefined;
}

/**
 * The chunks scripts/build.ts writes beside the IIFE, as `polyfill-<name>.js`; the last five
 * are the endpoint's own (packages/endpoint/src/chunks.ts), written beside `endpoint.iife.js`
 * under the same pattern, so a page serves one set of files.
 */
export type ChunkName =
  | 'validator-ajv'
  | 'validator-cfworker'
  | 'lowering'
  | 'frames'
  | 'native'
  | 'declarative'
  | 'ui-builtins'
  | 'pairing'
  | 'deflate'
  | 'hmac'
  | 'schema-failure';

/**
 * The script element running this IIFE, captured while it is being evaluated (currentScript is
 * null afterwards) through the DOM's own getter, never `document.currentScript`: markup a page
 * lets users post (`<img name="currentScript">`, a form so named) shadows that property on
 * `document`, not `Document.prototype`'s getter. Only a real script element of this realm
 * counts (anything else reads as none). `document` itself is unforgeable.
 */
let ownScript: HTMLScriptElement | undefined;
/**
 * The URL the IIFE was fetched from, the one place its chunks come from. A script with no `src`
 * (inline, or injected as text) has none: it loads no chunks (each rejects with
 * `toolwire_chunk_load_failed`, naming the standalone build); the document's base URL is never
 * used, since a `<base href>` in posted markup would choose where code comes from. The `src`
 * is resolved against the base in force when the browser fetched the script: a `<base>` after
 * the script (non-conforming, and where posted markup lands) did not apply then, so the
 * attribute is resolved against the document's own URL instead.
 */
let scriptUrl: string | undefined;
try {
  const element: unknown = Object.getOwnPropertyDescriptor(
    Document.prototype,
    'currentScript',
  )?.get?.call(document);
  if (element instanceof HTMLScriptElement) {
    ownScript = element;
    const src = ownScriptAttribute('src');
    const base = Document.prototype.querySelector.call(document, 'base[href]');
    if (src) {
      scriptUrl =
        base && Node.prototype.compareDocumentPosition.call(element, base) & 4 // follows
          ? new URL(src, location.href).href
          : element.src;
    }
  }
} catch {
  // no DOM (a worker, Node): no script, no chunks by URL
}

/** An attribute of the IIFE's own script element, read through Element.prototype's getter. */
export function ownScriptAttribute(name: string): string | null {
  return ownScript ? Element.prototype.getAttribute.call(ownScript, name) : null;
}

/**
 * A lazy chunk that did not load: the file is missing beside the script, or the
 * network refused it. Logged once per attempt with the fix, and the call that needed the chunk
 * rejects with it rather than waiting.
 */
class ChunkLoadError extends Error {
  override name = 'ChunkLoadError';
  readonly code = 'toolwire_chunk_load_failed';
  /** The wire contract's code, as on the polyfill's other errors (retryable). */
  readonly toolCode = 'toolwire_chunk_load_failed';
  /** `polyfill-<name>.js` */
  readonly file: string;
  /** Where it was looked for; undefined when no URL could be formed. */
  readonly url: string | undefined;

  constructor(file: string, url: string | undefined, cause: unknown) {
    const script = scriptUrl?.split(/[?#]/)[0]?.split('/').pop();
    // The one-file script inlines the common parts only: its fix is to serve the rarer ones.
    const instead =
      typeof __TOOLWIRE_IIFE__ !== 'undefined' && __TOOLWIRE_IIFE__ === 'standalone'
        ? ''
        : `, or load ${
            script?.endsWith('.iife.js')
              ? script.replace(/\.iife\.js$/, '.standalone.iife.js')
              : 'endpoint.standalone.iife.js or polyfill.standalone.iife.js'
          } instead (the common parts inlined)`;
    const fix = script
      ? `Serve the polyfill-*.js files that come with the script beside ${script}${instead}`
      : `An inline script (no src) loads no chunks: load the script by src${instead}`;
    super(`toolwire: cannot load ${file} from ${url ?? '(no URL)'} (${String(cause)}). ${fix}.`, {
      cause,
    });
    this.file = file;
    this.url = url;
  }
}

function failed(file: string, url: string | undefined, cause: unknown): Promise<never> {
  const error = new ChunkLoadError(file, url, cause);
  console.error(error.message);
  return Promise.reject(error);
}

/**
 * The folder the script's chunks are in: the script's own, except for the one-file script
 * (what the package's `jsdelivr` / `unpkg` fields name) under a CDN's bare package URL
 * (`https://cdn.jsdelivr.net/npm/@toolwire/endpoint`, `.../@toolwire/endpoint@0.1`, unpkg's
 * alike), which is not its folder: there, `dist/` of this script's own version, on the same
 * origin and path.
 */
function folderOf(url: string): string {
  return typeof __TOOLWIRE_PACKAGE__ === 'undefined'
    ? url
    : url.replace(
        /\/@toolwire\/[a-z]+(@[^/?#]*)?\/?([?#].*)?$/,
        `/${__TOOLWIRE_PACKAGE__}@${__TOOLWIRE_VERSION__}/dist/`,
      );
}

/** A chunk fetched from beside the IIFE (only the IIFE build calls this). */
export function chunkFromScript<T>(name: ChunkName): Promise<T> {
  const file = `polyfill-${name}.js`;
  if (scriptUrl === undefined) {
    return failed(file, undefined, 'no src');
  }
  let url: string;
  try {
    // Beside the script, on its origin (the define drops folderOf from the split script).
    url = new URL(
      `./${file}`,
      typeof __TOOLWIRE_IIFE__ !== 'undefined' && __TOOLWIRE_IIFE__ === 'standalone'
        ? folderOf(scriptUrl)
        : scriptUrl,
    ).href;
  } catch (error) {
    return failed(file, undefined, error);
  }
  return (import(/* @vite-ignore */ url) as Promise<T>).catch((error: unknown) =>
    failed(file, url, error),
  );
}
