/**
 * The MCP stdio bridge: the host's page tools, served to an MCP client (Claude, an IDE...) as
 * an MCP server over stdio, on `@modelcontextprotocol/sdk`'s low-level `Server` and
 * `StdioServerTransport` (issue 7).
 *
 * 1. The SDK negotiates `initialize` (the client's version when it speaks it, else its newest);
 *    the server declares `tools: {listChanged: true}` and nothing else.
 * 2. `tools/list` lists the tools of every open session that the grant allows, after a short,
 *    bounded refresh of each catalog. Names are the tool ids made MCP-safe
 *    (`[A-Za-z0-9_-]{1,64}`: `demo.echo` -> `demo_echo`); when two pages list one id, the page
 *    that connected last wins; a name clash after the rewrite gets a numeric suffix.
 * 3. `tools/call` runs through HostSession.call (grant, catalog check, one retry on
 *    `tool_not_found`). Tool failures are results with `isError: true` and the wire code in the
 *    text; an unknown name is JSON-RPC error -32602, as MCP says. Images and Blobs that the tool
 *    declares become image and resource content (content.ts).
 * 8. Annotations: `readOnlyHint`/`destructiveHint` from the policy, `idempotentHint` and
 *    `openWorldHint` as the page set them, `title` from the wire's `name` (the page's title).
 * 4. `notifications/cancelled` stops waiting for the call (the wire has no cancel yet, so the
 *    page finishes it and its answer is dropped); as MCP says, nothing answers it then.
 * 5. `notifications/tools/list_changed` follows every change of the listed set, once the client
 *    has sent `notifications/initialized`.
 * 6. Nothing but JSON-RPC is written to `output`; diagnostics go to `log`.
 * 7. When the source can pair, `toolwire_pair` (pair-tool.ts) is listed first and its name is
 *    reserved: a client's user pairs a page without reading stderr (issue 15). The server's
 *    `instructions` say so.
 * 8. `tools/list` is one page, never `nextCursor`, however many tools the pages list (issue 16
 *    part 7): MCP clients that do not follow cursors still see every tool, and stdio has no
 *    frame limit to page around. A request with a cursor gets -32602, as MCP says of a cursor
 *    the server did not make.
 */
import type { Readable, Writable } from 'node:stream';
import type { JsonValue } from '@toolwire/protocol';
import { isPlainObject, ToolProtocolError } from '@toolwire/protocol';
import type { HostTool } from '../catalog/cache.js';
import { Host } from '../server/host.js';
import { grantHint } from '../shared/errors.js';
import { VERSION } from '../shared/version.js';
import { binaryKindOf, resultContent } from './content.js';
import { hostToolSource } from './host-source.js';
import { PAIR_TOOL, PAIR_TOOL_NAME, pairResult, pairTarget } from './pair-tool.js';
import type { McpSourceTool, McpToolSource } from './source.js';
import { withheldError, withheldSummary } from './source.js';

/**
 * The MCP versions the SDK (1.32) speaks, newest first (a test holds this to the SDK's own
 * list). The SDK itself is imported when a bridge starts: importing @toolwire/host touches no
 * global, and zod's registry is one.
 */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];
const LIST_CHANGED_DELAY_MS = 50;

export interface McpBridgeOptions {
  input: Readable;
  output: Writable;
  serverName?: string;
  serverVersion?: string;
  log?: (line: string) => void;
}

