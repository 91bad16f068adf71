/**
 * A page tool as the bridge's `tools/list` lists it (bridge.ts).
 *
 * - `inputSchema` is the tool's arguments schema (an object at the top, as MCP wants);
 *   `outputSchema` its result schema when that is an object schema and not a whole image or Blob.
 *   Both are bounded first (schema.ts): what a client sees cannot hang or break it, and
 *   `_meta["toolwire/schemaNotes"]` names what was left out.
 * - Annotations: `readOnlyHint`/`destructiveHint` from the policy, the page's own hints, and
 *   `title` from the wire's `name`.
 * - The tab it belongs to: the description ends with the tab's title, origin
 *   and session label, and `_meta["toolwire/tab"]` holds `{title, url, origin}`, so a model
 *   tells two tabs' tools of one id apart. A tool from a frame of another origin says so in its
 *   title and description too.
 */
import type { HostTool } from '../catalog/cache.js';
import { binaryKindOf } from './content.js';
import { sessionLabel } from './naming.js';
import type { ListedSchemas, McpSchemas } from './schema.js';
import type { McpSourceSession, McpSourceTool } from './source.js';

const MAX_TAB_TITLE = 80;

/** The schemas `tool` lists, bounded (schema.ts); no `outputSchema` for a whole image or Blob. */
export function listedSchemas(schemas: McpSchemas, tool: HostTool): ListedSchemas {
  // A whole image or Blob is a content block, not structured content (content.ts 2).
  return schemas.of(tool.argumentsSchema, tool.resultSchema, !binaryKindOf(tool.resultSchema));
}

function originOf(url: string | null): string | undefined {
  try {
    return url === null ? undefined : new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The page's words on one line: control characters and runs of white space become a space. */
function oneLine(text: string, max: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point.
  const flat = text.replace(/[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * `tab "Inbox" at http://localhost:5173, session 3f2a9c1b`: which tab a tool belongs to, as a
 * person reads it. The origin is the tab's as its page said; the socket's own (the browser's
 * word) follows when it differs, e.g. an extension connecting for the tab.
 */
function tabText(session: McpSourceSession | undefined, sessionId: string): string {
  const label = `session ${sessionLabel(sessionId)}`;
  const tab = session?.tab;
  if (!tab) return `an unnamed tab, ${label}`;
  const title = oneLine(tab.title, MAX_TAB_TITLE) || '(untitled)';
  const origin = oneLine(tab.origin, MAX_TAB_TITLE) || 'an unknown origin';
  const from =
    session.connectedFrom !== null && session.connectedFrom !== tab.origin
      ? `, connected from ${oneLine(session.connectedFrom, MAX_TAB_TITLE)}`
      : '';
  return `tab "${title}" at ${origin}${from}, ${label}`;
}

/** A page tool as `tools/list` lists it under `name`. */
export function mcpToolDefinition(
  name: string,
  entry0: McpSourceTool,
  session: McpSourceSession | undefined,
  schemas: McpSchemas,
): Record<string, unknown> {
  const tool = entry0.tool;
  // A frame's tool (a widget of another origin) says so where a person reads it: the title and
  // the end of the description.
  const frame =
    tool.origin !== undefined && tool.origin !== originOf(entry0.pageUrl) ? tool.origin : undefined;
  const title = frame ? `${tool.name} (from ${frame})` : tool.name;
  let description = tool.runtime
    ? `${tool.description} (unavailable now: ${tool.runtime.reason ?? tool.runtime.code ?? 'no reason given'})`
    : tool.description;
  if (frame) description = `${description} (from ${frame}, a frame of this page)`;
  description = `${description} [${tabText(session, entry0.sessionId)}]`;
  const entry: Record<string, unknown> = {
    name,
    title,
    description,
  };
  const listed = listedSchemas(schemas, tool);
  entry.inputSchema = listed.input;
  if (listed.output) entry.outputSchema = listed.output;
  entry.annotations = {
    title,
    readOnlyHint: tool.policy === 'read',
    destructiveHint: tool.policy === 'critical',
    // The page's own hints, when it set them (docs/wire.md, the toolwire `annotations`).
    ...tool.annotations,
  };
  entry._meta = {
    'toolwire/toolId': tool.id,
    'toolwire/policy': tool.policy,
    'toolwire/page': entry0.pageUrl,
    'toolwire/session': entry0.sessionId,
    'toolwire/sessionLabel': sessionLabel(entry0.sessionId),
    'toolwire/tab': session?.tab ?? null,
    ...(tool.origin !== undefined ? { 'toolwire/origin': tool.origin } : {}),
    // What of the page's schemas a client does not see (the page still checks them).
    ...(listed.notes.length > 0 ? { 'toolwire/schemaNotes': listed.notes } : {}),
  };
  return entry;
}
