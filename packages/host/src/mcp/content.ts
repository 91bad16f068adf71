/**
 * A page tool's result as MCP content.
 *
 * 1. What a value is comes from the tool's declared result schema, never from the value's shape:
 *    the page expands `webType` before the wire (docs/wire.md "Tool entry by detail"), so an
 *    image is a schema of exactly the image form of LOWERING.md [T10] and a Blob or File one of
 *    [T8]/[T9] (and `ui.get_screenshot`'s, an image of any `image/` type). A tool without such a schema that returns `{mimeType, data}` stays JSON.
 * 2. A result that is an image is one MCP image block; a Blob or File is one embedded resource
 *    (`blob`). The value must have the form too (a native tool's result is not checked by the
 *    polyfill); if it has not, it is JSON text. Such a tool lists no `outputSchema`, since MCP
 *    would then require `structuredContent`, a second copy of the bytes.
 * 3. Images and Blobs inside an object result (declared under `properties` or `items`) add their
 *    blocks after the JSON, which stays as text and `structuredContent` (MCP requires it when
 *    `outputSchema` is listed, and a client without image support still gets every field). The
 *    added blocks are bounded: at most MAX_BLOCKS, and MAX_BLOCK_CHARS of base64 in all; the
 *    rest is named in `_meta["toolwire/omitted"]`. `structuredContent` is sent only when the
 *    value validates against the `outputSchema` the client was given (schema.ts). Without a
 *    listed `outputSchema` (left out as too large), the JSON is text alone; a value that breaks
 *    the listed one is a tool error, `tool_result_schema_invalid`, the JSON after the code. A single value is bounded by the wire (the
 *    page's 16 MiB frames, the host's 64 MiB, docs/wire.md "Large payloads").
 * 4. A result an attached bridge got as JSON text (shared/raw-json.ts) is that text when it is
 *    the whole answer (header 3's JSON text, no `structuredContent`): never parsed and written
 *    again.
 * 5. A resource's URI is `toolwire://<session>/<tool id>/<call>`, then `/<file name>` for a File
 *    and `#<JSON Pointer>` for a nested one: not
 *    something to fetch (the bridge serves no resources), but unique per call and saying where the
 *    bytes came from, without the page URL (which may hold secrets).
 */
import { randomUUID } from 'node:crypto';
import type { ResultPayload } from '@toolwire/protocol';
import { defaultRetryable, isPlainObject } from '@toolwire/protocol';
import { rawResultJson } from '../shared/raw-json.js';

/** What a declared schema says a value is (LOWERING.md [T8]-[T10]). */
export type BinaryKind = 'image' | 'blob' | 'file';

const MAX_BLOCKS = 16;
const MAX_BLOCK_CHARS = 16 * 1024 * 1024;
const MAX_DEPTH = 32;

type Schema = Record<string, unknown>;

function sameKeys(value: unknown, keys: readonly string[]): value is Schema {
  if (!isPlainObject(value)) return false;
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}

function isBase64(schema: unknown): boolean {
  return isPlainObject(schema) && schema.type === 'string' && schema.contentEncoding === 'base64';
}

/** `{const: "image/png"}` (LOWERING.md [T10]) or `{type: "string", pattern: "^image/"}` (ui.get_screenshot). */
function isImageType(schema: unknown): boolean {
  if (!isPlainObject(schema)) return false;
  if (typeof schema.const === 'string') return schema.const.startsWith('image/');
  return schema.type === 'string' && schema.pattern === '^image/';
}

/** The kind of a schema in the expanded form of an image, a Blob or a File; else undefined. */
export function binaryKindOf(schema: unknown): BinaryKind | undefined {
  if (!isPlainObject(schema) || schema.type !== 'object') return undefined;
  if (schema.additionalProperties !== false) return undefined;
  const properties = schema.properties;
  if (!isPlainObject(properties) || !isBase64(properties.data)) return undefined;
  const mimeType = properties.mimeType;
  if (sameKeys(properties, ['mimeType', 'data', 'width', 'height'])) {
    return isImageType(mimeType) ? 'image' : undefined;
  }
  if (!isPlainObject(mimeType) || mimeType.type !== 'string') return undefined;
  if (sameKeys(properties, ['mimeType', 'data'])) return 'blob';
  if (sameKeys(properties, ['mimeType', 'data', 'name', 'lastModified'])) return 'file';
  return undefined;
}

/** Where a result is from, for a resource's URI. */
export interface ResultOrigin {
  sessionId: string;
  toolId: string;
  /** The listed `outputSchema`'s check (schema.ts); undefined when none is listed. */
  check?: ((value: unknown) => boolean) | undefined;
}

