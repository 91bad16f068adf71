/** `toolwire --help` and `--version`. The command list comes from the table (commands.ts). */
import { VERSION } from '../shared/version.js';
import { DEFAULT_PORT } from './args.js';
import type { Command } from './command.js';
import { COMMANDS } from './commands.js';

/** Where a command's description starts (and its further lines). */
const COLUMN = 23;

function entry(command: Command): string {
  const [first = '', ...rest] = command.summary;
  const indent = ' '.repeat(COLUMN);
  return [
    `  ${command.synopsis.padEnd(COLUMN - 3)} ${first}`,
    ...rest.map((line) => indent + line),
  ].join('\n');
}

function names(group: Command['group']): string {
  return COMMANDS.filter((command) => command.group === group)
    .map((command) => command.name)
    .join(', ');
}

export function usage(): string {
  return `Usage: toolwire <command> [options]

Commands:
${COMMANDS.map(entry).join('\n')}

Host options (${names('host')}):
  --port <n>           port (default ${DEFAULT_PORT}; 0 = any free port)
  --hostname <addr>    interface to bind (default 127.0.0.1)
  --path <path>        WebSocket path (default /toolwire)
  --token <token>      the page token (default: $TOOLWIRE_TOKEN, else random for this run)
  --allow-origin <o>   allow pages of this origin to connect (repeatable). Default: none, every
                       page is refused; '*' allows any origin (with a warning)
  --max-tool-policy <p>  highest tool policy the host will call: read (default), write, critical
  --page <url>         also print a pairing link for this page (its origin may then pair)
  --timeout <ms>       response timeout (default 20000)
  --poll <ms>          also poll page catalogs this often (default 0: pages push changes)
  --control-port <n>   control API port on 127.0.0.1 (default 0: any free port)
  -q, --quiet          print only the connect lines
  --attach             mcp: use the running host (--host-url, --token as for the commands below)

Client options (${names('client')}):
  --session <id>       the session (an id prefix will do); needed when several are open
  --detail index|full  tools: the index (default) or full definitions
  --query <text>       tools: only tools matching every word
  --args <json|@file>  call: the arguments object (default {})
  --after <what>       call: evidence to collect after the call, e.g. visualTree (repeatable)
  --continue-on-error  batch: keep going after a failed call
  --json               machine-readable output on stdout
  --host-url <url>     the control API (default: $TOOLWIRE_HOST, else the running host's state
                       file)
  --token <secret>     the control API's secret (default: $TOOLWIRE_CONTROL_TOKEN, else the
                       state file's; not the page token)

  -h, --help           this text
  -v, --version        the version

Exit codes: 0 success, 1 the tool or protocol reported an error, 2 usage (or several sessions
and no --session), 3 no host or session, 4 the host went away mid-call: the outcome is unknown
(the tool may have run).
`;
}

export function version(): string {
  return `${VERSION}\n`;
}