export interface McpBridge {
  /** The MCP name -> page tool map as last listed (for tests and diagnostics). */
  readonly names: ReadonlyMap<string, McpSourceTool>;
  /** Resolves once the server listens on `input`. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/** `demo.echo` -> `demo_echo`: the name pattern every MCP client accepts. */
export function mcpToolName(id: string): string {
  const name = id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return name === '' ? 'tool' : name;
}

function inputSchemaOf(tool: HostTool): Record<string, unknown> {
  const schema = tool.argumentsSchema;
  // MCP wants an object schema at the top; docs/wire.md arguments are always an object.
  return schema.type === undefined ? { type: 'object', ...schema } : schema;
}

function originOf(url: string | null): string | undefined {
  try {
    return url === null ? undefined : new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** A page tool as `tools/list` lists it under `name`. */
function mcpToolDefinition(name: string, entry0: McpSourceTool): Record<string, unknown> {
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
  const entry: Record<string, unknown> = {
    name,
    title,
    description,
    inputSchema: inputSchemaOf(tool),
  };
  // A whole image or Blob is a content block, not structured content (content.ts 2).
  if (tool.resultSchema.type === 'object' && !binaryKindOf(tool.resultSchema)) {
    entry.outputSchema = tool.resultSchema;
  }
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
    ...(tool.origin !== undefined ? { 'toolwire/origin': tool.origin } : {}),
  };
  return entry;
}

function errorContent(error: unknown): Record<string, unknown> {
  const coded =
    error instanceof ToolProtocolError
      ? error
      : new ToolProtocolError(
          'tool_protocol_bridge_failed',
          String((error as Error)?.message ?? error),
        );
  const details: JsonValue | null = coded.details;
  const hint = grantHint(coded.code, details);
  const text = `${coded.code}: ${coded.message}${hint ? ` (${hint})` : ''}${details === null ? '' : `\n${JSON.stringify(details)}`}`;
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { 'toolwire/code': coded.code, 'toolwire/retryable': coded.retryable },
  };
}

export function createMcpBridge(
  hostOrSource: Host | McpToolSource,
  options: McpBridgeOptions,
): McpBridge {
  const source = hostOrSource instanceof Host ? hostToolSource(hostOrSource) : hostOrSource;
  const pairs = source.pair !== undefined;
  const log = options.log ?? (() => {});
  let names = new Map<string, McpSourceTool>();
  let listedSignature = '';
  let initialized = false;
  let closed = false;
  let changedTimer: ReturnType<typeof setTimeout> | undefined;

  /** Requirement 2: names for the listed set, the newest session winning a shared id. */
  const collect = async (refresh: boolean): Promise<Map<string, McpSourceTool>> => {
    const byId = new Map<string, McpSourceTool>();
    const entries = (await source.tools(refresh)).sort((a, b) => a.connectedAt - b.connectedAt);
    for (const entry of entries) byId.set(entry.tool.id, entry);
    const next = new Map<string, McpSourceTool>();
    // The bridge's own tool keeps its name: a page's `toolwire.pair` becomes `toolwire_pair_2`.
    const taken = (name: string) => next.has(name) || (pairs && name === PAIR_TOOL_NAME);
    for (const id of [...byId.keys()].sort()) {
      const base = mcpToolName(id);
      let name = base;
      for (let n = 2; taken(name); n++) name = `${base.slice(0, 60)}_${n}`;
      next.set(name, byId.get(id) as McpSourceTool);
    }
    return next;
  };

  const signatureOf = (map: Map<string, McpSourceTool>): string =>
    [...map]
      .map(([name, entry]) => `${name}:${entry.sessionId}:${entry.tool.definitionRevision}`)
      .join('|');

  let toldWithheld = '';
  const listTools = async (): Promise<object> => {
    names = await collect(true);
    listedSignature = signatureOf(names);
    const withheld = source.withheld?.() ?? [];
    const told = JSON.stringify(withheld);
    if (withheld.length > 0 && told !== toldWithheld) log(`mcp: ${withheldSummary(withheld)}`);
    toldWithheld = told;
    return {
      tools: [
        ...(pairs ? [PAIR_TOOL] : []),
        ...[...names].map(([name, entry]) => mcpToolDefinition(name, entry)),
      ],
      // MCP allows _meta on a result: clients that show it see why a page's tool is missing.
      ...(withheld.length > 0
        ? { _meta: { 'toolwire/withheld': withheld, 'toolwire/note': withheldSummary(withheld) } }
        : {}),
    };
  };

  /** `toolwire_pair` (requirement 7). */
  const pair = async (args: unknown): Promise<Record<string, unknown>> => {
    const page = pairTarget(args);
    if (typeof page !== 'string') return errorContent(page);
    try {
      const pairing = await (source.pair as NonNullable<McpToolSource['pair']>)(page);
      log(`mcp: the client asked for a pairing link for ${pairing.origin}`);
      return pairResult(pairing);
    } catch (error) {
      return errorContent(error);
    }
  };

  const start = async () => {
    const [{ Server }, { StdioServerTransport }, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    const { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } = types;
    const server = new Server(
      { name: options.serverName ?? 'toolwire', version: options.serverVersion ?? VERSION },
      {
        capabilities: { tools: { listChanged: true } },
        instructions: pairs
          ? "Tools of the web pages connected to this toolwire host. The list changes as pages connect, reload and register tools. To connect a page, call toolwire_pair with the page's URL and show the user the link it returns: they open it in their browser and click Connect in the page."
          : 'Tools of the web pages connected to this toolwire host. The list changes as pages connect, reload and register tools.',
      },
    );
    server.oninitialized = () => {
      initialized = true;
      scheduleListChanged();
    };
    server.onerror = (error) => log(`mcp: ${error.message}`);
    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      if (request.params?.cursor !== undefined) {
        throw new McpError(
          ErrorCode.InvalidParams,
          'toolwire lists every tool in one tools/list page; there is no cursor to follow.',
        );
      }
      // biome-ignore lint/suspicious/noExplicitAny: the SDK's zod-inferred result types are stricter than the JSON Schema objects we pass through.
      return (await listTools()) as any;
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name } = request.params;
      if (pairs && name === PAIR_TOOL_NAME) return pair(request.params.arguments);
      // A client may call without listing first, or after the page reloaded: look again then.
      let target = names.get(name);
      if (!target) target = (await collect(false)).get(name);
      if (!target) {
        // A page's tool that is withheld answers why, not "Unknown tool".
        const held = (source.withheld?.() ?? []).find((tool) => mcpToolName(tool.id) === name);
        if (held) return errorContent(withheldError(held));
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      }
      const args = request.params.arguments;
      if (args !== undefined && args !== null && !isPlainObject(args)) {
        throw new McpError(ErrorCode.InvalidParams, 'Tool arguments must be an object.');
      }
      try {
        const result = await source.call(target, args ?? {}, extra.signal);
        return resultContent(result, target.tool.resultSchema, {
          sessionId: target.sessionId,
          toolId: target.tool.id,
        });
      } catch (error) {
        return errorContent(error);
      }
    });
    if (!closed) await server.connect(new StdioServerTransport(options.input, options.output));
    return server;
  };
  const started = start();
  started.catch((error: Error) => log(`mcp: could not start: ${error.message}`));

  function scheduleListChanged(): void {
    clearTimeout(changedTimer);
    changedTimer = setTimeout(() => {
      void collect(false)
        .then(async (map) => {
          const signature = signatureOf(map);
          if (closed || !initialized || signature === listedSignature) return;
          listedSignature = signature;
          await (await started).sendToolListChanged();
        })
        .catch((error: Error) => log(`mcp: ${error.message}`));
    }, LIST_CHANGED_DELAY_MS);
  }

  const unsubscribe = source.onChange(scheduleListChanged);

  return {
    get names() {
      return names;
    },
    ready: started.then(() => undefined),
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(changedTimer);
      unsubscribe();
      source.close?.();
      const server = await started.catch(() => undefined);
      await server?.close().catch(() => undefined);
    },
  };
}
