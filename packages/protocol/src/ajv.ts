/**
 * `@toolwire/protocol/ajv`: a ValidatorProvider on ajv (JSON Schema 2020-12 + formats), imported
 * on first use. A subpath of its own, so that `@toolwire/protocol` itself never pulls ajv in.
 */
import type { JsonSchema } from './messages.js';
import type {
  Validate,
  ValidationIssue,
  ValidationResult,
  ValidatorProvider,
} from './validator.js';

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
  return { path: pointer, reason: error.message ?? error.keyword, schemaPath: error.schemaPath };
}

export interface AjvProviderOptions {
  /** Collect every failure, not just the first. Default true. */
  allErrors?: boolean;
}

/** ajv 2020-12 with ajv-formats, loaded lazily, one compile per schema. */
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
