/**
 * Lazily loaded parts of the polyfill: the two validator engines, the lowering, the frames
 * bridge, the native layer and declarative (form) tools. Module builds let the bundler split
 * them; the IIFE build (one classic script, which cannot be split) loads them as ES modules
 * from beside its own URL, captured while it runs.
 */
import type { LoweringModule } from './lowering.js';

declare const __TOOLWIRE_IIFE__: boolean | undefined;

interface ValidatorChunk {
  createValidator(): Promise<import('../validation.js').SchemaValidator>;
}

interface Chunks {
  frames: typeof import('../frames/node.js');
  declarative: typeof import('../declarative/forms.js');
  native: typeof import('../native.js');
  'validator-ajv': ValidatorChunk;
  'validator-cfworker': ValidatorChunk;
  lowering: LoweringModule;
}

/** The IIFE's own URL, read while it is being evaluated (currentScript is null afterwards). */
const scriptBase: string | undefined =
  typeof document !== 'undefined'
    ? ((document.currentScript as HTMLScriptElement | null)?.src ?? undefined)
    : undefined;

export function loadChunk<K extends keyof Chunks>(name: K): Promise<Chunks[K]> {
  // The IIFE build defines __TOOLWIRE_IIFE__ as true, so the module branch below is dropped
  // from it (and with it, the chunks it would otherwise inline).
  if (typeof __TOOLWIRE_IIFE__ !== 'undefined' && __TOOLWIRE_IIFE__) {
    const base = scriptBase ?? (typeof location !== 'undefined' ? location.href : '');
    return import(/* @vite-ignore */ new URL(`./polyfill-${name}.js`, base).href) as Promise<
      Chunks[K]
    >;
  }
  switch (name) {
    case 'validator-ajv':
      return import('../validator-ajv.js') as Promise<Chunks[K]>;
    case 'validator-cfworker':
      return import('../validator-cfworker.js') as Promise<Chunks[K]>;
    case 'native':
      return import('../native.js') as Promise<Chunks[K]>;
    case 'frames':
      return import('../frames/node.js') as Promise<Chunks[K]>;
    case 'declarative':
      return import('../declarative/forms.js') as Promise<Chunks[K]>;
    default:
      return import('@toolwire/lowering') as unknown as Promise<Chunks[K]>;
  }
}
