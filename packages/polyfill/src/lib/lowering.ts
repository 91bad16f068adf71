/**
 * @toolwire/lowering, loaded on first need: only the JSON encoding, `webType` schemas and
 * thrown errors use it, so a page that calls tools with structured values never pays for it.
 */
import { chunkFromScript } from './chunks.js';

/** The part of @toolwire/lowering the polyfill uses (see packages/lowering/LOWERING.md). */
export interface LoweringModule {
  lower(value: unknown, schema?: object, options?: object): Promise<unknown>;
  lift(json: unknown, schema: object, options?: object): Promise<unknown>;
  expandSchema(schema: object): object;
  LoweringError: abstract new (
    ...args: never[]
  ) => Error & { code: string; path: string; schemaPath: string };
  failureKind(error: unknown): 'schema' | 'definition' | 'value';
}

let loading: Promise<LoweringModule> | undefined;
let loaded: LoweringModule | undefined;

export function loadLowering(): Promise<LoweringModule> {
  // The chunk (chunks.ts): from beside the IIFE there, where the import() is dead code.
  loading ??= (
    typeof __TOOLWIRE_IIFE__ !== 'undefined' && __TOOLWIRE_IIFE__ === 'split'
      ? chunkFromScript<LoweringModule>('lowering')
      : (import('@toolwire/lowering') as unknown as Promise<LoweringModule>)
  ).then(
    (module) => {
      loaded = module;
      return module;
    },
    (error) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The module once loadLowering has resolved; undefined before. */
export function loadedLowering(): LoweringModule | undefined {
  return loaded;
}

/** Does this schema mention a web type anywhere? (Cheap test before loading the lowering.) */
export function usesWebTypes(schemaText: string | undefined): boolean {
  return schemaText?.includes('"webType"') === true;
}

/** A thrown value as JSON (`{name, message, code?, cause?}` for errors), never a stack. */
export async function lowerThrown(value: unknown): Promise<unknown> {
  try {
    const { lower } = await loadLowering();
    return await lower(value);
  } catch {
    if (value instanceof Error) return { name: value.name, message: value.message };
    return { name: 'Error', message: String(value) };
  }
}
