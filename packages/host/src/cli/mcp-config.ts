/**
 * `toolwire mcp-config`: the MCP client configurations for this user's toolwire, ready to
 * paste, with the real URL and secret: Claude Code (a `claude mcp add` command line), Cursor
 * (`.cursor/mcp.json`), VS Code (`.vscode/mcp.json`) and Claude Desktop
 * (`claude_desktop_config.json`), over HTTP (`/mcp` on the host's page port, server/host.ts)
 * and over stdio (`toolwire mcp`).
 *
 * 1. It needs no running host: the secret is read from (or made in) the pairings directory
 *    (server/mcp-secret.ts); the URL is the running host's (its state file's `mcpUrl`), else
 *    `--port`'s, else the default port's.
 * 2. Claude Desktop's config file takes stdio servers only: asked for HTTP it says so and gives
 *    `toolwire mcp --attach`, which serves the running host's tools (the same host the HTTP
 *    clients reach).
 * 3. The secret goes to stdout, inside the configurations, and nowhere else.
 */
import { controlStatePath, readControlState, StateFileError } from '../control/state-file.js';
import { mcpSecret } from '../server/mcp-secret.js';
import { pairingHome } from '../server/pairing-file.js';
import { DEFAULT_PORT } from './args.js';
import type { Command, CommandIo, ParsedCommand } from './command.js';
import { EXIT, UsageError } from './command.js';
import { printLine } from './format.js';
import { noArguments } from './host.js';

const CLIENTS = ['claude-code', 'cursor', 'vscode', 'claude-desktop'] as const;
type McpClient = (typeof CLIENTS)[number];
type McpTransport = 'http' | 'stdio';

const TITLES: Record<McpClient, string> = {
  'claude-code': 'Claude Code',
  cursor: 'Cursor',
  vscode: 'VS Code',
  'claude-desktop': 'Claude Desktop',
};

/** One client's configuration: a command line to run, or a JSON file's contents. */
interface McpClientConfig {
  client: McpClient;
  transport: McpTransport;
  /** Where it goes: `terminal` for a command line, else the file (relative: in the project). */
  where: string;
  /** The command line (Claude Code). */
  command?: string;
  /** The file's JSON (the others). */
  config?: object;
  /** What to know first (Claude Desktop asked for HTTP). */
  note?: string;
}

const STDIO = { command: 'toolwire', args: ['mcp'] };

/** The configuration of `client` over `transport`, for `url` and `secret` (header). */
function mcpClientConfig(
  client: McpClient,
  transport: McpTransport,
  url: string,
  secret: string,
): McpClientConfig {
  const authorization = `Bearer ${secret}`;
  switch (client) {
    case 'claude-code':
      return {
        client,
        transport,
        where: 'terminal',
        command:
          transport === 'http'
            ? `claude mcp add --transport http toolwire ${url} --header "Authorization: ${authorization}"`
            : 'claude mcp add toolwire -- toolwire mcp',
      };
    case 'cursor':
      return {
        client,
        transport,
        where: '.cursor/mcp.json',
        config: {
          mcpServers: {
            toolwire:
              transport === 'http' ? { url, headers: { Authorization: authorization } } : STDIO,
          },
        },
      };
    case 'vscode':
      return {
        client,
        transport,
        where: '.vscode/mcp.json',
        config: {
          servers: {
            toolwire:
              transport === 'http'
                ? { type: 'http', url, headers: { Authorization: authorization } }
                : { type: 'stdio', ...STDIO },
          },
        },
      };
    case 'claude-desktop':
      return {
        client,
        transport,
        where: 'claude_desktop_config.json',
        config: {
          mcpServers: {
            toolwire:
              transport === 'http' ? { command: 'toolwire', args: ['mcp', '--attach'] } : STDIO,
          },
        },
        ...(transport === 'http'
          ? {
              note: "Claude Desktop's config file takes stdio servers: toolwire mcp --attach serves the running host's tools, the host the HTTP clients reach.",
            }
          : {}),
      };
  }
}

