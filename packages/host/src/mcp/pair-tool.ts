/**
 * `toolwire_pair`: the MCP tool that pairs a page from inside an MCP client (issue 15 item 4).
 * A client that launches `toolwire mcp` hides its stderr, so the pairing link cannot be a log
 * line: the model (or the person, in clients that let them call tools) asks for one, and the
 * person opens it.
 *
 * 1. Listed first, under a name no page can take: a page tool whose MCP name would be
 *    `toolwire_pair` gets a suffix (bridge.ts), so a page cannot shadow it.
 * 2. `{page}` must be an absolute http(s) URL; anything else is an `isError` result with
 *    `tool_arguments_schema_invalid`, never a link.
 * 3. Who can get a code this way: whoever speaks MCP on this process's stdin, i.e. the client
 *    that launched it, which runs as the user and could read the state file and run
 *    `toolwire pair` anyway. A code alone connects nothing: it is single use, expires in
 *    5 minutes, is bound to the page's origin, and the page asks the person before it connects.
 */
import { ToolProtocolError } from '@toolwire/protocol';
import type { McpPairing } from './source.js';

export const PAIR_TOOL_NAME = 'toolwire_pair';

/** The tool as `tools/list` lists it. */
export const PAIR_TOOL = {
  name: PAIR_TOOL_NAME,
  title: 'Pair a web page with toolwire',
  description:
    "Makes a single-use pairing link (good for 5 minutes) for a web page that loads toolwire's endpoint script. Show the link to the user: they open it in their browser and click Connect in the page's prompt; the page's tools then join this server's tool list. Use it when the user wants to connect a page, or when no page tools are listed.",
  inputSchema: {
    type: 'object',
    properties: {
      page: {
        type: 'string',
        format: 'uri',
        description: "The page's address, e.g. http://localhost:5173/app/",
      },
    },
    required: ['page'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      link: { type: 'string', description: 'Open this in the browser, then click Connect.' },
      origin: { type: 'string', description: 'The only origin that may use the link.' },
      expiresAt: { type: 'string', format: 'date-time' },
    },
    required: ['link', 'origin', 'expiresAt'],
  },
  annotations: {
    title: 'Pair a web page with toolwire',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
} as const;

/** The page URL of a `toolwire_pair` call, or the error that refuses it (requirement 2). */
export function pairTarget(args: unknown): string | ToolProtocolError {
  const page = (args as { page?: unknown } | undefined)?.page;
  let url: URL | undefined;
  try {
    url = typeof page === 'string' ? new URL(page) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return new ToolProtocolError(
      'tool_arguments_schema_invalid',
      'toolwire_pair needs {"page": "<the page\'s absolute http(s) URL>"}, e.g. http://localhost:5173/app/.',
      { details: { path: '$.page' } },
    );
  }
  return url.toString();
}

/** What a successful call answers: the link to open, as text and as structured content. */
export function pairResult(pairing: McpPairing): Record<string, unknown> {
  return {
    content: [
      {
        type: 'text',
        text: `Open this link in the browser, then click Connect in the page's prompt (single use, for pages of ${pairing.origin}, until ${pairing.expiresAt}):\n${pairing.link}`,
      },
    ],
    structuredContent: { ...pairing },
    isError: false,
  };
}
