/**
 * The MCP stdio bridge: the host's page tools, served to an MCP client (Claude, an IDE...) as
 * an MCP server over stdio, on `@modelcontextprotocol/sdk`'s low-level `Server` and
 * `StdioServerTransport`.
 *
 * 1. The SDK negotiates `initialize` (the client's version when it speaks it, else its newest);
 *    the server declares `tools: {listChanged: true}` and nothing else.
 * 2. `tools/list` lists the tools of every open session that the grant allows, after a short,
 *    bounded refresh of each catalog (listing.ts). Names are the tool ids made MCP-safe
 *    (`[A-Za-z0-9_-]{1,64}`: `demo.echo` -> `demo_echo`), unique across tabs, and never moving:
 *    when two tabs list one id, the first keeps the plain name and the other's is suffixed with
 *    its session label; a name stays with its origin (and its tab, when it comes back) for the
 *    bridge's lifetime (naming.ts). Each tool's description and `_meta` name the tab it
 *    belongs to.
 * 3. `tools/call` runs through HostSession.call (grant, catalog check, one retry on
 *    `tool_not_found`). Tool failures are results with `isError: true` and the wire code in the
 *    text; an unknown name is JSON-RPC error -32602, as MCP says, with `data` carrying the code
 *    (`toolwire/code: tool_not_found`, `toolwire/retryable: false`, the keys of a failed result's
 *    `_meta`), unless its tab is gone (`session_not_connected`, retryable: the name waits for
 *    its origin, naming.ts 3) or it names a withheld tool (naming.ts 6), which answers why
 *    (`tool_execution_denied`, `details.deniedBy`). Images and Blobs that the tool
 *    declares become image and resource content (content.ts).
 * 4. `notifications/cancelled` aborts the call's signal (the SDK's `extra.signal`): the source
 *    cancels it at the page (`session.cancel`), and the call ends as `tool_call_cancelled`. As
 *    MCP says, nothing answers a cancelled request then (the SDK drops the answer), and no
 *    progress follows. The client going away (stdin closed) aborts every call in flight too.
 * 5. `notifications/tools/list_changed` follows every change of the listed set, once the client
 *    has sent `notifications/initialized`.
 * 6. Nothing but JSON-RPC is written to `output`; diagnostics go to `log`.
 * 7. When the source can pair, `toolwire_pair` (pair-tool.ts) is listed first and its name is
 *    reserved: a client's user pairs a page without reading stderr. The server's
 *    `instructions` say so. `toolwire_sessions` and `toolwire_call` (fallback-tools.ts) follow,
 *    always: for clients that ignore `list_changed`, they list the tabs and call any tab's tool.
 * 8. `tools/list` is one page, never `nextCursor`, however many tools the pages list: MCP
 *    clients that do not follow cursors still see every tool, and stdio has no frame limit to
 *    page around. A request with a cursor gets -32602, as MCP says of a cursor the server did
 *    not make.
 * 9. Annotations: `readOnlyHint`/`destructiveHint` from the policy, `idempotentHint` and
 *    `openWorldHint` as the page set them, `title` from the wire's `name` (the page's title).
 * 10. Progress: a `tools/call` whose `_meta` holds a `progressToken` asks the page for progress,
 *    and each report goes out as `notifications/progress {progressToken, progress, total?,
 *    message?}` while the call runs: only rising progress, the message clipped
 *    (shared/progress.ts), nothing after the answer. Without a token nothing is asked.
 * 11. Deadlines: the source's: a host's own `callTimeoutMs` (60 s unless `toolwire mcp
 *    --timeout` says), or what an attached source sends (control-source.ts).
 * 12. A source that cannot list (`mcp --attach` whose host stopped) never makes `tools/list` a
 *    JSON-RPC error: it lists toolwire's own tools, with the failure's code, `retryable` and
 *    message in `_meta` (`toolwire/code`, `toolwire/retryable`, `toolwire/note`), and tells
 *    the client the list changed. A call then answers that code as a tool error.
 * 13. Everything above lives in an McpService (createMcpService): one tool source, one naming
 *    table, and one SDK `Server` per client connected to it. The stdio bridge connects one;
 *    the host's Streamable HTTP endpoint (http.ts) connects one per client session, so every
 *    session sees the same names. `list_changed` goes to every client that has initialized.
 */
