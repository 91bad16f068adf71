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
 *    text; an unknown name is JSON-RPC error -32602, as MCP says.
 * 4. `notifications/cancelled` stops waiting for the call (the wire has no cancel yet, so the
 *    page finishes it and its answer is dropped); as MCP says, nothing answers it then.
 * 5. `notifications/tools/list_changed` follows every change of the listed set, once the client
 *    has sent `notifications/initialized`.
 * 6. Nothing but JSON-RPC is written to `output`; diagnostics go to `log`.
 */
import type { Readable, Writable } from 'node:stream';
import type { JsonValue, ResultPayload } from '@toolwire/protocol';
import { isPlainObject, POLICY_RANK, ToolProtocolError } from '@toolwire/protocol';
import type { HostTool } from '../catalog/cache.js';
import { Host } from '../server/host.js';
import type { HostSession } from '../server/session.js';
import { guardName } from '../server/session.js';

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
const LIST_REFRESH_BOUND_MS = 2000;
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
  // MCP wants an object schema at the top; WIRE arguments are always an object.
  return schema.type === undefined ? { type: 'object', ...schema } : schema;
}

function originOf(url: string | null): string | undefined {
  try {
    return url === null ? undefined : new URL(url).origin;
  } catch {
    return undefined;
  }
}

function describeTool(name: string, entry0: McpSourceTool): Record<string, unknown> {
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
  if (tool.resultSchema.type === 'object') entry.outputSchema = tool.resultSchema;
  entry.annotations = {
    title,
    readOnlyHint: tool.policy === 'read',
    destructiveHint: tool.policy === 'critical',
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

function isImage(value: unknown): value is { mimeType: string; data: string } {
  return (
    isPlainObject(value) &&
    typeof value.mimeType === 'string' &&
    value.mimeType.startsWith('image/') &&
    typeof value.data === 'string'
  );
}

function resultContent(result: ResultPayload, declaredOutput: boolean): Record<string, unknown> {
  const value = result.result;
  const content: Record<string, unknown>[] = [];
  if (result.message) content.push({ type: 'text', text: result.message });
  if (isImage(value)) content.push({ type: 'image', data: value.data, mimeType: value.mimeType });
  else
    content.push({ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) });
  const answer: Record<string, unknown> = { content, isError: false };
  if (declaredOutput && isPlainObject(value)) answer.structuredContent = value;
  return answer;
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
  const text = `${coded.code}: ${coded.message}${details === null ? '' : `\n${JSON.stringify(details)}`}`;
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { 'toolwire/code': coded.code, 'toolwire/retryable': coded.retryable },
  };
}

/** One page tool the bridge may offer, wherever it comes from. */
export interface McpSourceTool {
  sessionId: string;
  /** Milliseconds since the epoch: the newest session wins a shared id. */
  connectedAt: number;
  pageUrl: string | null;
  tool: HostTool;
}

/**
 * A page tool the bridge does not offer, and why: the page's own guard keeps it off the wire,
 * or its policy is above the host's grant. A call to its name explains that instead of
 * "Unknown tool" (issue 13).
 */
export interface McpWithheldTool {
  sessionId: string;
  pageUrl: string | null;
  id: string;
  policy: string;
  reason: 'page_guard' | 'grant';
  /** The page's guard (page_guard) or the host's grant (grant). */
  limit: string;
}

/** Where the bridge finds tools: the host in this process, or a running one's control API. */
export interface McpToolSource {
  /** The granted tools of every open session; `refresh` brings catalogs up to date first. */
  tools(refresh: boolean): Promise<McpSourceTool[]>;
  /** The tools of every open session that are not offered (as of the last `tools()`). */
  withheld?(): McpWithheldTool[];
  call(
    entry: McpSourceTool,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<ResultPayload>;
  /** Calls `listener` when a session or a catalog may have changed. */
  onChange(listener: () => void): () => void;
  close?(): void;
}

/** One session's withheld tools: those its guard hides, then those above the host's grant. */
export function withheldTools(
  session: {
    id: string;
    pageUrl: string | null;
    guard: string | null;
    hidden: readonly { id: string; policy: string }[];
    grant: string;
  },
  ungranted: readonly { id: string; policy: string }[],
): McpWithheldTool[] {
  const entry = (tool: { id: string; policy: string }, reason: McpWithheldTool['reason']) => ({
    sessionId: session.id,
    pageUrl: session.pageUrl,
    id: tool.id,
    policy: tool.policy,
    reason,
    limit: reason === 'page_guard' ? (session.guard ?? 'unknown') : session.grant,
  });
  return [
    ...session.hidden.map((tool) => entry(tool, 'page_guard')),
    ...ungranted.map((tool) => entry(tool, 'grant')),
  ];
}

/** "2 tools hidden by the page's guard (read-only): a, b; 1 above the grant (read): c". */
export function withheldSummary(withheld: readonly McpWithheldTool[]): string {
  const parts: string[] = [];
  for (const reason of ['page_guard', 'grant'] as const) {
    const tools = withheld.filter((tool) => tool.reason === reason);
    if (tools.length === 0) continue;
    const limits = [...new Set(tools.map((tool) => tool.limit))].join(', ');
    const count = `${tools.length} tool${tools.length === 1 ? '' : 's'}`;
    const ids = tools
      .slice(0, 8)
      .map((tool) => tool.id)
      .join(', ');
    const more = tools.length > 8 ? `, ${tools.length - 8} more` : '';
    parts.push(
      reason === 'page_guard'
        ? `${count} hidden by the page's guard (${limits}): ${ids}${more}`
        : `${count} above the host's grant (${limits}): ${ids}${more}`,
    );
  }
  return parts.join('; ');
}

function withheldError(tool: McpWithheldTool): ToolProtocolError {
  const details = { toolId: tool.id, policy: tool.policy, sessionId: tool.sessionId };
  if (tool.reason === 'page_guard') {
    return new ToolProtocolError(
      'tool_hidden_by_page_guard',
      `Tool "${tool.id}" (policy ${tool.policy}) is hidden by the page's guard (${tool.limit}); the page's author sets the guard (data-toolwire-guard on its script tag, or connect({ guard })).`,
      { details: { ...details, guard: tool.limit } },
    );
  }
  return new ToolProtocolError(
    'tool_policy_not_granted',
    `Tool "${tool.id}" has policy "${tool.policy}"; this host is granted up to "${tool.limit}". Restart it with --max-tool-policy ${tool.policy} to allow it.`,
    { details: { ...details, maxToolPolicy: tool.limit } },
  );
}

const bounded = async (work: Promise<unknown>, ms: number): Promise<void> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    work,
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
};

