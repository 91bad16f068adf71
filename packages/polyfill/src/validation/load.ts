/**
 * Schema validation for callTool, loaded on first use (issue 4: "the core stays small").
 * ajv (JSON Schema 2020-12 + formats) compiles validators with `new Function`; on pages whose
 * CSP forbids `unsafe-eval` that throws, so the first load probes for eval and falls back to
 * @cfworker/json-schema, an interpreting validator. Either way a check returns every failure
 * as a ValidationIssue (types.ts).
 */
import { chunkFromScript } from '../lib/chunks.js';
import type { SchemaValidator } from './types.js';

interface EngineChunk {
  createValidator(): Promise<SchemaValidator>;
}

/** The engine's chunk (`polyfill-validator-<engine>.js` in the IIFE build). */
function loadEngine(engine: 'ajv' | 'cfworker'): Promise<EngineChunk> {
  if (typeof __TOOLWIRE_IIFE__ !== 'undefined' && __TOOLWIRE_IIFE__)
    return chunkFromScript<EngineChunk>(`validator-${engine}`);
  return engine === 'ajv' ? import('./ajv.js') : import('./cfworker.js');
}

let loading: Promise<SchemaValidator> | undefined;

/** Can this realm compile code from strings? False under a CSP without 'unsafe-eval'. */
export function canEval(): boolean {
  try {
    return new Function('return true')() === true;
  } catch {
    return false;
  }
}

export function loadValidator(options: { forceFallback?: boolean } = {}): Promise<SchemaValidator> {
  if (options.forceFallback) return loadEngine('cfworker').then((chunk) => chunk.createValidator());
  loading ??= loadEngine(canEval() ? 'ajv' : 'cfworker')
    .then((chunk) => chunk.createValidator())
    .catch((error) => {
      loading = undefined;
      throw error;
    });
  return loading;
}
