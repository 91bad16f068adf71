/** The eval-free engine for CSP pages (@cfworker/json-schema), a lazily loaded chunk. */

import { matchesWebType } from '../lib/web-type-check.js';
import type { Check, SchemaValidator } from './types.js';

interface CfworkerError {
  instanceLocation: string;
  keywordLocation: string;
  keyword: string;
  error: string;
}
interface CfworkerValidator {
  validate(data: unknown): { valid: boolean; errors: CfworkerError[] };
}

export async function createValidator(): Promise<SchemaValidator> {
  const module = (await import('@cfworker/json-schema')) as unknown as {
    Validator: new (schema: object, draft: string, shortCircuit: boolean) => CfworkerValidator;
  };
  const cache = new Map<string, Check>();
  const byObject = { structured: new WeakMap<object, Check>(), json: new WeakMap<object, Check>() };
  return {
    engine: 'cfworker',
    compile(schema, mode) {
      // A registration hands the same schema object to every call: look it up by identity
      // first (stringifying it as a key cost more than validating a small input).
      const known = byObject[mode].get(schema);
      if (known) return known;
      const key = `${mode}:${JSON.stringify(schema)}`;
      let check = cache.get(key);
      if (!check) {
        const validator = new module.Validator(schema, '2020-12', false);
        const webType =
          mode === 'structured' && typeof (schema as { webType?: unknown }).webType === 'string'
            ? (schema as { webType: string }).webType
            : undefined;
        check = (data) => {
          // cfworker ignores unknown keywords; in structured mode the top-level webType is checked here.
          if (webType !== undefined) {
            return matchesWebType(webType, data)
              ? null
              : [{ path: '', reason: `must be a ${webType}`, schemaPath: '#/webType' }];
          }
          const result = validator.validate(data);
          if (result.valid) return null;
          // cfworker reports each failing keyword plus its ancestors ("properties" failed because
          // "type" did); keep the leaves, which say what actually went wrong.
          const leaves = result.errors.filter(
            (error) =>
              !result.errors.some(
                (other) =>
                  other !== error && other.keywordLocation.startsWith(`${error.keywordLocation}/`),
              ),
          );
          return leaves.map((error) => ({
            path: error.instanceLocation.replace(/^#/, ''),
            reason: error.error,
            schemaPath: error.keywordLocation,
          }));
        };
        cache.set(key, check);
      }
      byObject[mode].set(schema, check);
      return check;
    },
  };
}