/** The tools of a host in this process. */
export function hostToolSource(host: Host): McpToolSource {
  const sessions = new Map<string, HostSession>();
  let withheld: McpWithheldTool[] = [];
  return {
    withheld: () => withheld,
    async tools(refresh) {
      if (refresh) {
        await bounded(
          Promise.all(host.sessions.map((session) => session.refresh().catch(() => undefined))),
          LIST_REFRESH_BOUND_MS,
        );
      }
      const entries: McpSourceTool[] = [];
      const held: McpWithheldTool[] = [];
      for (const session of host.sessions) {
        if (!session.isOpen) continue;
        sessions.set(session.id, session);
        const pageUrl = session.info?.page.url ?? null;
        const ungranted: HostTool[] = [];
        for (const tool of session.tools()) {
          // A tool above the grant would only be refused: it is not offered.
          if (POLICY_RANK[tool.policy] > POLICY_RANK[session.grant]) {
            ungranted.push(tool);
            continue;
          }
          entries.push({
            sessionId: session.id,
            connectedAt: +session.connectedAt,
            pageUrl: session.info?.page.url ?? null,
            tool,
          });
        }
        const guard = session.pageGuard;
        held.push(
          ...withheldTools(
            {
              id: session.id,
              pageUrl,
              guard: guard ? guardName(guard) : null,
              hidden: guard?.hidden ?? [],
              grant: session.grant,
            },
            ungranted,
          ),
        );
      }
      withheld = held;
      return entries;
    },
    async call(entry, args, signal) {
      const session = host.session(entry.sessionId);
      if (!session?.isOpen) {
        throw new ToolProtocolError('tool_transport_closed', 'The page has disconnected.');
      }
      return session.call(entry.tool.id, args, { signal });
    },
    onChange(listener) {
      const off = [host.on('catalog', listener), host.on('sessionclose', listener)];
      return () => {
        for (const unsubscribe of off) unsubscribe();
      };
    },
  };
}

export function createMcpBridge(
  hostOrSource: Host | McpToolSource,
  options: McpBridgeOptions,
): McpBridge {
  const source = hostOrSource instanceof Host ? hostToolSource(hostOrSource) : hostOrSource;
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
    for (const id of [...byId.keys()].sort()) {
      const base = mcpToolName(id);
      let name = base;
      for (let n = 2; next.has(name); n++) name = `${base.slice(0, 60)}_${n}`;
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
      tools: [...names].map(([name, entry]) => describeTool(name, entry)),
      // MCP allows _meta on a result: clients that show it see why a page's tool is missing.
      ...(withheld.length > 0
        ? { _meta: { 'toolwire/withheld': withheld, 'toolwire/note': withheldSummary(withheld) } }
        : {}),
    };
  };

  const start = async () => {
    const [{ Server }, { StdioServerTransport }, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    const { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } = types;
    const server = new Server(
      { name: options.serverName ?? 'toolwire', version: options.serverVersion ?? '0.1.0' },
      {
        capabilities: { tools: { listChanged: true } },
        instructions:
          'Tools of the web pages connected to this toolwire host. The list changes as pages connect, reload and register tools.',
      },
    );
    server.oninitialized = () => {
      initialized = true;
      scheduleListChanged();
    };
    server.onerror = (error) => log(`mcp: ${error.message}`);
    // biome-ignore lint/suspicious/noExplicitAny: the SDK's zod-inferred result types are stricter than the JSON Schema objects we pass through.
    server.setRequestHandler(ListToolsRequestSchema, listTools as any);
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name } = request.params;
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
        return resultContent(result, target.tool.resultSchema.type === 'object');
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
