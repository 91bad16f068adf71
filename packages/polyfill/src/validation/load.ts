/**
 * Schema validation for callTool, loaded on first use.
 *
 * Two engines, each a lazily loaded chunk: @cfworker/json-schema interprets a schema (7.5 KB
 * gzipped, one file); ajv (JSON Schema 2020-12 + formats) compiles it to code with
 * `new Function` (45 KB). Measured (`pnpm bench:validators`): cfworker costs 0.17x ajv's bytes,
 * but 20-86x ajv's time per check at 100 B (3-7.5 us against 0.07-0.25 us) and 270-900x at 10 KiB
 * (0.3-0.9 ms against 0.6-2.5 us); compiling a schema costs ajv 2-10 ms, cfworker 0.3-0.5 ms.
 *
 * The rule: cfworker checks first, so a page's first call
 * fetches 8 KB, not 45. ajv takes over where the page allows eval (`canEval`, false under a CSP
 * without 'unsafe-eval') and either
 * - the checks have cost the page AJV_AFTER_MS in all (ajv is then fetched in the background and
 *   every check moves to it once loaded: about 5,000 small calls, or a few dozen of 10 KiB), or
 * - a structured check's schema names a `webType` below its top (cfworker cannot check one
 *   there; `ready()` loads ajv before that first check).
 * Either engine reports the same `{path, reason, schemaPath}` (ajv-words.ts).
 *
 * The one-file page script (`*.standalone.iife.js`) inlines cfworker and never ajv: validation
 * there is cfworker's, with no move to ajv for speed; only a `webType` below a structured
 * schema's top fetches ajv's chunk from beside the script. ajv stays the npm route's.
 */
import { chunkFromScript } from '../lib/chunks.js';
import type { Check, SchemaValidator } from './types.js';

interface EngineChunk {
  createValidator(): Promise<SchemaValidator>;
}

/** The cumulative cfworker check time after which ajv is loaded (where eval is allowed). */
export const AJV_AFTER_MS = 20;

/** The engine's chunk (`polyfill-validator-<engine>.js` in the IIFE build). */
function loadEngine(engine: 'ajv' | 'cfworker'): Promise<SchemaValidator> {
  // The define folds each test: the split script fetches either engine by URL; the one-file
  // script inlines cfworker and fetches ajv by URL (never inlined); modules import() both.
  const chunk: Promise<EngineChunk> =
    typeof __TOOLWIRE_IIFE__ !== 'undefined' && __TOOLWIRE_IIFE__ === 'split'
      ? chunkFromScript<EngineChunk>(`validator-${engine}`)
      : engine === 'ajv'
        ? typeof __TOOLWIRE_IIFE__ !== 'undefined'
          ? chunkFromScript<EngineChunk>('validator-ajv')
          : import('./ajv.js')
        : import('./cfworker.js');
  return chunk.then((loaded) => loaded.createValidator());
}

/** Can this realm compile code from strings? False under a CSP without 'unsafe-eval'. */
export function canEval(): boolean {
  try {
    return new Function('return true')() === true;
  } catch {
    return false;
  }
}

const inside = new WeakMap<object, boolean>();

/** A structured schema naming `webType` anywhere but its top: only ajv checks it. */
function webTypeInside(schema: object): boolean {
  let named = inside.get(schema);
  if (named === undefined) {
    const { webType: _top, ...rest } = schema as { webType?: unknown };
    named = JSON.stringify(rest).includes('"webType"');
    inside.set(schema, named);
  }
  return named;
}

/** cfworker, with ajv taking over by the rule above. */
function adaptive(cfworker: SchemaValidator, evalAllowed: boolean): SchemaValidator {
  let ajv: SchemaValidator | undefined;
  let ajvLoading: Promise<void> | undefined;
  let spentMs = 0;
  const loadAjv = (): Promise<void> => {
    ajvLoading ??= loadEngine('ajv').then(
      (loaded) => {
        ajv = loaded;
      },
      (error: unknown) => {
        ajvLoading = undefined;
        throw error;
      },
    );
    return ajvLoading;
  };
  const now = () => performance.now();
  const wrapped = new WeakMap<object, { structured?: Check; json?: Check }>();
  return {
    get engine() {
      return ajv ? 'ajv' : 'cfworker';
    },
    ready(schema, mode) {
      if (ajv || !evalAllowed || mode !== 'structured' || !webTypeInside(schema)) return undefined;
      return loadAjv();
    },
    compile(schema, mode) {
      if (ajv) return ajv.compile(schema, mode);
      let byMode = wrapped.get(schema);
      if (!byMode) {
        byMode = {};
        wrapped.set(schema, byMode);
      }
      const known = byMode[mode];
      if (known) return known;
      const slow = cfworker.compile(schema, mode);
      let fast: Check | undefined;
      const check: Check = (data) => {
        if (ajv) {
          fast ??= ajv.compile(schema, mode);
          return fast(data);
        }
        // The one-file script (which does not inline ajv) never moves to it for speed.
        if (
          !evalAllowed ||
          (typeof __TOOLWIRE_IIFE__ !== 'undefined' && __TOOLWIRE_IIFE__ === 'standalone')
        )
          return slow(data);
        const started = now();
        const issues = slow(data);
        spentMs += now() - started;
        // A failed load is tried again at the next check past the mark.
        if (spentMs >= AJV_AFTER_MS) loadAjv().catch(() => {});
        return issues;
      };
      byMode[mode] = check;
      return check;
    },
  };
}

let loading: Promise<SchemaValidator> | undefined;

export function loadValidator(): Promise<SchemaValidator> {
  loading ??= loadEngine('cfworker')
    .then((cfworker) => adaptive(cfworker, canEval()))
    .catch((error) => {
      loading = undefined;
      throw error;
    });
  return loading;
}
