/**
 * A page's JSON Schemas as the bridge shows them to MCP clients (docs/permissions.md "Schema
 * hazards").
 *
 * An MCP client compiles a tool's `outputSchema` and runs it on every result (the SDK's client
 * does, with ajv); some check `inputSchema` too. A page's schema is the page's words, so what a
 * client gets is bounded here, and the page still checks its own schema on the page:
 *
 * 1. Only known keywords are kept; `$id`, `$anchor`s and non-local `$ref`s are left out (a
 *    client's validator caches schemas by `$id`, across tools and tabs). `$schema` is kept only
 *    at the top and only as JSON Schema 2020-12 (DIALECT), the dialect MCP assumes of a schema
 *    that names none, so naming it changes nothing a client does; any other `$schema` is left out.
 * 2. A `pattern`, or a `patternProperties` key, is kept only when `linearPattern` proves that a
 *    backtracking engine runs it in time linear in the input; else it is left out (an object
 *    that loses a `patternProperties` key loses its `additionalProperties` and
 *    `unevaluatedProperties` too, so the schema only gets looser). A `format` is kept only when
 *    the client's checker for it is a fixed, linear one (SAFE_FORMATS).
 * 3. The result is at most MAX_DEPTH objects and arrays deep and MAX_CHARS of JSON; over that,
 *    `inputSchema` becomes `{type: "object"}` and `outputSchema` is not listed.
 * 4. An `outputSchema` that the client's own validator (the SDK's ajv, set up as its client
 *    sets it up) cannot compile is not listed either: one tab's schema never breaks a client's
 *    `tools/list`. `structuredContent` is sent only when it validates against the listed
 *    schema (bridge.ts).
 * Each omission is named in the tool's `_meta["toolwire/schemaNotes"]`.
 */
import { isPlainObject } from '@toolwire/protocol';

export const MAX_DEPTH = 32;
export const MAX_CHARS = 64 * 1024;
/** The longest `pattern` the host reads. */
const MAX_PATTERN = 512;
/** The most characters an unanchored pattern reads from one start. */
const MAX_UNANCHORED = 64;
const MAX_NOTES = 8;
/** The one `$schema` a listed schema may carry, at its top (1). */
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

type Schema = Record<string, unknown>;

/** Formats whose check in ajv-formats is a fixed regex or function linear in the input. */
const SAFE_FORMATS = new Set([
  'date',
  'time',
  'date-time',
  'uuid',
  'ipv4',
  'int32',
  'int64',
  'float',
  'double',
]);
/** Keywords whose value is one schema. */
const ONE = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
]);
/** Keywords whose value is an array of schemas. */
const MANY = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value maps names to schemas. */
const MAPS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords kept as they are: data, numbers, names and annotations. */
const PLAIN = new Set([
  'type',
  'enum',
  'const',
  'default',
  'examples',
  'required',
  'dependentRequired',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minContains',
  'maxContains',
  'minProperties',
  'maxProperties',
  'title',
  'description',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
  'contentEncoding',
  'contentMediaType',
  'nullable',
]);

// ---------------------------------------------------------------------------------------------
// Patterns

/** A set of code points as sorted, disjoint [from, to] ranges. */
type CharSet = [number, number][];
const ALL: CharSet = [[0, 0x10ffff]];
const DIGIT: CharSet = [[0x30, 0x39]];
const WORD: CharSet = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];

