/**
 * `toolwire --help`, `toolwire COMMAND --help` and `--version`. The command list comes from the
 * table (commands.ts); every option is described once, in OPTION_HELP, and each command's help
 * lists the ones it takes (its `help.options`).
 */
import { VERSION } from '../shared/version.js';
import { DEFAULT_PORT } from './args.js';
import type { Command } from './command.js';
import { COMMANDS } from './commands.js';

/** Where a description starts (and its further lines). */
const COLUMN = 25;

/** Every option's entry: its flag as shown (value included), then its description lines. */
const OPTION_HELP: Record<string, readonly [string, ...string[]]> = {
  port: ['--port <n>', `port (default ${DEFAULT_PORT}; 0 = any free port)`],
  hostname: ['--hostname <addr>', 'interface to bind (default 127.0.0.1)'],
  path: ['--path <path>', 'WebSocket path (default /toolwire)'],
  token: ['--token <token>', 'the page token (default: $TOOLWIRE_TOKEN, else random for this run)'],
  'control-token': [
    '--token <secret>',
    "the control API's secret (default: $TOOLWIRE_CONTROL_TOKEN, else the",
    "state file's; not the page token)",
  ],
  'allow-origin': [
    '--allow-origin <o>',
    'let pages of this origin connect with the page token (repeatable).',
    "Default: none (pages pair from links only); '*' allows any origin,",
    'with a warning',
  ],
  'max-tool-policy': [
    '--max-tool-policy <p>',
    'highest tool policy the host will call: read (default), write,',
    'critical',
  ],
  'forwarded-port': [
    '--forwarded-port <n>',
    'a port that forwards to this host (an SSH tunnel, a container port map):',
    'pages that dial it get proofs bound to it (repeatable)',
  ],
  page: ['--page <url>', 'also print a pairing link for this page (its origin may then pair)'],
  'pair-page': ['--page <url>', 'the page the link is for (its origin alone may use it)'],
  extension: [
    '--extension <id>',
    'a pairing address for the toolwire browser extension (its id, or',
    'chrome-extension://ID, as its side panel shows it), to paste there',
  ],
  timeout: [
    '--timeout <ms>',
    "a tool call's deadline when its caller names none (default 60000;",
    "mcp --attach: each call's, default the running host's); sent to the",
    'page, which stops the tool then. Catalog queries wait 20 s',
  ],
  'call-timeout': [
    '--timeout <ms>',
    "the call's deadline, sent to the page, which stops the tool then",
    "(default: the host's, 60000 unless it was started with --timeout)",
  ],
  poll: ['--poll <ms>', 'also poll page catalogs this often (default 0: pages push changes)'],
  compress: [
    '--compress <mode>',
    'pages gzip large results: auto (default: not over loopback), on, off',
  ],
  'control-port': [
    '--control-port <n>',
    'control API port on 127.0.0.1 (default 0: any free port)',
  ],
  quiet: ['-q, --quiet', 'print only the connect lines'],
  'no-keep-pairings': [
    '--no-keep-pairings',
    "keep this run's pairings in memory only: paired tabs pair again after",
    'a restart (default: kept in $TOOLWIRE_HOME/pairings.json, see',
    'toolwire pairings)',
  ],
  pairing: [
    '--pairing <id>',
    'revoke this pairing (an id prefix from toolwire pairings will do;',
    'one that starts with "-" is written --pairing=-ID)',
  ],
  all: ['--all', 'revoke every pairing'],
  'no-mcp-http': [
    '--no-mcp-http',
    'do not serve MCP over HTTP at /mcp on the page port (default: served,',
    'bearer secret in $TOOLWIRE_HOME/mcp-secret; see toolwire mcp-config)',
  ],
  client: [
    '--client <name>',
    'mcp-config: claude-code, cursor, vscode or claude-desktop (default:',
    'all)',
  ],
  stdio: ['--stdio', 'mcp-config: only the stdio forms (toolwire mcp)'],
  http: ['--http', 'mcp-config: only the HTTP forms (/mcp with the bearer secret)'],
  'config-port': [
    '--port <n>',
    "the host's page port for the URL (default: the running host's, else",
    `${DEFAULT_PORT})`,
  ],
  attach: [
    '--attach',
    'mcp: only serve the running host (exit 3 when there is none), never',
    'start one; --host-url (which implies it) and --token (its secret) say',
    'where it is',
  ],
  session: ['--session <id>', 'the session (an id prefix will do); needed when several are open'],
  detail: ['--detail index|full', 'the index (default) or full definitions, schemas included'],
  query: ['--query <text>', 'only tools matching every word'],
  args: ['--args <json|@file>', 'the arguments object (default {}); @file reads it from a file'],
  after: ['--after <what>', 'evidence to collect after the call, e.g. visualTree (repeatable)'],
  'continue-on-error': ['--continue-on-error', 'keep going after a failed call'],
  json: ['--json', 'machine-readable output on stdout'],
  'host-url': [
    '--host-url <url>',
    "the control API (default: $TOOLWIRE_HOST, else the running host's",
    'state file)',
  ],
  help: ['-h, --help', 'this text'],
  version: ['-v, --version', 'the version'],
};

