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

/** The chunks scripts/build.ts writes beside the IIFE, as `polyfill-<name>.js`. */
export type ChunkName =
  | 'validator-ajv'
  | 'validator-cfworker'
  | 'lowering'
  | 'frames'
  | 'native'
  | 'declarative';

/** The IIFE's own URL, read while it is being evaluated (currentScript is null afterwards). */
const scriptBase: string | undefined =
  typeof document !== 'undefined'
    ? ((document.currentScript as HTMLScriptElement | null)?.src ?? undefined)
    : undefined;

/** A chunk fetched from beside the IIFE (only the IIFE build calls this). */
export function chunkFromScript<T>(name: ChunkName): Promise<T> {
  const base = scriptBase ?? (typeof location !== 'undefined' ? location.href : '');
  return import(/* @vite-ignore */ new URL(`./polyfill-${name}.js`, base).href) as Promise<T>;
}