function normalize(set: CharSet): CharSet {
  const sorted = [...set].sort((a, b) => a[0] - b[0]);
  const out: CharSet = [];
  for (const [from, to] of sorted) {
    const last = out[out.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

function complement(set: CharSet): CharSet {
  const out: CharSet = [];
  let next = 0;
  for (const [from, to] of normalize(set)) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

function overlaps(a: CharSet, b: CharSet): boolean {
  return a.some(([f1, t1]) => b.some(([f2, t2]) => f1 <= t2 && f2 <= t1));
}

/** One atom of a pattern: the characters it matches, and how many times. */
interface Atom {
  set: CharSet;
  min: number;
  max: number;
}

class Unsafe extends Error {}

/**
 * The pattern as a sequence of single-character atoms, each with its repeat count; throws
 * Unsafe for anything else (groups, alternation, backreferences, lookaround, `\b`, `\p{}`).
 */
function atomsOf(source: string): { anchored: boolean; atoms: Atom[] } {
  let i = 0;
  const anchored = source.startsWith('^');
  if (anchored) i = 1;
  const atoms: Atom[] = [];
  const end = source.endsWith('$') && !source.endsWith('\\$') ? source.length - 1 : source.length;
  const escaped = (inClass: boolean): CharSet => {
    const c = source[i + 1];
    if (c === undefined) throw new Unsafe();
    i += 2;
    if (c === 'd') return DIGIT;
    if (c === 'D') return complement(DIGIT);
    if (c === 'w') return WORD;
    if (c === 'W') return complement(WORD);
    if (c === 's' || c === 'S') return ALL; // many spaces: counted as anything, never disjoint
    if (c === 'n') return [[10, 10]];
    if (c === 't') return [[9, 9]];
    if (c === 'r') return [[13, 13]];
    if (c === 'x' && /^[0-9a-fA-F]{2}$/.test(source.slice(i, i + 2))) {
      const code = Number.parseInt(source.slice(i, i + 2), 16);
      i += 2;
      return [[code, code]];
    }
    if (c === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(i, i + 4))) {
      const code = Number.parseInt(source.slice(i, i + 4), 16);
      i += 4;
      return [[code, code]];
    }
    // Only syntax characters may be escaped under the `u` flag (ajv's); `-` only in a class.
    if ('^$\\.*+?()[]{}|/'.includes(c) || (inClass && c === '-')) {
      const code = c.charCodeAt(0);
      return [[code, code]];
    }
    throw new Unsafe(); // \b, \B, \1, \k<...>, \p{...}, \c...: not read here
  };
  const single = (inClass: boolean): CharSet => {
    if (source[i] === '\\') return escaped(inClass);
    const code = source.codePointAt(i) as number;
    i += code > 0xffff ? 2 : 1;
    return [[code, code]];
  };
  const klass = (): CharSet => {
    i += 1; // [
    const negated = source[i] === '^';
    if (negated) i += 1;
    const set: CharSet = [];
    while (i < end && source[i] !== ']') {
      if (source[i] === '[') throw new Unsafe();
      const from = single(true);
      if (source[i] === '-' && source[i + 1] !== ']' && i + 1 < end) {
        i += 1;
        const to = single(true);
        const [a] = from;
        const [b] = to;
        if (from.length !== 1 || to.length !== 1 || !a || !b || a[0] !== a[1] || b[0] !== b[1]) {
          throw new Unsafe();
        }
        if (a[0] > b[0]) throw new Unsafe();
        set.push([a[0], b[0]]);
      } else set.push(...from);
    }
    if (source[i] !== ']') throw new Unsafe();
    i += 1;
    return negated ? complement(set) : normalize(set);
  };
  while (i < end) {
    const c = source[i] as string;
    let set: CharSet;
    if ('()|^$*+?{}]'.includes(c)) throw new Unsafe();
    if (c === '[') set = klass();
    else if (c === '.') {
      set = ALL;
      i += 1;
    } else set = single(false);
    let min = 1;
    let max = 1;
    const q = source[i];
    if (q === '*' || q === '+' || q === '?') {
      min = q === '+' ? 1 : 0;
      max = q === '?' ? 1 : Number.POSITIVE_INFINITY;
      i += 1;
    } else if (q === '{') {
      const m = /^\{(\d{1,4})(,(\d{0,4}))?\}/.exec(source.slice(i));
      if (!m) throw new Unsafe();
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
      if (max < min) throw new Unsafe();
      i += m[0].length;
    }
    if (source[i] === '?' && min !== max) throw new Unsafe(); // lazy: not read here
    atoms.push({ set, min, max });
  }
  return { anchored, atoms };
}

/**
 * True when a backtracking engine (V8's, ajv's `u` flag) runs `source` in time linear in the
 * input; false when that cannot be shown. What passes: a sequence of single characters and
 * classes, each maybe repeated, with no groups, alternation, backreferences or lookaround, where
 *
 * - any variable repeat (`*`, `+`, `?`, `{n,m}` with n < m) follows a leading `^`: an
 *   unanchored `a*b` is tried at every start, quadratic in the input (and an unanchored
 *   pattern reads at most MAX_UNANCHORED characters from a start);
 * - the characters of each variable repeat are disjoint from those that can come next (the
 *   atoms after it, up to and including the first that must match): on a failure, giving back
 *   a character can then never let the rest match, so no combination of repeats is tried.
 *
 * So `^[a-z0-9_-]{1,64}$` and `^\d+-\d+$` pass; `^(a|a)+$`, `^a*a*b$` and `a+b` do not.
 */
export function linearPattern(source: string): boolean {
  if (source.length > MAX_PATTERN) return false;
  try {
    new RegExp(source, 'u');
  } catch {
    return false;
  }
  let parsed: { anchored: boolean; atoms: Atom[] };
  try {
    parsed = atomsOf(source);
  } catch (error) {
    if (error instanceof Unsafe) return false;
    throw error;
  }
  const { anchored, atoms } = parsed;
  // Unanchored, each start may read as many characters as the atoms ask for: a few, then.
  if (!anchored && atoms.reduce((sum, atom) => sum + atom.max, 0) > MAX_UNANCHORED) return false;
  for (const [index, atom] of atoms.entries()) {
    if (atom.min === atom.max) continue;
    if (!anchored) return false;
    for (const next of atoms.slice(index + 1)) {
      if (overlaps(atom.set, next.set)) return false;
      if (next.min > 0) break;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Schemas

/** The schema a client sees, and what was left out of it and why. */
interface BoundedSchema {
  /** Undefined when the whole schema was left out. */
  schema: Schema | undefined;
  notes: string[];
}

class TooDeep extends Error {}

function pointer(path: string, key: string): string {
  return `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

function clean(node: unknown, path: string, depth: number, notes: string[]): unknown {
  if (depth > MAX_DEPTH) throw new TooDeep();
  if (typeof node === 'boolean') return node;
  if (!isPlainObject(node)) return {};
  const out: Schema = {};
  let droppedPatternKey = false;
  for (const [key, value] of Object.entries(node)) {
    const at = pointer(path, key);
    if (key === 'pattern') {
      if (typeof value === 'string' && linearPattern(value)) out.pattern = value;
      else notes.push(`${at}: left out (not provably linear-time)`);
    } else if (key === 'format') {
      if (typeof value === 'string' && SAFE_FORMATS.has(value)) out.format = value;
      else notes.push(`${at}: left out (${JSON.stringify(String(value)).slice(0, 40)})`);
    } else if (key === '$schema') {
      if (depth === 0 && value === DIALECT) out.$schema = value;
    } else if (key === '$ref') {
      if (typeof value === 'string' && value.startsWith('#')) out.$ref = value;
      else notes.push(`${at}: left out (not local)`);
    } else if (key === 'patternProperties') {
      if (!isPlainObject(value)) continue;
      const kept: Schema = {};
      for (const [regex, sub] of Object.entries(value)) {
        if (linearPattern(regex)) kept[regex] = clean(sub, pointer(at, regex), depth + 2, notes);
        else {
          droppedPatternKey = true;
          notes.push(`${pointer(at, regex)}: left out (not provably linear-time)`);
        }
      }
      out.patternProperties = kept;
    } else if (ONE.has(key)) {
      out[key] = Array.isArray(value)
        ? value.map((sub, i) => clean(sub, `${at}/${i}`, depth + 2, notes))
        : clean(value, at, depth + 1, notes);
    } else if (MANY.has(key)) {
      if (Array.isArray(value)) {
        out[key] = value.map((sub, i) => clean(sub, `${at}/${i}`, depth + 2, notes));
      }
    } else if (MAPS.has(key)) {
      if (!isPlainObject(value)) continue;
      const map: Schema = {};
      for (const [name, sub] of Object.entries(value)) {
        map[name] = clean(sub, pointer(at, name), depth + 2, notes);
      }
      out[key] = map;
    } else if (PLAIN.has(key)) {
      if (depthOf(value, depth + 1) > MAX_DEPTH) throw new TooDeep();
      out[key] = value;
    }
    // Any other keyword ($id, $anchor, vendor keywords...) is left out, unnamed.
  }
  if (droppedPatternKey) {
    delete out.additionalProperties;
    delete out.unevaluatedProperties;
  }
  return out;
}

/** How many objects and arrays deep `value` goes below `depth`, stopping past MAX_DEPTH. */
function depthOf(value: unknown, depth: number): number {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return depth;
  let deepest = depth;
  for (const item of Object.values(value)) {
    deepest = Math.max(deepest, depthOf(item, depth + 1));
    if (deepest > MAX_DEPTH) break;
  }
  return deepest;
}

/** `schema` as it may reach a client (1-3); `schema` is undefined when it cannot. */
function boundSchema(schema: unknown, label: string): BoundedSchema {
  const notes: string[] = [];
  const tell = (list: string[]) =>
    list.length > MAX_NOTES
      ? [...list.slice(0, MAX_NOTES), `and ${list.length - MAX_NOTES} more`]
      : list;
  let out: Schema;
  try {
    out = clean(schema, '', 0, notes) as Schema;
  } catch (error) {
    if (!(error instanceof TooDeep)) throw error;
    return { schema: undefined, notes: [`${label}: deeper than ${MAX_DEPTH}; left out`] };
  }
  const size = JSON.stringify(out).length;
  if (size > MAX_CHARS) {
    return {
      schema: undefined,
      notes: [`${label}: ${size} characters of JSON, over ${MAX_CHARS}; left out`],
    };
  }
  return { schema: out, notes: tell(notes.map((note) => `${label}${note}`)) };
}

/** A compiled schema: whether a value is valid. */
type SchemaCheck = (value: unknown) => boolean;
/** Compiles a schema as the client does; throws when it cannot. */
export type SchemaCompiler = (schema: Schema) => SchemaCheck;

/** A tool's schemas as listed: `outputSchema` undefined when not listed (3, 4). */
export interface ListedSchemas {
  input: Schema;
  output: Schema | undefined;
  /** Whether `structuredContent` may be sent: only when it validates against `output`. */
  check: SchemaCheck | undefined;
  notes: string[];
}

/**
 * The bounded schemas of page tools, cached per page schema object (a tool's definition is
 * replaced, never changed, when the page registers it again).
 */
export class McpSchemas {
  readonly #compile: SchemaCompiler;
  readonly #cache = new WeakMap<object, WeakMap<object, ListedSchemas>>();

  constructor(compile: SchemaCompiler) {
    this.#compile = compile;
  }

  /** `wantOutput`: false for a tool whose result is a whole image or Blob (content.ts 2). */
  of(argumentsSchema: Schema, resultSchema: Schema, wantOutput: boolean): ListedSchemas {
    let inner = this.#cache.get(argumentsSchema);
    if (!inner) {
      inner = new WeakMap();
      this.#cache.set(argumentsSchema, inner);
    }
    // `wantOutput` follows from `resultSchema` (listing.ts), so it is part of the key.
    const known = inner.get(resultSchema);
    if (known) return known;
    const listed = this.#make(argumentsSchema, resultSchema, wantOutput);
    inner.set(resultSchema, listed);
    return listed;
  }

  #make(argumentsSchema: Schema, resultSchema: Schema, wantOutput: boolean): ListedSchemas {
    const input = boundSchema(argumentsSchema, 'inputSchema');
    const notes = [...input.notes];
    let inputSchema = input.schema ?? { type: 'object' };
    // MCP wants an object schema at the top; docs/wire.md arguments are always an object.
    if (inputSchema.type === undefined) inputSchema = { type: 'object', ...inputSchema };
    if (!wantOutput || resultSchema.type !== 'object') {
      return { input: inputSchema, output: undefined, check: undefined, notes };
    }
    const output = boundSchema(resultSchema, 'outputSchema');
    notes.push(...output.notes);
    if (!output.schema) return { input: inputSchema, output: undefined, check: undefined, notes };
    try {
      const check = this.#compile(output.schema);
      return { input: inputSchema, output: output.schema, check, notes };
    } catch (error) {
      notes.push(
        `outputSchema: the client's validator cannot compile it (${String((error as Error)?.message ?? error).slice(0, 120)}); left out`,
      );
      return { input: inputSchema, output: undefined, check: undefined, notes };
    }
  }
}