import type { Readable, Writable } from 'node:stream';
import type { JsonValue } from '@toolwire/protocol';
import { defaultRetryable, isPlainObject, ToolProtocolError } from '@toolwire/protocol';
import { grantHint } from '../shared/errors.js';
import { increasing } from '../shared/progress.js';
import { VERSION } from '../shared/version.js';
import { resultContent } from './content.js';
import {
  CALL_TOOL,
  CALL_TOOL_NAME,
  callTarget,
  resolveCall,
  SESSIONS_TOOL,
  SESSIONS_TOOL_NAME,
  sessionsResult,
} from './fallback-tools.js';
import type { McpHost } from './host-source.js';
import { hostToolSource } from './host-source.js';
import { listedSchemas, mcpToolDefinition } from './listing.js';
import { McpToolNames, withheldNamed } from './naming.js';
import { PAIR_TOOL, PAIR_TOOL_NAME, pairResult, pairTarget } from './pair-tool.js';
import { McpSchemas } from './schema.js';
import type { McpSourceSession, McpSourceTool, McpToolSource } from './source.js';
import { sessionsOf, withheldError, withheldSummary } from './source.js';

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

export interface McpBridgeOptions extends McpServiceOptions {
  input: Readable;
  output: Writable;
}

/** What names the server to its clients, and where its diagnostics go. */
export interface McpServiceOptions {
  serverName?: string;
  serverVersion?: string;
  log?: (line: string) => void;
}

/** An SDK transport, as the service connects one (stdio, or one Streamable HTTP session). */
type SdkTransport = Parameters<
  InstanceType<typeof import('@modelcontextprotocol/sdk/server/index.js').Server>['connect']
>[0];

/** One client's connection to the service. */
interface McpServiceClient {
  /** Ends this client's server (its calls in flight are aborted) and its transport. */
  close(): Promise<void>;
}

/**
 * Page tools as MCP, for any number of clients: one tool source, one naming table, one SDK
 * `Server` per client (header 13).
 */
export interface McpService {
  /** The MCP name -> page tool map as last listed. */
  readonly names: ReadonlyMap<string, McpSourceTool>;
  /** A server of its own for one client, connected to `transport`. */
  connect(transport: SdkTransport): Promise<McpServiceClient>;
  /** Closes every client's server and stops watching the source. */
  close(): Promise<void>;
}

/** What a `tools/call` handler gets from the SDK that the bridge uses. */
interface CallExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: unknown } | undefined;
  sendNotification(notification: {
    method: 'notifications/progress';
    params: Record<string, unknown>;
  }): Promise<void>;
}

export interface McpBridge {
  /** The MCP name -> page tool map as last listed (for tests and diagnostics). */
  readonly names: ReadonlyMap<string, McpSourceTool>;
  /** Resolves once the server listens on `input`. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/** The `data` of the -32602 error an unknown tool name answers: the keys of a result's `_meta`. */
const UNKNOWN_TOOL_DATA = Object.freeze({
  'toolwire/code': 'tool_not_found',
  'toolwire/retryable': defaultRetryable('tool_not_found'),
});

/** A failure as a coded error: the source's own, else `tool_protocol_bridge_failed`. */
function codedError(error: unknown): ToolProtocolError {
  return error instanceof ToolProtocolError
    ? error
    : new ToolProtocolError(
        'tool_protocol_bridge_failed',
        String((error as Error)?.message ?? error),
      );
}

/** A call to a name whose tab is gone: retryable, the tab may come back (naming.ts 3). */
function notConnectedError(name: string, origin: string | null): ToolProtocolError {
  return new ToolProtocolError(
    'session_not_connected',
    `The tab that "${name}" belongs to (${origin ?? 'its origin'}) is not connected now; the name stays with it and answers again when a tab of that origin offers the tool.`,
    { retryable: true, details: { name, origin } },
  );
}

function errorContent(error: unknown): Record<string, unknown> {
  const coded = codedError(error);
  const details: JsonValue | null = coded.details;
  const hint = grantHint(coded.code, details);
  const text = `${coded.code}: ${coded.message}${hint ? ` (${hint})` : ''}${details === null ? '' : `\n${JSON.stringify(details)}`}`;
  return {
    content: [{ type: 'text', text }],
    isError: true,
    _meta: { 'toolwire/code': coded.code, 'toolwire/retryable': coded.retryable },
  };
}

/** A Host is told from a tool source by what a source has: `tools()`. */
const toSource = (hostOrSource: McpHost | McpToolSource): McpToolSource =>
  typeof (hostOrSource as McpToolSource).tools === 'function'
    ? (hostOrSource as McpToolSource)
    : hostToolSource(hostOrSource as McpHost);

/** The SDK's server side, imported once per process when the first service starts. */
let sdkLoaded:
  | Promise<
      [
        typeof import('@modelcontextprotocol/sdk/server/index.js'),
        typeof import('@modelcontextprotocol/sdk/types.js'),
        typeof import('@modelcontextprotocol/sdk/validation/ajv'),
      ]
    >
  | undefined;
const loadSdk = () =>
  (sdkLoaded ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/validation/ajv'),
  ]));

