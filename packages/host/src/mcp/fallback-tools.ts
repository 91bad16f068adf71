/**
 * `toolwire_sessions` and `toolwire_call`: the bridge's two fallback tools, for MCP clients that
 * list tools once and ignore `notifications/tools/list_changed`. With them a
 * model still finds the tabs that connected later and calls their tools.
 *
 * 1. `toolwire_sessions {}` lists every open session (id, label, tab title/url/origin, the
 *    socket's origin, grant, guard) with its offered tools (id, MCP name, title, description,
 *    policy, availability) and the tools it does not offer, and why.
 * 2. `toolwire_call {session, tool, arguments}` calls one: `session` is a session id or its
 *    label, `tool` the tool's id (or its MCP name). It goes the way a direct call goes: the same
 *    listing (above the grant: not offered; hidden by the page's guard: not offered, and named
 *    by its id or any MCP name naming.ts 6 gives it), then the session's own checks and the
 *    page's.
 * 3. Refusals are `isError` results with a code, never a call: arguments not of that shape
 *    (`tool_arguments_schema_invalid`), no such session (`session_not_connected`), a tool not
 *    offered (why, as a direct call says) or not listed at all (`tool_not_found`).
 * 4. Their names are reserved (naming.ts): a page tool cannot shadow them.
 */
import { isPlainObject, ToolProtocolError } from '@toolwire/protocol';
import { hostError } from '../shared/errors.js';
import { sessionLabel, withheldNamed } from './naming.js';
import type { McpSourceSession, McpSourceTool, McpWithheldTool } from './source.js';
import { withheldError } from './source.js';

export const SESSIONS_TOOL_NAME = 'toolwire_sessions';
export const CALL_TOOL_NAME = 'toolwire_call';

const tabSchema = {
  type: ['object', 'null'],
  properties: { title: { type: 'string' }, url: { type: 'string' }, origin: { type: 'string' } },
};

/** The sessions tool as `tools/list` lists it. */
export const SESSIONS_TOOL = {
  name: SESSIONS_TOOL_NAME,
  title: 'List the connected tabs and their tools',
  description:
    "Lists the browser tabs connected to toolwire (session id, label, the tab's title, address and origin) and each tab's tools (id, MCP name, description, policy). Use it when a tab's tools are missing from your tool list (it may have connected after you listed), or to tell apart tabs that offer the same tool; call such a tool with toolwire_call.",
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: {
    type: 'object',
    properties: {
      sessions: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            label: { type: 'string' },
            tab: tabSchema,
            tools: { type: 'array', items: { type: 'object' } },
          },
        },
      },
    },
    required: ['sessions'],
  },
  annotations: {
    title: 'List the connected tabs and their tools',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
} as const;

/** The call tool as `tools/list` lists it. */
export const CALL_TOOL = {
  name: CALL_TOOL_NAME,
  title: "Call a tab's tool",
  description:
    "Calls one tool of one connected tab, by session and tool id as toolwire_sessions lists them. Use it for a tool that is not in your tool list (its tab connected later). The host's grant and the page's guard apply as to any call.",
  inputSchema: {
    type: 'object',
    properties: {
      session: { type: 'string', description: "The session's id or its 8-character label." },
      tool: { type: 'string', description: "The tool's id (or its MCP name)." },
      arguments: { type: 'object', description: "The tool's arguments." },
    },
    required: ['session', 'tool'],
    additionalProperties: false,
  },
  annotations: {
    title: "Call a tab's tool",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
} as const;

/** What a `toolwire_call` asks for. */
export interface FallbackCall {
  session: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** The call a `toolwire_call`'s arguments ask for, or the error that refuses them. */
export function callTarget(args: unknown): FallbackCall | ToolProtocolError {
  const refuse = (path: string, what: string) =>
    new ToolProtocolError(
      'tool_arguments_schema_invalid',
      `toolwire_call needs {"session": "<id or label>", "tool": "<tool id>", "arguments": {...}}: ${what}.`,
      { details: { path } },
    );
  if (!isPlainObject(args)) return refuse('$', 'the arguments are not an object');
  const { session, tool, arguments: toolArgs } = args;
  if (typeof session !== 'string' || session === '') {
    return refuse('$.session', '"session" must be a non-empty string');
  }
  if (typeof tool !== 'string' || tool === '') {
    return refuse('$.tool', '"tool" must be a non-empty string');
  }
  if (toolArgs !== undefined && toolArgs !== null && !isPlainObject(toolArgs)) {
    return refuse('$.arguments', '"arguments" must be an object');
  }
  return { session, tool, arguments: (toolArgs ?? {}) as Record<string, unknown> };
}

/** The open session `ref` names: its id, else its label when exactly one session has it. */
function findSession(
  sessions: readonly McpSourceSession[],
  ref: string,
): McpSourceSession | undefined {
  const exact = sessions.find((session) => session.id === ref);
  if (exact) return exact;
  const labelled = sessions.filter((session) => sessionLabel(session.id) === ref.toLowerCase());
  return labelled.length === 1 ? labelled[0] : undefined;
}

/** The listed tool a `toolwire_call` names, or the refusal. */
export function resolveCall(
  call: FallbackCall,
  sessions: readonly McpSourceSession[],
  names: ReadonlyMap<string, McpSourceTool>,
  withheld: readonly McpWithheldTool[],
  given?: (sessionId: string, toolId: string) => string | undefined,
): McpSourceTool | ToolProtocolError {
  const session = findSession(sessions, call.session);
  if (!session) {
    return hostError(
      'session_not_connected',
      `No open session "${call.session}"; toolwire_sessions lists the open ones.`,
      { session: call.session },
    );
  }
  const offered = [...names].filter(([, entry]) => entry.sessionId === session.id);
  const found =
    offered.find(([, entry]) => entry.tool.id === call.tool) ??
    offered.find(([name]) => name === call.tool);
  if (found) return found[1];
  const own = withheld.filter((tool) => tool.sessionId === session.id);
  const held = own.find((tool) => tool.id === call.tool) ?? withheldNamed(call.tool, own, given);
  if (held) return withheldError(held);
  return new ToolProtocolError(
    'tool_not_found',
    `Session "${sessionLabel(session.id)}" offers no tool "${call.tool}"; toolwire_sessions lists its tools.`,
    { details: { toolId: call.tool, sessionId: session.id, source: 'host' } },
  );
}

/** What `toolwire_sessions` answers: the sessions as JSON, text and structured. */
export function sessionsResult(
  sessions: readonly McpSourceSession[],
  names: ReadonlyMap<string, McpSourceTool>,
  withheld: readonly McpWithheldTool[],
): Record<string, unknown> {
  const listed = [...sessions]
    .sort((a, b) => a.connectedAt - b.connectedAt || (a.id < b.id ? -1 : 1))
    .map((session) => ({
      id: session.id,
      label: sessionLabel(session.id),
      connectedAt: Number.isFinite(session.connectedAt)
        ? new Date(session.connectedAt).toISOString()
        : null,
      tab: session.tab,
      connectedFrom: session.connectedFrom,
      grant: session.grant,
      guard: session.guard,
      tools: [...names]
        .filter(([, entry]) => entry.sessionId === session.id)
        .map(([name, { tool }]) => ({
          id: tool.id,
          name,
          title: tool.name,
          description: tool.description,
          policy: tool.policy,
          available: tool.runtime === undefined,
        })),
      withheld: withheld
        .filter((tool) => tool.sessionId === session.id)
        .map(({ id, policy, reason, limit }) => ({ id, policy, reason, limit })),
    }));
  const structured = { sessions: listed };
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
    isError: false,
  };
}
