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
   * `true` in the IIFE build (a define), undefined elsewhere. Each place that loads a chunk
   * tests it itself, `typeof __TOOLWIRE_IIFE__ !== 'undefined' && __TOOLWIRE_IIFE__ ?
   * chunkFromScript(name) : import(...)`: the define makes that import() dead code, dropped
   * from the IIFE with the chunk it would inline. (A constant exported from here is not folded
   * across modules: the IIFE then inlined every chunk. A loader function per chunk cost bytes.)
   */
  const __TOOLWIRE_IIFE__: boolean | undefined;
}

/**
 * The chunks scripts/build.ts writes beside the IIFE, as `polyfill-<name>.js`; the last three
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
  | 'deflate';

/**
 * The IIFE's own URL, read while it is being evaluated (currentScript is null afterwards). An
 * inline or injected script has no `src` (`''`): then chunks resolve against the document's
 * base URL, which an about:blank frame inherits from its creator (its own URL, about:blank,
 * is no base at all: `new URL('./x.js', 'about:blank')` throws "Invalid URL").
 */
const scriptUrl: string | undefined =
  typeof document !== 'undefined'
    ? (document.currentScript as HTMLScriptElement | null)?.src || undefined
    : undefined;

/**
 * A lazy chunk that did not load (issue 15): the file is missing beside the script, or the
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
    const beside = script ? `beside ${script}` : "at the page's base URL (no script URL)";
    const standalone = script?.endsWith('.iife.js')
      ? script.replace(/\.iife\.js$/, '.standalone.iife.js')
      : 'endpoint.standalone.iife.js or polyfill.standalone.iife.js';
    super(
      `toolwire: cannot load ${file} from ${url ?? '(no URL)'} (${String(cause)}). ` +
        `Serve the polyfill-*.js files that come with the script ${beside}, ` +
        `or load ${standalone} instead (every chunk inlined, one file).`,
      { cause },
    );
    this.file = file;
    this.url = url;
  }
}

function failed(file: string, url: string | undefined, cause: unknown): Promise<never> {
  const error = new ChunkLoadError(file, url, cause);
  console.error(error.message);
  return Promise.reject(error);
}

/** A chunk fetched from beside the IIFE (only the IIFE build calls this). */
export function chunkFromScript<T>(name: ChunkName): Promise<T> {
  const file = `polyfill-${name}.js`;
  let url: string;
  try {
    const base = scriptUrl ?? (typeof document !== 'undefined' ? document.baseURI : location.href);
    url = new URL(`./${file}`, base).href;
  } catch (error) {
    return failed(file, undefined, error);
  }
  return (import(/* @vite-ignore */ url) as Promise<T>).catch((error: unknown) =>
    failed(file, url, error),
  );
}
