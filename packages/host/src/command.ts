/**
 * `toolwire host` and `toolwire mcp`: argument parsing and the two long-running commands.
 *
 * - Human output goes to stderr in both commands (in `mcp`, stdout carries JSON-RPC only).
 * - The connect line is the one place the full token is printed: the page needs it. Every
 *   log line after it shows only the token's first characters.
 * - SIGINT / SIGTERM (and, for `mcp`, the end of stdin) close the host; pending requests fail.
 */
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { parsePolicy } from '@toolwire/protocol';
import type { HostOptions } from './host.js';
import { createHost } from './host.js';
import { createMcpBridge } from './mcp.js';
import { redactUrl } from './token.js';

export const VERSION = '0.1.0';
export const DEFAULT_PORT = 45124;

export interface CommandIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
  /** Registers what to do on SIGINT/SIGTERM. */
  onSignal?: (handler: () => void) => void;
}

export const USAGE = `Usage: toolwire <command> [options]

Commands:
  host   Run the host. Pages connect to it over a WebSocket; it logs sessions and catalogs.
  mcp    Run the host and serve its page tools to an MCP client over stdio.

Options:
  --port <n>           port (default ${DEFAULT_PORT}; 0 = any free port)
  --hostname <addr>    interface to bind (default 127.0.0.1)
  --path <path>        WebSocket path (default /toolwire)
  --token <token>      session token (default: $TOOLWIRE_TOKEN, else random for this run)
  --origin <origin>    allow only pages of this origin (repeatable; default: any, token required)
  --max-policy <p>     highest tool policy the host will call: read (default), write, critical
  --page <url>         also print this page's URL with #toolwire=..., which connects it
  --timeout <ms>       response timeout (default 20000)
  --poll <ms>          also poll page catalogs this often (default 0: pages push changes)
  -q, --quiet          print only the connect lines
  -h, --help           this text
  -v, --version        the version
`;

class UsageError extends Error {}

function integer(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) {
    throw new UsageError(`--${name} needs a whole number, not "${value}".`);
  }
  return number;
}

export interface ParsedCommand {
  command: 'host' | 'mcp' | 'help' | 'version';
  options: HostOptions;
  page?: string;
  quiet: boolean;
}

export function parseCommand(argv: string[], env: CommandIo['env'] = {}): ParsedCommand {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: 'string' },
      hostname: { type: 'string' },
      path: { type: 'string' },
      token: { type: 'string' },
      origin: { type: 'string', multiple: true },
      'max-policy': { type: 'string' },
      page: { type: 'string' },
      timeout: { type: 'string' },
      poll: { type: 'string' },
      quiet: { type: 'boolean', short: 'q' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  const quiet = values.quiet === true;
  if (values.help) return { command: 'help', options: {}, quiet };
  if (values.version) return { command: 'version', options: {}, quiet };
  const [command, ...extra] = positionals;
  if (command !== 'host' && command !== 'mcp') {
    throw new UsageError(command ? `Unknown command "${command}".` : 'Name a command.');
  }
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}".`);
  const options: HostOptions = {
    port: integer(values.port, 'port', DEFAULT_PORT),
    timeoutMs: integer(values.timeout, 'timeout', 20_000),
    pollIntervalMs: integer(values.poll, 'poll', 0),
  };
  if (values.hostname) options.hostname = values.hostname;
  if (values.path) options.path = values.path;
  const token = values.token ?? env.TOOLWIRE_TOKEN;
  if (token !== undefined) {
    if (token.length < 16) throw new UsageError('A token needs at least 16 characters.');
    options.token = token;
  }
  if (values.origin) options.origins = values.origin;
  if (values['max-policy'] !== undefined) {
    const policy = parsePolicy(values['max-policy']);
    if (!policy) throw new UsageError(`--max-policy is read, write or critical.`);
    options.maxToolPolicy = policy;
  }
  if (values.page !== undefined) {
    try {
      new URL(values.page);
    } catch {
      throw new UsageError(`--page needs an absolute URL, not "${values.page}".`);
    }
  }
  return { command, options, quiet, ...(values.page ? { page: values.page } : {}) };
}

/** Runs the CLI; resolves with the exit code once the host has stopped. */
export async function runCommand(argv: string[], io: CommandIo): Promise<number> {
  const print = (line: string) => io.stderr.write(`${line}\n`);
  let parsed: ParsedCommand;
  try {
    parsed = parseCommand(argv, io.env);
  } catch (error) {
    print(`toolwire: ${(error as Error).message}\n`);
    print(USAGE);
    return 2;
  }
  if (parsed.command === 'help') {
    io.stdout.write(USAGE);
    return 0;
  }
  if (parsed.command === 'version') {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const log = parsed.quiet ? undefined : (line: string) => print(`toolwire: ${redactUrl(line)}`);
  let host: Awaited<ReturnType<typeof createHost>>;
  try {
    host = await createHost({ ...parsed.options, ...(log ? { log } : {}) });
  } catch (error) {
    print(`toolwire: could not start the host: ${(error as Error).message}`);
    return 1;
  }
  print(`toolwire ${parsed.command} ${VERSION}: ${redactUrl(host.url)}, grant ${host.grant}`);
  if (!['127.0.0.1', 'localhost', '::1'].includes(host.hostname)) {
    // WIRE: clear-text WebSocket, meant for the developer's machine or a trusted network.
    print(`toolwire: warning: listening on ${host.hostname}, beyond this machine, without TLS`);
  }
  print(`connect a page: toolwire.connect({ url: '${host.url}' })`);
  if (parsed.page) print(`or open: ${host.pageUrl(parsed.page)}`);

  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  io.onSignal?.(() => stop());
  if (parsed.command === 'mcp') {
    const bridge = createMcpBridge(host, {
      input: io.stdin,
      output: io.stdout,
      serverVersion: VERSION,
      ...(log ? { log } : {}),
    });
    // The MCP client owns our stdin: when it goes away, so do we.
    io.stdin.once('end', () => stop());
    io.stdin.once('close', () => stop());
    await stopped;
    bridge.close();
  } else {
    await stopped;
  }
  await host.close();
  return 0;
}
