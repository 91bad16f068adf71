/**
 * `toolwire_pair`: the MCP tool that pairs a page from inside an MCP client.
 * A client that launches `toolwire mcp` hides its stderr, so the pairing link cannot be a log
 * line: the model (or the person, in clients that let them call tools) asks for one, and the
 * person opens it.
 *
 * 1. Listed first, under a name no page can take: a page tool whose MCP name would be
 *    `toolwire_pair` gets a suffix (bridge.ts), so a page cannot shadow it.
 * 2. `{page}` must be an absolute http(s) URL; anything else is an `isError` result with
 *    `tool_arguments_schema_invalid`, never a link. `{extension}` instead (the toolwire
 *    extension's id or origin) answers the address to paste in its side panel ("Connect this
 *    tab to toolwire"), bound to that extension's origin.
 * 3. Who can get a code this way: whoever speaks MCP on this process's stdin, i.e. the client
 *    that launched it, which runs as the user and could read the state file and run
 *    `toolwire pair` anyway. A code alone connects nothing: it is single use, expires in
 *    5 minutes, is bound to the page's origin, and the page asks the person before it connects.
 */
import { ToolProtocolError } from '@toolwire/protocol';
import { extensionOrigin } from '../server/extension-origin.js';
import { linkPhrase } from '../shared/link-phrase.js';
import type { McpPairing, McpPairTarget } from './source.js';

export const PAIR_TOOL_NAME = 'toolwire_pair';

/** The tool as `tools/list` lists it. */
export const PAIR_TOOL = {
  name: PAIR_TOOL_NAME,
  title: 'Pair a web page with toolwire',
  description:
    "Makes a single-use pairing link (good for 5 minutes) for a web page that loads toolwire's endpoint script. Show the link to the user: they open it in their browser and click Connect in the page's prompt; the page's tools then join this server's tool list. Use it when the user wants to connect a page, or when no page tools are listed. For a tab connected through the toolwire browser extension, pass {extension} (the id its side panel shows) instead of {page}: the user pastes the answer in the side panel.",
  inputSchema: {
    type: 'object',
    properties: {
      page: {
        type: 'string',
        format: 'uri',
        description: "The page's address, e.g. http://localhost:5173/app/",
      },
      extension: {
        type: 'string',
        description:
          "Instead of page: the toolwire extension's id (or chrome-extension://ID), as its side panel shows it",
      },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      link: { type: 'string', description: 'Open this in the browser, then click Connect.' },
      origin: { type: 'string', description: 'The only origin that may use the link.' },
      expiresAt: { type: 'string', format: 'date-time' },
      phrase: {
        type: 'string',
        description:
          "The pairing phrase: the page's prompt (or the extension's panel) shows the same words.",
      },
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

/** What a `toolwire_pair` call asks for, or the error that refuses it. */
export function pairTarget(args: unknown): McpPairTarget | ToolProtocolError {
  const { page, extension } = (args ?? {}) as { page?: unknown; extension?: unknown };
  if (extension !== undefined && page === undefined) {
    try {
      return { extension: extensionOrigin(String(extension)) };
    } catch (error) {
      return new ToolProtocolError('tool_arguments_schema_invalid', (error as Error).message, {
        details: { path: '$.extension' },
      });
    }
  }
  let url: URL | undefined;
  try {
    url = typeof page === 'string' && extension === undefined ? new URL(page) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return new ToolProtocolError(
      'tool_arguments_schema_invalid',
      'toolwire_pair needs {"page": "<the page\'s absolute http(s) URL>"}, e.g. http://localhost:5173/app/, or {"extension": "<the toolwire extension\'s id>"}.',
      { details: { path: '$.page' } },
    );
  }
  return { page: url.toString() };
}

/** What a successful call answers: the link to open (or paste), as text and as structured content. */
export function pairResult(pairing: McpPairing, target: McpPairTarget): Record<string, unknown> {
  const phrase = linkPhrase(pairing.link);
  const check = phrase
    ? `\nphrase: ${phrase} (connect only if the ${'extension' in target ? 'panel' : "page's prompt"} shows the same words)`
    : '';
  const text =
    'extension' in target
      ? `Paste this address in the toolwire extension's side panel ("Connect this tab to toolwire"), pick what the host may call, and click Connect (single use, for ${pairing.origin} only, until ${pairing.expiresAt}):\n${pairing.link}${check}`
      : `Open this link in the browser, then click Connect in the page's prompt (single use, for pages of ${pairing.origin}, until ${pairing.expiresAt}):\n${pairing.link}${check}`;
  return {
    content: [{ type: 'text', text }],
    structuredContent: { ...pairing, ...(phrase ? { phrase } : {}) },
    isError: false,
  };
}
