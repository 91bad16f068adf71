/** The ajv engine (JSON Schema 2020-12 + formats), a lazily loaded chunk of its own. */

import { matchesWebType } from '../lib/web-type-check.js';
import { schemaAt, segmentOf } from './ajv-words.js';
import type { Check, SchemaValidator } from './types.js';

interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  /** The subschema that holds the failing keyword (ajv's `verbose` option). */
  parentSchema?: unknown;
}
type AjvValidate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
interface Ajv {
  compile(schema: object): AjvValidate;
  addKeyword(definition: object): unknown;
}

function unwrapDefault<T>(module: unknown): T {
  let value = module as { default?: unknown };
  while (value && typeof value === 'object' && 'default' in value && value.default)
    value = value.default as { default?: unknown };
  return value as T;
}

/**
 * Every object in `root` and its path, as ajv-words.ts writes paths: ajv names the subschema
 * that failed (`parentSchema`), and its path is looked up here, so a keyword reached through a
 * `$ref` ajv compiled on its own (a recursive one) is placed in the whole schema.
 */
function schemaPaths(root: unknown): WeakMap<object, string> {
  const paths = new WeakMap<object, string>();
  const walk = (node: unknown, path: string) => {
    if (typeof node !== 'object' || node === null || paths.has(node)) return;
    paths.set(node, path);
    for (const [key, value] of Object.entries(node)) walk(value, `${path}/${segmentOf(key)}`);
  };
  walk(root, '#');
  return paths;
}

function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

export async function createValidator(): Promise<SchemaValidator> {
  const [ajvModule, formatsModule] = await Promise.all([
    import('ajv/dist/2020.js'),
    import('ajv-formats'),
  ]);
  const AjvClass = unwrapDefault<new (options: object) => Ajv>(ajvModule);
  const addFormats = unwrapDefault<(ajv: Ajv) => void>(formatsModule);
  const make = (structured: boolean): Ajv => {
    const ajv = new AjvClass({
      allErrors: true,
      strict: false,
      validateFormats: true,
      verbose: true,
    });
    addFormats(ajv);
    ajv.addKeyword(
      structured
        ? {
            keyword: 'webType',
            schemaType: 'string',
            errors: false,
            validate: (webType: string, data: unknown) => matchesWebType(webType, data),
          }
        : { keyword: 'webType', schemaType: 'string' },
    );
    return ajv;
  };
  const instances = { structured: make(true), json: make(false) };
  const cache = { structured: new Map<string, Check>(), json: new Map<string, Check>() };
  const byObject = { structured: new WeakMap<object, Check>(), json: new WeakMap<object, Check>() };
  return {
    engine: 'ajv',
    compile(schema, mode) {
      // A registration hands the same schema object to every call: look it up by identity
      // first (stringifying it as a key cost more than validating a small input).
      const known = byObject[mode].get(schema);
      if (known) return known;
      const key = JSON.stringify(schema);
      let check = cache[mode].get(key);
      if (!check) {
        const compiled = JSON.parse(key) as object;
        const validate = instances[mode].compile(compiled);
        let paths: WeakMap<object, string> | undefined;
        /**
         * The keyword's place in the whole schema. ajv's own `schemaPath` starts over inside a
         * `$ref` it compiles as a function of its own (a recursive one): `#/properties/v/type`
         * for `#/$defs/node/properties/v/type`. Its `parentSchema` says which subschema it was.
         */
        const placeOf = (error: AjvError): string => {
          const holder = error.parentSchema;
          if (typeof holder !== 'object' || holder === null) return error.schemaPath;
          if (!error.schemaPath.endsWith(`/${error.keyword}`)) return error.schemaPath;
          paths ??= schemaPaths(compiled);
          const at = paths.get(holder);
          return at === undefined ? error.schemaPath : `${at}/${error.keyword}`;
        };
        check = (data) =>
          validate(data)
            ? null
            : (validate.errors ?? []).map((error) => {
                let path = error.instancePath;
                const property = error.params.missingProperty ?? error.params.additionalProperty;
                if (typeof property === 'string') path += `/${pointerSegment(property)}`;
                const schemaPath = placeOf(error);
                const reason =
                  error.keyword === 'webType'
                    ? `must be a ${String(schemaAt(compiled, schemaPath) ?? 'web type value')}`
                    : (error.message ?? error.keyword);
                return { path, reason, schemaPath };
              });
        cache[mode].set(key, check);
      }
      byObject[mode].set(schema, check);
      return check;
    },
  };
}
