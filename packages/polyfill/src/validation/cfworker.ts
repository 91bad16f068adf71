/**
 * The eval-free engine for CSP pages (@cfworker/json-schema), a lazily loaded chunk: one file
 * with the library inside (scripts/build.ts), what a page's first check fetches.
 */

import { type OutputUnit, type Schema, Validator } from '@cfworker/json-schema';
import { matchesWebType } from '../lib/web-type-check.js';
import { ajvReason, resolvedLocation, schemaAt } from './ajv-words.js';
import type { Check, SchemaValidator, ValidationIssue } from './types.js';

/**
 * cfworker's errors as ajv reports them (ajv-words.ts): the leaves only (cfworker reports each
 * failing keyword plus its ancestors, "properties" failed because "type" did), ajv's message for
 * the keyword, and ajv's path for `required` and `additionalProperties: false` (the property's).
 * As ajv does, a failed `anyOf` or `oneOf` is reported beside its branches' failures.
 * cfworker's keyword locations run through each `$ref` (`#/properties/a/$ref/type`); the schema
 * path reported, and the keyword's value the message quotes, are read where the `$ref` leads
 * (`#/$defs/a/type`), as ajv reports them.
 */
function issuesOf(schema: object, errors: OutputUnit[]): ValidationIssue[] {
  const placeOf = (location: string) => resolvedLocation(schema, location) ?? location;
  const closed = new Set<string>();
  for (const error of errors) {
    if (
      error.keyword === 'additionalProperties' &&
      schemaAt(schema, placeOf(error.keywordLocation)) === false
    )
      closed.add(error.instanceLocation);
  }
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    const location = error.keywordLocation;
    // ajv reports an anyOf or oneOf that failed as well as its branches' failures.
    const combinator = error.keyword === 'anyOf' || error.keyword === 'oneOf';
    if (
      !combinator &&
      errors.some((other) => other !== error && other.keywordLocation.startsWith(`${location}/`))
    )
      continue;
    let path = error.instanceLocation.replace(/^#/, '');
    // cfworker follows `additionalProperties: false` into the property's own `false` schema.
    if (error.keyword === 'false' && closed.has(error.instanceLocation.replace(/\/[^/]*$/, '')))
      continue;
    const named = /property "(.*)"/is.exec(error.error)?.[1];
    const closedHere =
      error.keyword === 'additionalProperties' && closed.has(error.instanceLocation);
    if (named !== undefined && (error.keyword === 'required' || closedHere))
      path += `/${named.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const place = placeOf(location);
    const branch = error.keyword === 'if' ? /"(then|else)"/.exec(error.error)?.[1] : undefined;
    const reason =
      error.keyword === 'required' && named !== undefined
        ? `must have required property '${named}'`
        : branch !== undefined
          ? `must match "${branch}" schema`
          : ajvReason(error.keyword, schemaAt(schema, place));
    issues.push({ path, reason: reason ?? error.error, schemaPath: place });
  }
  return issues;
}

export async function createValidator(): Promise<SchemaValidator> {
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
        const validator = new Validator(schema as Schema, '2020-12', false);
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
          return issuesOf(schema, result.errors);
        };
        cache.set(key, check);
      }
      byObject[mode].set(schema, check);
      return check;
    },
  };
}
