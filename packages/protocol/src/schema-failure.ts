/**
 * The wire's error for a value that fails its schema: the issues as the wire's `details`, and
 * the first few said as a person says them ("`sku` is required", "`qty` must be an integer >=
 * 1"). Only a failure needs it, so the endpoint's page script fetches it as a lazy chunk
 * (`polyfill-schema-failure.js`) the first time a call fails its schema; module builds import
 * it, statically or by import() (schema-failure-load.ts).
 */
import type { ValidationIssue } from '@toolwire/lowering';
import { errorPayload } from './errors.js';
import type { ErrorPayload, JsonValue } from './messages.js';
import type { IssueDetail } from './validator.js';

/** A JSON type as a person names it (`null` stays `null`). */
const NOUNS: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
};

/** The keywords whose failure is said from the schema (what the value must be). */
const SAID =
  /^(type|enum|const|(min|max)(imum|Length|Items)|exclusiveM(in|ax)imum|invalid_type|too_(small|big))$/;

/** The subschema a `#/...` schemaPath names in `schema`, or undefined. */
function schemaAt(schema: unknown, pointer: string): Record<string, unknown> | undefined {
  let node = schema;
  for (const raw of pointer.split('/').slice(1)) {
    node = (node as Record<string, unknown> | undefined)?.[
      raw.replace(/~1/g, '/').replace(/~0/g, '~')
    ];
  }
  return node !== null && typeof node === 'object' ? (node as Record<string, unknown>) : undefined;
}

/** What a subschema asks of a value, in words ("an integer >= 1"), or ''. */
function expectation(schema: Record<string, unknown>): string {
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum))
    return `one of ${schema.enum.map((value) => JSON.stringify(value)).join(', ')}`;
  const words = [
    [schema.type]
      .flat()
      .filter((type) => typeof type === 'string')
      .map((type) => NOUNS[type] ?? type)
      .join(' or '),
  ];
  const bounds: string[] = [];
  for (const [keyword, sign] of [
    ['minimum', '>='],
    ['exclusiveMinimum', '>'],
    ['maximum', '<='],
    ['exclusiveMaximum', '<'],
  ]) {
    const bound = schema[keyword as string];
    // zod writes the safe integer range into every int: no bound a person would name.
    if (typeof bound === 'number' && Math.abs(bound) !== Number.MAX_SAFE_INTEGER)
      bounds.push(`${sign} ${bound}`);
  }
  for (const unit of ['Length', 'Items']) {
    const low = schema[`min${unit}`] as number | undefined;
    const high = schema[`max${unit}`] as number | undefined;
    const count = (n: number) =>
      `${n} ${unit === 'Length' ? 'character' : 'item'}${n === 1 ? '' : 's'}`;
    if (low === undefined && high === undefined) continue;
    bounds.push(
      low === high
        ? `of ${count(low as number)}`
        : high === undefined
          ? `of at least ${count(low as number)}`
          : low === undefined
            ? `of at most ${count(high)}`
            : `of ${low} to ${count(high)}`,
    );
  }
  words.push(bounds.join(' and '));
  return words.filter(Boolean).join(' ');
}

/**
 * One issue as a person says it: "`sku` is required", "`qty` must be an integer >= 1",
 * "`note` is not allowed". With the schema the issue was found against, a failed bound or
 * type says the whole of what the value must be; otherwise, and for the other keywords, the
 * validator's own reason follows the name. `whole` names the root ("the arguments").
 */
function describeIssue(issue: ValidationIssue, schema?: unknown, whole = 'the value'): string {
  const path = pointerToPath(issue.path);
  const name = path === '$' ? whole : `\`${path.replace(/^\$\.?/, '')}\``;
  const place = issue.schemaPath.replace(/^#/, '');
  const keyword = place.split('/').at(-1) ?? '';
  // A Standard Schema's issue (`~standard/zod/too_small`) names no place in the JSON Schema:
  // the value's own subschema is found by the value's path, through `properties`.
  const standard = place.startsWith('~standard/');
  if (keyword === 'required' || (standard && /received undefined/i.test(issue.reason)))
    return `${name} is required`;
  if (keyword === 'additionalProperties' && path !== '$') return `${name} is not allowed`;
  const at = SAID.test(keyword)
    ? schemaAt(
        schema,
        standard ? issue.path.replace(/\//g, '/properties/') : place.replace(/\/[^/]*$/, ''),
      )
    : undefined;
  const wanted = at && expectation(at);
  if (wanted) return `${name} must be ${wanted}`;
  // ajv's "must be integer,null" with its nouns; a Standard Schema's own words after a colon.
  const reason = issue.reason.replace(
    /^must be ([a-z]+(?:,[a-z]+)*)$/,
    (_, types: string) =>
      `must be ${types
        .split(',')
        .map((type) => NOUNS[type] ?? type)
        .join(' or ')}`,
  );
  return reason.startsWith('must ') ? `${name} ${reason}` : `${name}: ${reason}`;
}

/** The first issues in words, joined: the message's text. */
function describeIssues(
  issues: readonly ValidationIssue[],
  schema: unknown,
  whole: string,
): string {
  const said = issues.slice(0, 3).map((issue) => describeIssue(issue, schema, whole));
  if (issues.length > said.length) said.push(`and ${issues.length - said.length} more`);
  return said.join('; ') || `${whole}: no issue reported`;
}

/** JSON Pointer (`/a/0/b~1c`) to the `$`-rooted path the wire uses (`$.a[0]["b/c"]`). */
function pointerToPath(pointer: string): string {
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

/** The one adapter from ValidationIssue to the wire's `details` entry. */
function issueDetail(issue: ValidationIssue): IssueDetail {
  return {
    path: pointerToPath(issue.path),
    message: issue.reason,
    keyword: issue.schemaPath.split('/').at(-1) ?? '',
    schemaPath: issue.schemaPath,
  };
}

/**
 * The wire's error for arguments or a result that fail their schema (docs/wire.md "tool.call"):
 * `details` are the issues, as validators word them; the message says the first few as a
 * person would ("`sku` is required"), read against `schema` when it is given.
 */
export function schemaFailure(
  which: 'arguments' | 'result',
  toolId: string,
  issues: readonly ValidationIssue[],
  schema?: unknown,
): ErrorPayload {
  const details = issues.map(issueDetail) as unknown as JsonValue;
  return which === 'arguments'
    ? errorPayload(
        'tool_arguments_schema_invalid',
        describeIssues(issues, schema, 'the arguments'),
        details,
      )
    : errorPayload(
        'tool_result_schema_invalid',
        `The result of "${toolId}" does not match its resultSchema: ${describeIssues(issues, schema, 'the result')}`,
        details,
      );
}