export function createMcpService(
  hostOrSource: McpHost | McpToolSource,
  options: McpServiceOptions = {},
): McpService {
  const source = toSource(hostOrSource);
  const pairs = source.pair !== undefined;
  const log = options.log ?? (() => {});
  let names = new Map<string, McpSourceTool>();
  const naming = new McpToolNames([PAIR_TOOL_NAME, SESSIONS_TOOL_NAME, CALL_TOOL_NAME]);
  const given = (sessionId: string, toolId: string) => naming.given(sessionId, toolId);
  /** The open sessions as of the last listing (sources that cannot say: those with tools). */
  const openSessions = (entries: readonly McpSourceTool[]): McpSourceSession[] =>
    source.sessions?.() ?? sessionsOf(entries);
  let listedSignature = '';
  /** Every client's server, and whether it has sent `notifications/initialized`. */
  type Served = InstanceType<typeof import('@modelcontextprotocol/sdk/server/index.js').Server>;
  const servers = new Map<Served, { initialized: boolean }>();
  let closed = false;
  let changedTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bounded schemas (schema.ts), checked with the SDK client's own validator once started. */
  let schemas: McpSchemas | undefined;

  /** Names for the listed set (naming.ts). */
  const collect = async (refresh: boolean): Promise<Map<string, McpSourceTool>> => {
    const entries = await source.tools(refresh);
    return naming.assign(entries, openSessions(entries));
  };

  /** What the client's list depends on: names, definitions, and the tabs they name. */
  const signatureOf = (map: Map<string, McpSourceTool>): string => {
    const tabs = new Map(openSessions([...map.values()]).map((one) => [one.id, one]));
    return JSON.stringify(
      [...map].map(([name, entry]) => {
        const session = tabs.get(entry.sessionId);
        return [
          name,
          entry.sessionId,
          entry.tool.definitionRevision,
          session?.tab?.title,
          session?.tab?.origin,
          session?.connectedFrom,
        ];
      }),
    );
  };

  let toldWithheld = '';
  let toldFailure = '';
  const listTools = async (): Promise<object> => {
    let failure: ToolProtocolError | undefined;
    try {
      names = await collect(true);
    } catch (error) {
      // The source cannot list (an attached host that stopped): toolwire's own
      // tools, and why the page tools are missing.
      failure = codedError(error);
      names = new Map();
    }
    listedSignature = signatureOf(names);
    const told = failure ? `${failure.code}: ${failure.message}` : '';
    if (failure && told !== toldFailure) log(`mcp: the page tools cannot be listed: ${told}`);
    toldFailure = told;
    if (failure) {
      return {
        tools: [...(pairs ? [PAIR_TOOL] : []), SESSIONS_TOOL, CALL_TOOL],
        _meta: {
          'toolwire/code': failure.code,
          'toolwire/retryable': failure.retryable,
          'toolwire/note': `The page tools cannot be listed: ${failure.message}`,
        },
      };
    }
    const withheld = source.withheld?.() ?? [];
    const toldHeld = JSON.stringify(withheld);
    if (withheld.length > 0 && toldHeld !== toldWithheld) log(`mcp: ${withheldSummary(withheld)}`);
    toldWithheld = toldHeld;
    const sessions = new Map(openSessions([...names.values()]).map((one) => [one.id, one]));
    return {
      tools: [
        ...(pairs ? [PAIR_TOOL] : []),
        SESSIONS_TOOL,
        CALL_TOOL,
        ...[...names].map(([name, entry]) =>
          mcpToolDefinition(name, entry, sessions.get(entry.sessionId), schemas as McpSchemas),
        ),
      ],
      // MCP allows _meta on a result: clients that show it see why a page's tool is missing.
      ...(withheld.length > 0
        ? { _meta: { 'toolwire/withheld': withheld, 'toolwire/note': withheldSummary(withheld) } }
        : {}),
    };
  };

  /** `toolwire_pair`. */
  const pair = async (args: unknown): Promise<Record<string, unknown>> => {
    const target = pairTarget(args);
    if (target instanceof ToolProtocolError) return errorContent(target);
    try {
      const pairing = await (source.pair as NonNullable<McpToolSource['pair']>)(target);
      log(`mcp: the client asked for a pairing link for ${pairing.origin}`);
      return pairResult(pairing, target);
    } catch (error) {
      return errorContent(error);
    }
  };

  /** One page tool's call, answered as MCP content. */
  const callTool = async (
    target: McpSourceTool,
    args: Record<string, unknown>,
    extra: CallExtra,
  ): Promise<Record<string, unknown>> => {
    const token = extra._meta?.progressToken;
    let running = true;
    /** The notifications sent so far, in order: all written before the answer. */
    let sent: Promise<void> = Promise.resolve();
    const onProgress =
      typeof token === 'string' || typeof token === 'number'
        ? increasing(({ progress, total, message }) => {
            if (!running || extra.signal.aborted) return;
            const params = {
              progressToken: token,
              progress,
              ...(total === undefined ? {} : { total }),
              ...(message === undefined ? {} : { message }),
            };
            sent = sent
              .then(() => extra.sendNotification({ method: 'notifications/progress', params }))
              .catch((error: Error) => log(`mcp: ${error.message}`));
          })
        : undefined;
    let answer: Record<string, unknown>;
    try {
      const result = await source.call(
        target,
        args,
        extra.signal,
        onProgress ? { onProgress } : {},
      );
      const { check } = listedSchemas(schemas as McpSchemas, target.tool);
      answer = resultContent(result, target.tool.resultSchema, {
        sessionId: target.sessionId,
        toolId: target.tool.id,
        check,
      });
    } catch (error) {
      answer = errorContent(error);
    }
    running = false;
    // The SDK writes a notification and the answer on separate paths: the answer goes last.
    await sent;
    return answer;
  };

  /** `toolwire_sessions` and `toolwire_call` (fallback-tools.ts), on a fresh listing. */
  const fallback = async (
    name: string,
    args: unknown,
    extra: CallExtra,
  ): Promise<Record<string, unknown>> => {
    const call = name === CALL_TOOL_NAME ? callTarget(args) : undefined;
    if (call instanceof ToolProtocolError) return errorContent(call);
    let listed: Map<string, McpSourceTool>;
    try {
      listed = await collect(name === SESSIONS_TOOL_NAME);
    } catch (error) {
      return errorContent(error);
    }
    const sessions = openSessions([...listed.values()]);
    const withheld = source.withheld?.() ?? [];
    if (!call) return sessionsResult(sessions, listed, withheld);
    const target = resolveCall(call, sessions, listed, withheld, given);
    if (target instanceof ToolProtocolError) return errorContent(target);
    return callTool(target, call.arguments, extra);
  };

  /** The SDK, and the schemas' validator, once for the service. */
  const prepared = loadSdk().then(([sdk, types, { AjvJsonSchemaValidator }]) => {
    // The validator the SDK's client compiles `outputSchema` with, set up as it sets it up.
    const validator = new AjvJsonSchemaValidator();
    schemas = new McpSchemas((schema) => {
      const validate = validator.getValidator(schema);
      return (value) => validate(value).valid;
    });
    return { Server: sdk.Server, types };
  });

  const connect = async (transport: SdkTransport): Promise<McpServiceClient> => {
    const { Server, types } = await prepared;
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
    const state = { initialized: false };
    server.oninitialized = () => {
      state.initialized = true;
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
      if (name === SESSIONS_TOOL_NAME || name === CALL_TOOL_NAME) {
        return fallback(name, request.params.arguments, extra as CallExtra);
      }
      // A client may call without listing first, or after the page reloaded: look again then.
      let target = names.get(name);
      if (!target) {
        try {
          target = (await collect(false)).get(name);
        } catch (error) {
          return errorContent(error); // the source cannot list now
        }
      }
      if (!target) {
        // A name whose tab is gone stays its origin's (naming.ts 3): the call waits for it,
        // never reaching another origin's tool that reads alike.
        const owner = naming.dormant(name);
        if (owner) return errorContent(notConnectedError(name, owner.origin));
        // A page's tool that is withheld answers why, not "Unknown tool", under any name it
        // has: the one it was listed under, its plain one, or its tab's labelled one.
        const held = withheldNamed(name, source.withheld?.() ?? [], given);
        if (held) return errorContent(withheldError(held));
        // JSON-RPC's -32602, as MCP says, with the code every other road answers in `data`.
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`, UNKNOWN_TOOL_DATA);
      }
      const args = request.params.arguments;
      if (args !== undefined && args !== null && !isPlainObject(args)) {
        throw new McpError(ErrorCode.InvalidParams, 'Tool arguments must be an object.');
      }
      return callTool(target, args ?? {}, extra as CallExtra);
    });
    const closeServer = async () => {
      servers.delete(server);
      await server.close().catch(() => undefined);
    };
    if (closed) return { close: async () => undefined };
    servers.set(server, state);
    // The transport closing (the client went away, or ended its session) forgets the server.
    server.onclose = () => {
      servers.delete(server);
    };
    await server.connect(transport);
    return { close: closeServer };
  };

  function scheduleListChanged(): void {
    clearTimeout(changedTimer);
    changedTimer = setTimeout(() => {
      // A source that cannot list lists no page tools: the clients are told.
      void collect(false)
        .catch(() => new Map<string, McpSourceTool>())
        .then(async (map) => {
          const signature = signatureOf(map);
          const told = [...servers].filter(([, one]) => one.initialized).map(([server]) => server);
          if (closed || told.length === 0 || signature === listedSignature) return;
          listedSignature = signature;
          await Promise.all(
            told.map((server) =>
              server.sendToolListChanged().catch((error: Error) => log(`mcp: ${error.message}`)),
            ),
          );
        })
        .catch((error: Error) => log(`mcp: ${error.message}`));
    }, LIST_CHANGED_DELAY_MS);
  }

  const unsubscribe = source.onChange(scheduleListChanged);

  return {
    get names() {
      return names;
    },
    connect,
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(changedTimer);
      unsubscribe();
      source.close?.();
      await Promise.all([...servers.keys()].map((server) => server.close().catch(() => undefined)));
      servers.clear();
    },
  };
}

/** The MCP server over stdio (`toolwire mcp`): one client on `input` / `output`. */
export function createMcpBridge(
  hostOrSource: McpHost | McpToolSource,
  options: McpBridgeOptions,
): McpBridge {
  const { input, output, ...serviceOptions } = options;
  const log = options.log ?? (() => {});
  const service = createMcpService(hostOrSource, serviceOptions);
  let closed = false;
  const started = (async () => {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    if (closed) return undefined;
    return service.connect(new StdioServerTransport(input, output));
  })();
  started.catch((error: Error) => log(`mcp: could not start: ${error.message}`));
  return {
    get names() {
      return service.names;
    },
    ready: started.then(() => undefined),
    async close() {
      if (closed) return;
      closed = true;
      await started.catch(() => undefined);
      await service.close();
    },
  };
}