/** Where MCP clients reach the host over HTTP, and what to say about it (header 1). */
function endpoint(parsed: ParsedCommand, io: CommandIo): { url: string; note?: string } {
  const port = parsed.options.port;
  if (port !== undefined) return { url: `http://127.0.0.1:${port}/mcp` };
  try {
    const state = readControlState(controlStatePath(io.env));
    if (state?.mcpUrl) return { url: state.mcpUrl };
    if (state) {
      return {
        url: `http://127.0.0.1:${DEFAULT_PORT}/mcp`,
        note: 'the running host does not serve MCP over HTTP (started with --no-mcp-http): restart it without that flag for the HTTP forms',
      };
    }
  } catch {
    // an untrusted state file names no URL
  }
  return { url: `http://127.0.0.1:${DEFAULT_PORT}/mcp` };
}

/** JSON as the README shows it: two-space indents, arrays of strings on one line. */
function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /\[\s+("(?:[^"\\]|\\.)*"(?:,\s+"(?:[^"\\]|\\.)*")*)\s+\]/g,
    (_, items: string) => `[${items.split(/,\n\s*/).join(', ')}]`,
  );
}

function render(config: McpClientConfig): string {
  const how = config.where === 'terminal' ? 'run in a terminal' : config.where;
  const head = `# ${TITLES[config.client]} (${config.transport === 'http' ? 'HTTP' : 'stdio'}): ${how}`;
  const note = config.note ? `# ${config.note}\n` : '';
  const body = config.command ?? pretty(config.config);
  return `${head}\n${note}${body}\n`;
}

export const mcpConfig: Command = {
  name: 'mcp-config',
  synopsis: 'mcp-config',
  summary: [
    'Print MCP client configurations (Claude Code, Cursor, VS Code, Claude',
    'Desktop) for this host, over HTTP and stdio, with the /mcp secret.',
  ],
  group: 'client',
  help: {
    options: ['client', 'stdio', 'http', 'config-port', 'json'],
    notes: [
      '',
      'Needs no running host: the secret is kept in $TOOLWIRE_HOME/mcp-secret (made',
      "on first use), the URL is the running host's, else --port's, else the",
      'default port. The output carries the secret: paste it into the client only.',
    ],
    examples: [
      'toolwire mcp-config                               # every client, HTTP and stdio',
      'toolwire mcp-config --client cursor --http        # .cursor/mcp.json over HTTP',
      'toolwire mcp-config --client claude-code --stdio  # the claude mcp add line',
      'toolwire mcp-config --json',
    ],
    exitCodes: ['0 printed, 1 the secret file cannot be read or made, 2 usage.'],
  },
  options: () => ['client', 'stdio', 'http', 'port', 'json'],
  parse(extra, values) {
    noArguments(extra);
    const client = values.client as string | undefined;
    if (client !== undefined && !(CLIENTS as readonly string[]).includes(client)) {
      throw new UsageError(`--client is ${CLIENTS.join(', ')}; not "${client}".`, 'mcp-config');
    }
    if (values.stdio === true && values.http === true) {
      throw new UsageError('give --stdio or --http, not both.', 'mcp-config');
    }
    const port = values.port as string | undefined;
    const number = port === undefined ? undefined : Number(port);
    if (number !== undefined && (!Number.isInteger(number) || number < 1 || number > 65_535)) {
      throw new UsageError(`--port is a port, 1 to 65535, not "${port}".`, 'mcp-config');
    }
    return {
      command: 'mcp-config',
      quiet: false,
      options: number === undefined ? {} : { port: number },
      mcpConfig: {
        json: values.json === true,
        ...(client === undefined ? {} : { client }),
        transports:
          values.stdio === true ? ['stdio'] : values.http === true ? ['http'] : ['http', 'stdio'],
      },
    };
  },
  async run(parsed, io) {
    const args = parsed.mcpConfig ?? { json: false, transports: ['http', 'stdio'] as const };
    const clients = args.client === undefined ? CLIENTS : [args.client as McpClient];
    const transports = args.transports;
    let secret: string;
    try {
      secret = mcpSecret(pairingHome(io.env));
    } catch (error) {
      if (!(error instanceof StateFileError)) throw error;
      printLine(io.stderr, `toolwire mcp-config: ${error.message}`);
      return EXIT.failed;
    }
    const { url, note } = endpoint(parsed, io);
    if (note && transports.includes('http')) printLine(io.stderr, `toolwire: ${note}`);
    const configs = transports.flatMap((transport) =>
      clients.map((client) => mcpClientConfig(client, transport, url, secret)),
    );
    if (args.json) {
      io.stdout.write(`${JSON.stringify({ url, configs }, null, 2)}\n`);
    } else {
      io.stdout.write(configs.map(render).join('\n'));
    }
    return EXIT.ok;
  },
};
