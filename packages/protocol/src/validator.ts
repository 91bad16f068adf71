/**
 * Validation behind a provider (STYLE 6): `compile(schema)` once per schema, then
 * `validate(data) -> {valid: true, data} | {valid: false, errors}`. The default provider is
 * ajv (JSON Schema 2020-12 + formats), imported on first use so that a bundle that never
 * validates never loads it.
 */
import type { JsonSchema } from './messages.js';

export interface ValidationIssue {
  /** `$`-rooted path of the offending value, e.g. `$.items[2].name`. */
  path: string;
  message: string;
  keyword: string;
  schemaPath: string;
}

export type ValidationResult =
  | { valid: true; data: unknown }
  | { valid: false; errors: ValidationIssue[] };
export type Validate = (data: unknown) => ValidationResult;

export interface ValidatorProvider {
  /** Compiles a schema; may throw (the schema itself is invalid) or return a promise. */
  compile(schema: JsonSchema): Validate | Promise<Validate>;
}

/** JSON Pointer (`/a/0/b~1c`) to the `$`-rooted path the wire uses (`$.a[0]["b/c"]`). */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '$';
  let path = '$';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^(0|[1-9][0-9]*)$/.test(segment)) path += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}
interface AjvValidateFunction {
  (data: unknown): boolean;
  errors?: AjvError[] | null;
}
interface AjvInstance {
  compile(schema: object): AjvValidateFunction;
}
type AjvConstructor = new (options: Record<string, unknown>) => AjvInstance;
type AddFormats = (ajv: AjvInstance) => unknown;

/** CommonJS packages reach ESM as `default`, sometimes twice over depending on the bundler. */
function unwrapDefault<T>(module: unknown): T {
  let value = module as { default?: unknown };
  while (value && typeof value === 'object' && 'default' in value && value.default) {
    value = value.default as { default?: unknown };
  }
  return value as T;
}

function toIssue(error: AjvError): ValidationIssue {
  let pointer = error.instancePath;
  // `required` and `additionalProperties` report the parent; point at the property itself.
  const property = error.params.missingProperty ?? error.params.additionalProperty;
  if (typeof property === 'string')
    pointer += `/${property.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  return {
    path: pointerToPath(pointer),
    message: error.message ?? error.keyword,
    keyword: error.keyword,
    schemaPath: error.schemaPath,
  };
}

export interface AjvProviderOptions {
  /** Collect every failure, not just the first. Default true. */
  allErrors?: boolean;
}

/** The default provider: ajv 2020-12 with ajv-formats, loaded lazily, one compile per schema. */
export function createAjvProvider(options: AjvProviderOptions = {}): ValidatorProvider {
  let ajvPromise: Promise<AjvInstance> | undefined;
  const byObject = new WeakMap<object, Validate>();
  const byText = new Map<string, Validate>();

  const loadAjv = (): Promise<AjvInstance> => {
    ajvPromise ??= Promise.all([import('ajv/dist/2020.js'), import('ajv-formats')]).then(
      ([ajvModule, formatsModule]) => {
        const Ajv = unwrapDefault<AjvConstructor>(ajvModule);
        const addFormats = unwrapDefault<AddFormats>(formatsModule);
        // strict: false lets schemas carry annotations ajv does not know (WebMCP authors do).
        const ajv = new Ajv({
          allErrors: options.allErrors ?? true,
          strict: false,
          validateFormats: true,
        });
        addFormats(ajv);
        return ajv;
      },
    );
    return ajvPromise;
  };

  return {
    async compile(schema: JsonSchema): Promise<Validate> {
      const cached = byObject.get(schema);
      if (cached) return cached;
      const text = JSON.stringify(schema);
      let validate = byText.get(text);
      if (!validate) {
        const ajv = await loadAjv();
        // Compile a private copy: ajv keeps references to the schema it compiled.
        const compiled = ajv.compile(JSON.parse(text) as object);
        validate = (data: unknown): ValidationResult =>
          compiled(data)
            ? { valid: true, data }
            : { valid: false, errors: (compiled.errors ?? []).map(toIssue) };
        byText.set(text, validate);
      }
      byObject.set(schema, validate);
      return validate;
    },
  };
}