/** The client commands' exit codes (and the whole CLI's). */
const CLIENT_EXIT = [
  '0 success, 1 the tool or protocol reported an error, 2 usage (or several sessions',
  'and no --session), 3 no host or session, 4 the host went away mid-call: the outcome is',
  'unknown (the tool may have run), 130 the call was cancelled (Ctrl-C).',
];

function column(left: string, lines: readonly string[], indent = 2): string {
  const [first = '', ...rest] = lines;
  const pad = ' '.repeat(COLUMN);
  const head =
    left.length + indent < COLUMN - 1
      ? `${' '.repeat(indent)}${left.padEnd(COLUMN - indent - 1)} ${first}`
      : `${' '.repeat(indent)}${left}\n${pad}${first}`;
  return [head, ...rest.map((line) => pad + line)].join('\n');
}

function optionLines(names: readonly string[]): string {
  return names
    .map((name) => {
      const [flag, ...lines] = OPTION_HELP[name] ?? [`--${name}`, ''];
      return column(flag, lines);
    })
    .join('\n');
}

function names(group: Command['group']): string {
  return COMMANDS.filter((command) => command.group === group)
    .map((command) => command.name)
    .join(', ');
}

/** The options the overall help lists under each group. */
const HOST_OPTIONS = [
  'port',
  'hostname',
  'path',
  'token',
  'allow-origin',
  'max-tool-policy',
  'page',
  'timeout',
  'poll',
  'compress',
  'control-port',
  'forwarded-port',
  'no-keep-pairings',
  'no-mcp-http',
  'quiet',
  'attach',
];
const CLIENT_OPTIONS = [
  'session',
  'detail',
  'query',
  'args',
  'after',
  'call-timeout',
  'continue-on-error',
  'json',
  'host-url',
  'control-token',
];

export function usage(): string {
  return `Usage: toolwire <command> [options]
       toolwire <command> --help     (that command's options and examples)

Commands:
${COMMANDS.map((command) => column(command.synopsis, command.summary)).join('\n')}

Host options (${names('host')}):
${optionLines(HOST_OPTIONS)}

Client options (${names('client')}):
${optionLines(CLIENT_OPTIONS)}

${optionLines(['help', 'version'])}

Exit codes: ${CLIENT_EXIT.join('\n')}
`;
}

/** `toolwire COMMAND --help`: usage, what it does, its options, examples, exit codes. */
export function commandHelp(command: Command): string {
  const { help } = command;
  const parts = [
    `Usage: toolwire ${command.synopsis} [options]`,
    [...command.summary, ...(help.notes ?? [])].join('\n'),
    `Options:\n${optionLines([...help.options, 'help'])}`,
    `Examples:\n${help.examples.map((line) => `  ${line}`).join('\n')}`,
    `Exit codes: ${(help.exitCodes ?? CLIENT_EXIT).join('\n')}`,
  ];
  return `${parts.join('\n\n')}\n`;
}

export function version(): string {
  return `${VERSION}\n`;
}