type Block = Record<string, unknown>;

/** A value of `kind` as one content block, or undefined when the value lacks the form. */
function block(kind: BinaryKind, value: unknown, uri: string, path = ''): Block | undefined {
  if (!isPlainObject(value)) return undefined;
  const { mimeType, data } = value;
  if (typeof mimeType !== 'string' || typeof data !== 'string') return undefined;
  if (kind === 'image') return { type: 'image', data, mimeType };
  const name = kind === 'file' && typeof value.name === 'string' ? value.name : undefined;
  const file = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  const fragment = path === '' ? '' : `#${encodeURI(path)}`;
  return { type: 'resource', resource: { uri: `${uri}${file}${fragment}`, mimeType, blob: data } };
}

/** The images and Blobs declared inside an object result, in document order, with their paths. */
function nested(
  schema: unknown,
  value: unknown,
  path: string,
  depth: number,
  out: [string, BinaryKind, unknown][],
): void {
  if (depth > MAX_DEPTH || !isPlainObject(schema)) return;
  const kind = depth > 0 ? binaryKindOf(schema) : undefined;
  if (kind) {
    out.push([path, kind, value]);
    return;
  }
  if (isPlainObject(value) && isPlainObject(schema.properties)) {
    for (const [key, sub] of Object.entries(schema.properties)) {
      const segment = key.replaceAll('~', '~0').replaceAll('/', '~1');
      if (Object.hasOwn(value, key)) nested(sub, value[key], `${path}/${segment}`, depth + 1, out);
    }
  } else if (Array.isArray(value) && isPlainObject(schema.items)) {
    for (const [i, item] of value.entries())
      nested(schema.items, item, `${path}/${i}`, depth + 1, out);
  }
}

/** The MCP `tools/call` result for a page tool's successful answer. */
export function resultContent(
  result: ResultPayload,
  resultSchema: Schema,
  origin: ResultOrigin,
): Record<string, unknown> {
  const content: Block[] = [];
  if (result.message) content.push({ type: 'text', text: result.message });
  const kind = binaryKindOf(resultSchema);
  // The host's JSON text as it came (an attached bridge), when the answer is that text alone:
  // not a string (its text is the string), nor an object under an object schema (checked,
  // `structuredContent`, nested blocks). The same text JSON.stringify of the value writes.
  const raw = kind ? undefined : rawResultJson(result);
  if (
    raw !== undefined &&
    raw.charCodeAt(0) !== 0x22 &&
    (resultSchema.type !== 'object' || raw.charCodeAt(0) !== 0x7b)
  ) {
    content.push({ type: 'text', text: raw });
    return { content, isError: false };
  }
  const value = result.result;
  const uri = `toolwire://${encodeURIComponent(origin.sessionId)}/${encodeURIComponent(origin.toolId)}/${randomUUID()}`;
  const whole = kind ? block(kind, value, uri) : undefined;
  if (whole) return { content: [...content, whole], isError: false };
  content.push({ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) });
  const answer: Record<string, unknown> = { content, isError: false };
  if (resultSchema.type !== 'object' || !isPlainObject(value)) return answer;
  // Only what validates against the schema the client was given. Without a listed schema, the
  // text alone. A result that breaks the listed one broke the page's own (which it only
  // loosens): a tool error, as the page's own check answers, since MCP wants
  // `structuredContent` from a tool with an `outputSchema` (the SDK's client throws without it).
  if (origin.check && !origin.check(value)) {
    return {
      content: [
        {
          type: 'text',
          text: `tool_result_schema_invalid: The result does not match the tool's outputSchema; it follows as text.`,
        },
        ...content,
      ],
      isError: true,
      _meta: {
        'toolwire/code': 'tool_result_schema_invalid',
        'toolwire/retryable': defaultRetryable('tool_result_schema_invalid'),
      },
    };
  }
  if (origin.check) answer.structuredContent = value;
  const found: [string, BinaryKind, unknown][] = [];
  nested(resultSchema, value, '', 0, found);
  const omitted: string[] = [];
  let chars = 0;
  let blocks = 0;
  for (const [path, binary, item] of found) {
    const added = block(binary, item, uri, path);
    if (!added) continue;
    const size = ((added.data ?? (added.resource as Block).blob) as string).length;
    if (blocks >= MAX_BLOCKS || chars + size > MAX_BLOCK_CHARS) omitted.push(path);
    else {
      blocks += 1;
      chars += size;
      content.push(added);
    }
  }
  if (omitted.length > 0)
    answer._meta = { ...(answer._meta as object), 'toolwire/omitted': omitted };
  return answer;
}
