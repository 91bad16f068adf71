/**
 * The MCP stdio bridge: the host's page tools, served to an MCP client (Claude, an IDE...) as
 * an MCP server over newline-delimited JSON-RPC 2.0 (MCP "stdio" transport).
 *
 * 1. `initialize` answers with the client's protocol version when we speak it, else our
 *    newest; the server declares `tools: {listChanged: true}` and nothing else.
 * 2. `tools/list` lists the tools of every open session that the grant allows, after a short,
 *    bounded refresh of each catalog. Names are the tool ids made MCP-safe
 *    (`[A-Za-z0-9_-]{1,64}`: `demo.echo` -> `demo_echo`); when two pages list one id, the page
 *    that connected last wins; a name clash after the rewrite gets a numeric suffix.
 * 3. `tools/call` runs through HostSession.call (grant, catalog check, one retry on
 *    `tool_not_found`). Tool failures are results with `isError: true` and the wire code in the
 *    text; an unknown name is JSON-RPC error -32602, as MCP says.
 * 4. `notifications/cancelled` stops waiting for the call (the wire has no cancel yet, so the
 *    page finishes it and its answer is dropped).
 * 5. `notifications/tools/list_changed` follows every change of the listed set, once the client
 *    has sent `notifications/initialized`.
 * 6. Nothing but JSON-RPC is written to `output`; diagnostics go to `log`.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { JsonValue, ResultPayload } from '@toolwire/protocol';
import { isPlainObject, POLICY_RANK, ToolProtocolError } from '@toolwire/protocol';
import type { HostTool } from './catalog-cache.js';
import type { Host } from './host.js';
import type { HostSession } from './session.js';

export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
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
  readonly names: ReadonlyMap<string, { session: HostSession; tool: HostTool }>;
  close(): void;
}

type Id = string | number;
interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
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

function describeTool(name: string, tool: HostTool, session: HostSession): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    name,
    title: tool.name,
    description: tool.runtime
      ? `${tool.description} (unavailable now: ${tool.runtime.reason ?? tool.runtime.code ?? 'no reason given'})`
      : tool.description,
    inputSchema: inputSchemaOf(tool),
  };
  if (tool.resultSchema.type === 'object') entry.outputSchema = tool.resultSchema;
  entry.annotations = {
    title: tool.name,
    readOnlyHint: tool.policy === 'read',
    destructiveHint: tool.policy === 'critical',
  };
  entry._meta = {
    'toolwire/toolId': tool.id,
    'toolwire/policy': tool.policy,
    'toolwire/page': session.info?.page.url ?? null,
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

export function createMcpBridge(host: Host, options: McpBridgeOptions): McpBridge {
  const log = options.log ?? (() => {});
  let names = new Map<string, { session: HostSession; tool: HostTool }>();
  let listedSignature = '';
  let initialized = false;
  let closed = false;
  let changedTimer: ReturnType<typeof setTimeout> | undefined;
  const inFlight = new Map<Id, AbortController>();

  const write = (message: object): void => {
    if (closed) return;
    options.output.write(`${JSON.stringify(message)}\n`);
  };

  /** Requirement 2: the listed set, newest session last so it wins a shared id. */
  const collect = (): Map<string, { session: HostSession; tool: HostTool }> => {
    const byId = new Map<string, { session: HostSession; tool: HostTool }>();
    const sessions = [...host.sessions].sort((a, b) => +a.connectedAt - +b.connectedAt);
    for (const session of sessions) {
      for (const tool of session.tools()) {
        // A tool above the grant would only be refused: it is not offered.
        if (POLICY_RANK[tool.policy] > POLICY_RANK[session.grant]) continue;
        byId.set(tool.id, { session, tool });
      }
    }
    const next = new Map<string, { session: HostSession; tool: HostTool }>();
    for (const id of [...byId.keys()].sort()) {
      const base = mcpToolName(id);
      let name = base;
      for (let n = 2; next.has(name); n++) name = `${base.slice(0, 60)}_${n}`;
      next.set(name, byId.get(id) as { session: HostSession; tool: HostTool });
    }
    return next;
  };

  const signatureOf = (map: Map<string, { session: HostSession; tool: HostTool }>): string =>
    [...map]
      .map(([name, { session, tool }]) => `${name}:${session.id}:${tool.definitionRevision}`)
      .join('|');

  const scheduleListChanged = (): void => {
    clearTimeout(changedTimer);
    changedTimer = setTimeout(() => {
      const signature = signatureOf(collect());
      if (!initialized || signature === listedSignature) return;
      listedSignature = signature;
      write({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    }, LIST_CHANGED_DELAY_MS);
  };

  const unsubscribe = [
    host.on('catalog', scheduleListChanged),
    host.on('sessionclose', scheduleListChanged),
  ];

  const listTools = async (): Promise<object> => {
    const refreshes = host.sessions.map((session) => session.refresh().catch(() => undefined));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(refreshes),
      new Promise((resolve) => {
        timer = setTimeout(resolve, LIST_REFRESH_BOUND_MS);
      }),
    ]);
    clearTimeout(timer);
    names = collect();
    listedSignature = signatureOf(names);
    return {
      tools: [...names].map(([name, { session, tool }]) => describeTool(name, tool, session)),
    };
  };

  const callTool = async (id: Id, params: Record<string, unknown>): Promise<object> => {
    const name = params.name;
    if (typeof name !== 'string') throw new RpcFailure(-32602, 'tools/call needs a tool name.');
    // A client may call without listing first, or after the page reloaded: look again then.
    let target = names.get(name);
    if (!target?.session.isOpen) target = collect().get(name);
    if (!target?.session.isOpen) throw new RpcFailure(-32602, `Unknown tool: ${name}`);
    const args = params.arguments;
    if (args !== undefined && args !== null && !isPlainObject(args)) {
      throw new RpcFailure(-32602, 'Tool arguments must be an object.');
    }
    const controller = new AbortController();
    inFlight.set(id, controller);
    try {
      const result = await target.session.call(target.tool.id, args ?? {}, {
        signal: controller.signal,
      });
      return resultContent(result, target.tool.resultSchema.type === 'object');
    } catch (error) {
      return errorContent(error);
    } finally {
      inFlight.delete(id);
    }
  };

  const dispatch = async (method: string, params: Record<string, unknown>, id: Id) => {
    switch (method) {
      case 'initialize': {
        const asked = params.protocolVersion;
        const version =
          typeof asked === 'string' && MCP_PROTOCOL_VERSIONS.includes(asked)
            ? asked
            : MCP_PROTOCOL_VERSIONS[0];
        return {
          protocolVersion: version,
          capabilities: { tools: { listChanged: true } },
          serverInfo: {
            name: options.serverName ?? 'toolwire',
            version: options.serverVersion ?? '0.1.0',
          },
          instructions:
            'Tools of the web pages connected to this toolwire host. The list changes as pages connect, reload and register tools.',
        };
      }
      case 'ping':
        return {};
      case 'tools/list':
        return listTools();
      case 'tools/call':
        return callTool(id, params);
      default:
        throw new RpcFailure(-32601, `Method not found: ${method}`);
    }
  };

  const onNotification = (method: string, params: Record<string, unknown>): void => {
    if (method === 'notifications/initialized') {
      initialized = true;
      scheduleListChanged();
    } else if (method === 'notifications/cancelled') {
      const requestId = params.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') {
        inFlight.get(requestId)?.abort(new Error('cancelled by the MCP client'));
      }
    }
  };

  const onLine = (line: string): void => {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      return;
    }
    if (!isPlainObject(message) || message.jsonrpc !== '2.0') {
      write({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
      return;
    }
    const { id, method } = message;
    const params = isPlainObject(message.params) ? message.params : {};
    if (typeof method !== 'string') return; // a response to us: we send no requests
    if (id === undefined) {
      onNotification(method, params);
      return;
    }
    if (typeof id !== 'string' && typeof id !== 'number') {
      write({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
      return;
    }
    dispatch(method, params, id).then(
      (result) => write({ jsonrpc: '2.0', id, result }),
      (error: unknown) => {
        const rpc: RpcError =
          error instanceof RpcFailure
            ? { code: error.code, message: error.message }
            : { code: -32603, message: String((error as Error)?.message ?? error) };
        if (!(error instanceof RpcFailure)) log(`mcp: ${method} failed: ${rpc.message}`);
        write({ jsonrpc: '2.0', id, error: rpc });
      },
    );
  };

  const lines = createInterface({ input: options.input, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on('line', onLine);

  return {
    get names() {
      return names;
    },
    close() {
      if (closed) return;
      closed = true;
      clearTimeout(changedTimer);
      for (const off of unsubscribe) off();
      for (const controller of inFlight.values()) controller.abort(new Error('bridge closed'));
      lines.close();
    },
  };
}
