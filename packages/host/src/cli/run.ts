/**
 * The `toolwire` CLI: argument parsing, the two long-running commands (`host`, `mcp`) and the
 * client commands (`sessions`, `tools`, `call`, `batch`) that use a running host's control API.
 *
 * - `host` and `mcp` print human output to stderr (in `mcp`, stdout carries JSON-RPC only).
 *   The connect line is the one place the full page token is printed: the page needs it. Every
 *   log line after it shows only the token's first characters.
 * - `host` also serves the control API (control.ts) on 127.0.0.1, with a secret of its own, and
 *   writes the state file (port and that secret, mode 0600) the client commands read; it removes
 *   it on exit. The page token does not open the control API.
 * - SIGINT / SIGTERM (and, for `mcp`, the end of stdin) close the host first, so pending calls
 *   fail with `tool_transport_closed` and those answers reach the CLIs waiting on them; then the
 *   control API closes.
 * - Client commands print tables (or `--json`) to stdout and one line per error to stderr.
 *   Exit codes: EXIT.
 * - Every line printed goes through terminal-text.ts: a page's ids, titles, URLs, descriptions,
 *   results and messages never reach the terminal with a raw control character.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { parsePolicy } from '@toolwire/protocol';
import type { ControlServer } from '../control/server.js';
import {
  controlStatePath,
  publishControl,
  readControlState,
  StateFileError,
} from '../control/server.js';
import { createMcpBridge } from '../mcp/bridge.js';
import type { ControlTarget } from '../mcp/control-source.js';
import { controlToolSource } from '../mcp/control-source.js';
import type { Host, HostOptions } from '../server/host.js';
import { createHost } from '../server/host.js';
import { normalizeOrigin } from '../server/upgrade.js';
import { escapeBody, escapeLine, stringifySafe } from '../shared/terminal-text.js';
import { redactUrl } from '../shared/token.js';

export const VERSION = '0.1.0';
export const DEFAULT_PORT = 45124;

/**
 * Exit codes of every command. `outcomeUnknown`: the connection to the host broke after a call
 * or batch was sent (the host died mid-call): the tool may or may not have run.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, noHost: 3, outcomeUnknown: 4 } as const;

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
  host                 Run the host. Pages connect to it over a WebSocket; it also serves the
                       control API (127.0.0.1, a secret of its own) the commands below use.
  mcp                  Run a host and serve its page tools to an MCP client over stdio;
                       with --attach, serve the tools of the running host instead.
  sessions             List the connected pages.
  tools                List a page's tools (policy, grant and availability marked).
  call TOOL_ID         Call a tool.
  batch FILE           Run a batch of calls (a JSON array of {toolId, arguments}, or
                       {calls: [...]}); FILE may be - for stdin.
  pair [--page URL]    Print a new pairing link for that page (single use, 5 minutes); without
                       --page, the #toolwire=... fragment to add to any allowed page's address.
  revoke SESSION       End a paired tab's session; its credential no longer reconnects it.

Host options (host, mcp):
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

Client options (sessions, tools, call, batch, pair, revoke):
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

export class UsageError extends Error {}

function integer(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) {
    throw new UsageError(`--${name} needs a whole number, not "${value}".`);
  }
  return number;
}

export type ClientCommand = 'sessions' | 'tools' | 'call' | 'batch' | 'pair' | 'revoke';

export interface ClientArgs {
  json: boolean;
  hostUrl?: string;
  token?: string;
  session?: string;
  detail?: 'index' | 'full';
  query?: string;
  toolId?: string;
  /** The raw --args value (JSON, or @file). */
  args?: string;
  after?: string[];
  file?: string;
  continueOnError?: boolean;
  /** pair: the page the link is for. */
  page?: string;
}

export interface ParsedCommand {
  command: 'host' | 'mcp' | 'help' | 'version' | ClientCommand;
  options: HostOptions;
  page?: string;
  quiet: boolean;
  controlPort?: number;
  client?: ClientArgs;
  /** `mcp --attach`: the running host to use (resolved like the client commands'). */
  attach?: ClientArgs;
}

const HOST_FLAGS = [
  'port',
  'hostname',
  'path',
  'token',
  'allow-origin',
  'max-tool-policy',
  'origin',
  'max-policy',
  'page',
  'timeout',
  'poll',
  'control-port',
  'quiet',
];
const CLIENT_FLAGS: Record<ClientCommand, string[]> = {
  sessions: ['json', 'host-url', 'token'],
  tools: ['json', 'host-url', 'token', 'session', 'detail', 'query'],
  call: ['json', 'host-url', 'token', 'session', 'args', 'after'],
  batch: ['json', 'host-url', 'token', 'session', 'continue-on-error'],
  pair: ['json', 'host-url', 'token', 'page'],
  revoke: ['json', 'host-url', 'token'],
};
const CLIENT_POSITIONALS: Record<ClientCommand, string | undefined> = {
  sessions: undefined,
  tools: undefined,
  call: 'TOOL_ID',
  batch: 'FILE',
  pair: undefined,
  revoke: 'SESSION',
};

function isClientCommand(command: string | undefined): command is ClientCommand {
  return command !== undefined && Object.hasOwn(CLIENT_FLAGS, command);
}

export function parseCommand(argv: string[], env: CommandIo['env'] = {}): ParsedCommand {
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    tokens: true,
    options: {
      port: { type: 'string' },
      hostname: { type: 'string' },
      path: { type: 'string' },
      token: { type: 'string' },
      'allow-origin': { type: 'string', multiple: true },
      'max-tool-policy': { type: 'string' },
      // Hidden aliases (the names before issue 7's).
      origin: { type: 'string', multiple: true },
      'max-policy': { type: 'string' },
      page: { type: 'string' },
      timeout: { type: 'string' },
      poll: { type: 'string' },
      'control-port': { type: 'string' },
      quiet: { type: 'boolean', short: 'q' },
      json: { type: 'boolean' },
      'host-url': { type: 'string' },
      session: { type: 'string' },
      detail: { type: 'string' },
      query: { type: 'string' },
      args: { type: 'string' },
      after: { type: 'string', multiple: true },
      'continue-on-error': { type: 'boolean' },
      attach: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  const quiet = values.quiet === true;
  if (values.help) return { command: 'help', options: {}, quiet };
  if (values.version) return { command: 'version', options: {}, quiet };
  const [command, ...extra] = positionals;
  const allowed =
    command === 'host'
      ? HOST_FLAGS
      : command === 'mcp'
        ? values.attach
          ? ['attach', 'host-url', 'token', 'quiet']
          : [...HOST_FLAGS, 'attach']
        : isClientCommand(command)
          ? CLIENT_FLAGS[command]
          : undefined;
  if (!allowed) throw new UsageError(command ? `Unknown command "${command}".` : 'Name a command.');
  for (const token of tokens) {
    if (token.kind === 'option' && !allowed.includes(token.name)) {
      throw new UsageError(`toolwire ${command} has no option --${token.name}.`);
    }
  }
  if (isClientCommand(command)) return parseClient(command, extra, values);
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}".`);
  if (values.attach) {
    const { client } = parseClient('sessions', [], values);
    return { command: 'mcp', options: {}, quiet, attach: client as ClientArgs };
  }
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
  const origins = [...(values['allow-origin'] ?? []), ...(values.origin ?? [])];
  if (origins.length > 0) {
    options.origins = origins.map((origin) => {
      if (origin === '*') return origin;
      try {
        return normalizeOrigin(origin);
      } catch {
        throw new UsageError(
          `--allow-origin needs an origin such as http://localhost:5173, not "${origin}".`,
        );
      }
    });
  }
  const maxPolicy = values['max-tool-policy'] ?? values['max-policy'];
  if (maxPolicy !== undefined) {
    const policy = parsePolicy(maxPolicy);
    if (!policy) throw new UsageError(`--max-tool-policy is read, write or critical.`);
    options.maxToolPolicy = policy;
  }
  if (values.page !== undefined) {
    try {
      new URL(values.page);
    } catch {
      throw new UsageError(`--page needs an absolute URL, not "${values.page}".`);
    }
  }
  const parsed: ParsedCommand = {
    command: command as 'host' | 'mcp',
    options,
    quiet,
    ...(values.page ? { page: values.page } : {}),
  };
  if (values['control-port'] !== undefined) {
    parsed.controlPort = integer(values['control-port'], 'control-port', 0);
  }
  return parsed;
}

function parseClient(
  command: ClientCommand,
  extra: string[],
  values: Record<string, string | boolean | (string | boolean)[] | undefined>,
): ParsedCommand {
  const positional = CLIENT_POSITIONALS[command];
  if (positional && extra.length === 0) {
    throw new UsageError(`toolwire ${command} needs ${positional}.`);
  }
  const unexpected = extra[positional ? 1 : 0];
  if (unexpected !== undefined) throw new UsageError(`Unexpected argument "${unexpected}".`);
  const client: ClientArgs = { json: values.json === true };
  const text = (name: string) => values[name] as string | undefined;
  if (text('host-url') !== undefined) {
    try {
      new URL(text('host-url') as string);
    } catch {
      throw new UsageError(`--host-url needs a URL, not "${text('host-url')}".`);
    }
    client.hostUrl = text('host-url') as string;
  }
  if (text('token') !== undefined) client.token = text('token') as string;
  if (text('session') !== undefined) client.session = text('session') as string;
  if (text('detail') !== undefined) {
    const detail = text('detail');
    if (detail !== 'index' && detail !== 'full') throw new UsageError('--detail is index or full.');
    client.detail = detail;
  }
  if (text('query') !== undefined) client.query = text('query') as string;
  if (text('args') !== undefined) client.args = text('args') as string;
  if (values.after !== undefined) {
    client.after = (values.after as string[])
      .flatMap((value) => value.split(','))
      .map((value) => value.trim())
      .filter(Boolean);
  }
  if (values['continue-on-error'] === true) client.continueOnError = true;
  if (command === 'call') client.toolId = extra[0] as string;
  if (command === 'batch') client.file = extra[0] as string;
  if (command === 'revoke') client.session = extra[0] as string;
  if (command === 'pair' && text('page') !== undefined) {
    try {
      new URL(text('page') as string);
    } catch {
      throw new UsageError(`--page needs an absolute URL, not "${text('page')}".`);
    }
    client.page = text('page') as string;
  }
  return { command, options: {}, quiet: false, client };
}

/** Writes one line to `stream`, every control character in it made visible (terminal-text.ts). */
function printLine(stream: Writable, line: string): void {
  stream.write(`${escapeLine(line)}\n`);
}

/** Runs the CLI; resolves with the exit code (for `host` and `mcp`, once the host stopped). */
export async function runCommand(argv: string[], io: CommandIo): Promise<number> {
  const print = (line: string) => printLine(io.stderr, line);
  let parsed: ParsedCommand;
  try {
    parsed = parseCommand(argv, io.env);
  } catch (error) {
    print(`toolwire: ${(error as Error).message}`);
    print('Run "toolwire --help" for usage.');
    return EXIT.usage;
  }
  if (parsed.command === 'help') {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (parsed.command === 'version') {
    io.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  if (parsed.client) {
    return runClient(parsed.command as ClientCommand, parsed.client, io);
  }
  if (parsed.attach) return runAttached(parsed, parsed.attach, io);
  return runHost(parsed, io);
}

async function runHost(parsed: ParsedCommand, io: CommandIo): Promise<number> {
  // Every line, the host's and the MCP bridge's log lines included (they quote pages' URLs and
  // titles), is escaped on its way out.
  const print = (line: string) => printLine(io.stderr, line);
  const log = parsed.quiet ? undefined : (line: string) => print(`toolwire: ${redactUrl(line)}`);
  let host: Host;
  try {
    host = await createHost({ ...parsed.options, ...(log ? { log } : {}) });
  } catch (error) {
    print(`toolwire: could not start the host: ${(error as Error).message}`);
    return EXIT.failed;
  }
  let control: ControlServer | undefined;
  const statePath = controlStatePath(io.env);
  if (parsed.command === 'host') {
    try {
      control = await publishControl(host, { port: parsed.controlPort ?? 0, statePath });
    } catch (error) {
      print(`toolwire: could not start the control API: ${(error as Error).message}`);
      await host.close();
      return EXIT.failed;
    }
  }
  print(`toolwire ${parsed.command} ${VERSION}: ${redactUrl(host.url)}, grant ${host.grant}`);
  if (!['127.0.0.1', 'localhost', '::1'].includes(host.hostname)) {
    // WIRE: clear-text WebSocket, meant for the developer's machine or a trusted network.
    print(`toolwire: warning: listening on ${host.hostname}, beyond this machine, without TLS`);
  }
  if (host.origins.includes('*')) {
    print(`toolwire: warning: --allow-origin '*': any web page that learns the token may connect`);
  } else if (host.origins.length === 0 && parsed.page) {
    print(
      `toolwire: pages pair from links only (the --page origin); --allow-origin ORIGIN also lets a page's own code connect with the token`,
    );
  } else if (host.origins.length === 0) {
    print(
      `toolwire: no origin is allowed: pages are refused until you pass --allow-origin ORIGIN (or --page URL, for a pairing link)`,
    );
  } else {
    print(`toolwire: allowed origins: ${host.origins.join(', ')}`);
  }
  if (control) print(`toolwire: control API on ${control.url} (state in ${statePath})`);
  print(`connect a page: toolwire.connect({ url: '${host.url}' })`);
  print(
    'or load <script src="endpoint.iife.js"></script> in the page and open its pairing link (--page URL prints one; toolwire pair --page URL makes more)',
  );
  if (parsed.page) print(`or open: ${host.pairingUrl(parsed.page)}`);

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
    await bridge.close();
  } else {
    await stopped;
  }
  // The host first: its sessions fail pending calls with tool_transport_closed, and the control
  // API, still up, sends those answers to the CLIs waiting on them. Then the control API closes
  // (in-flight answers get a short grace) and the state file goes.
  await host.close();
  await control?.close();
  return EXIT.ok;
}

/** `toolwire mcp --attach`: the MCP bridge over a running host's control API. */
async function runAttached(
  parsed: ParsedCommand,
  args: ClientArgs,
  io: CommandIo,
): Promise<number> {
  const print = (line: string) => printLine(io.stderr, line);
  let target: ControlTarget;
  try {
    target = resolveTarget(args, io.env);
    await control(target, 'GET', '/v1/sessions');
  } catch (error) {
    print(`toolwire: ${(error as Error).message}`);
    return error instanceof CliFailure ? error.exitCode : EXIT.failed;
  }
  const log = parsed.quiet ? undefined : (line: string) => print(`toolwire: ${redactUrl(line)}`);
  print(`toolwire mcp ${VERSION}: attached to the host at ${target.url}`);
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  io.onSignal?.(() => stop());
  const bridge = createMcpBridge(controlToolSource(target, log ? { log } : {}), {
    input: io.stdin,
    output: io.stdout,
    serverVersion: VERSION,
    ...(log ? { log } : {}),
  });
  io.stdin.once('end', () => stop());
  io.stdin.once('close', () => stop());
  await stopped;
  await bridge.close();
  return EXIT.ok;
}

// ---- client commands --------------------------------------------------------------------

/** An error with its exit code and the one line to print (escaped when printed). */
class CliFailure extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: JSON from the control API, read defensively.
type Loose = any;

/**
 * Where the control API is and its secret. The state file is read only when needed, and its
 * secret goes only to the address it names: `--host-url elsewhere` never carries it away.
 */
function resolveTarget(args: ClientArgs, env: CommandIo['env']): ControlTarget {
  const given = args.hostUrl ?? env.TOOLWIRE_HOST;
  const givenToken = args.token ?? env.TOOLWIRE_CONTROL_TOKEN;
  let state: ReturnType<typeof readControlState>;
  if (given === undefined || givenToken === undefined) {
    try {
      state = readControlState(controlStatePath(env));
    } catch (error) {
      if (error instanceof StateFileError) throw new CliFailure(EXIT.noHost, error.message);
      throw error;
    }
  }
  const url = given ?? state?.controlUrl;
  if (!url) {
    throw new CliFailure(
      EXIT.noHost,
      'no toolwire host is running (start one with "toolwire host", or set TOOLWIRE_HOST)',
    );
  }
  const token = givenToken ?? (state && state.controlUrl === url ? state.token : undefined);
  if (!token) {
    throw new CliFailure(
      EXIT.noHost,
      `no control secret for the host at ${url} (pass --token or set TOOLWIRE_CONTROL_TOKEN)`,
    );
  }
  return { url, token };
}

/** How an exchange with the control API ended when it brought no answer. */
class Broken extends Error {
  constructor(
    /** The connection was made: the request may have reached the host. */
    readonly connected: boolean,
    error: unknown,
  ) {
    super(errorCodeOf(error));
  }
}

function errorCodeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? String(error);
}

/**
 * One HTTP exchange, over a connection of its own (no keep-alive pool to retry on). Rejects
 * with Broken, saying whether the connection was ever made.
 */
function exchange(
  url: URL,
  method: 'GET' | 'POST',
  token: string,
  text?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    let connected = false;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      url,
      {
        method,
        agent: false,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(text === undefined
            ? {}
            : {
                'Content-Type': 'application/json',
                'Content-Length': Buffer.byteLength(text),
              }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', (error) => reject(new Broken(true, error)));
        response.on('close', () => {
          if (!response.complete) reject(new Broken(true, new Error('the answer was cut short')));
        });
      },
    );
    request.on('socket', (socket) => {
      if (!socket.connecting) connected = true;
      socket.once('connect', () => {
        connected = true;
      });
    });
    request.on('error', (error) => reject(new Broken(connected, error)));
    request.end(text);
  });
}

async function control(
  target: ControlTarget,
  method: 'GET' | 'POST',
  path: string,
  body?: object,
): Promise<Record<string, Loose>> {
  let reply: { status: number; text: string };
  try {
    reply = await exchange(
      new URL(path, target.url),
      method,
      target.token,
      body ? JSON.stringify(body) : undefined,
    );
  } catch (error) {
    const broken = error instanceof Broken ? error : new Broken(false, error);
    if (broken.connected && (path === '/v1/call' || path === '/v1/batch')) {
      // The host had the request (or may have): saying "no host" would invite a blind retry.
      const what = path === '/v1/call' ? 'call' : 'batch';
      throw new CliFailure(
        EXIT.outcomeUnknown,
        `the connection to the host at ${target.url} broke during the ${what} (${broken.message}): its outcome is unknown, the tool may have run`,
        {
          ok: false,
          error: {
            code: 'outcome_unknown',
            message: `The connection to the host broke during the ${what}; the tool may have run.`,
          },
        },
      );
    }
    if (broken.connected) {
      throw new CliFailure(
        EXIT.noHost,
        `the host at ${target.url} closed the connection (${broken.message})`,
      );
    }
    throw new CliFailure(
      EXIT.noHost,
      `no toolwire host answers at ${target.url} (start one with "toolwire host")`,
    );
  }
  const { status } = reply;
  let answer: Record<string, Loose>;
  try {
    answer = JSON.parse(reply.text) as Record<string, Loose>;
  } catch {
    throw new CliFailure(EXIT.noHost, `${target.url} is not a toolwire host`);
  }
  if (status === 401 || status === 403) {
    throw new CliFailure(
      EXIT.noHost,
      `the host at ${target.url} refused us: ${answer?.error?.message ?? status}`,
      answer,
    );
  }
  if (answer?.ok === true) return answer;
  const code = String(answer?.error?.code ?? status);
  const message = `${code}: ${answer?.error?.message ?? 'the host failed'}`;
  if (code === 'session_not_connected') throw new CliFailure(EXIT.noHost, message, answer);
  if (status === 400 || status === 409) throw new CliFailure(EXIT.usage, message, answer);
  throw new CliFailure(EXIT.failed, message, answer);
}

/**
 * Columns padded to their widest cell; the last column is not padded. Every cell is escaped
 * as one line first (a page's text cannot break the table or reach the terminal raw).
 */
export function formatTable(headers: string[], rows: string[][]): string {
  const cells = rows.map((row) => row.map((cell) => escapeLine(cell)));
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...cells.map((row) => (row[column] ?? '').length)),
  );
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(headers), ...cells.map(line)].join('\n')}\n`;
}

function clip(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A value as a multi-line body: a string as it is, anything else as JSON; escaped. */
function render(value: unknown): string {
  return typeof value === 'string' ? escapeBody(value) : stringifySafe(value);
}

function readJsonArgument(value: string, what: string): unknown {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      throw new CliFailure(
        EXIT.usage,
        `cannot read ${what} file ${value.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CliFailure(EXIT.usage, `${what} is not valid JSON`);
  }
}

async function readStdin(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function sessionLine(session: Record<string, Loose>): string {
  const page = session.page
    ? `${session.page.title || '(untitled)'}  ${session.page.url}`
    : '(no session.open yet)';
  const guard = session.guard ? `, page guard ${session.guard}` : '';
  return escapeLine(
    `session ${String(session.id).slice(0, 8)}  ${session.origin ?? '(no origin)'}  ${page}  (grant ${session.grant}${guard})`,
  );
}

/** "2 tools hidden by the page's guard (read-only): cart.add (write), ..." or nothing. */
function hiddenLine(session: Record<string, Loose>): string | undefined {
  const hidden = Array.isArray(session.hidden) ? (session.hidden as Loose[]) : [];
  if (hidden.length === 0) return undefined;
  const shown = hidden.slice(0, 8).map((tool) => `${tool.id} (${tool.policy})`);
  if (hidden.length > shown.length) shown.push(`${hidden.length - shown.length} more`);
  const count = `${hidden.length} tool${hidden.length === 1 ? '' : 's'}`;
  return escapeLine(
    `${count} hidden by the page's guard (${session.guard ?? 'unknown'}): ${shown.join(', ')}; the page's author sets the guard (data-toolwire-guard, or connect({ guard }))`,
  );
}

async function runClient(command: ClientCommand, args: ClientArgs, io: CommandIo): Promise<number> {
  const out = (text: string) => io.stdout.write(text);
  // --json: still JSON, but C1 and bidi controls (which JSON.stringify leaves raw) as \uXXXX.
  const json = (value: unknown) => out(`${stringifySafe(value)}\n`);
  try {
    const target = resolveTarget(args, io.env);
    const session = args.session === undefined ? {} : { session: args.session };
    if (command === 'sessions') {
      const answer = await control(target, 'GET', '/v1/sessions');
      if (args.json) {
        json({ sessions: answer.sessions });
      } else if (answer.sessions.length === 0) {
        out('no sessions: no page is connected\n');
      } else {
        out(
          formatTable(
            ['SESSION', 'ORIGIN', 'TOOLS', 'GRANT', 'GUARD', 'SDK', 'PAGE'],
            answer.sessions.map((s: Loose) => [
              String(s.id).slice(0, 8),
              s.origin ?? '-',
              // null: the page has not answered its first tool.query yet.
              s.tools === null ? 'loading' : String(s.tools),
              String(s.grant),
              s.guard === null || s.guard === undefined ? '-' : String(s.guard),
              s.sdk ? `${s.sdk.name} ${s.sdk.version}`.trim() : '-',
              s.page ? `${clip(s.page.title || '(untitled)', 40)}  ${s.page.url}` : '-',
            ]),
          ),
        );
      }
      return EXIT.ok;
    }
    if (command === 'tools') {
      const answer = await control(target, 'POST', '/v1/tools', {
        ...session,
        detail: args.detail ?? 'index',
        ...(args.query !== undefined ? { query: args.query } : {}),
      });
      if (args.json) {
        json({ session: answer.session, tools: answer.tools });
        return EXIT.ok;
      }
      out(`${sessionLine(answer.session)}\n`);
      const hidden = hiddenLine(answer.session);
      if (answer.tools.length === 0) {
        out(args.query ? `no tools match "${escapeLine(args.query)}"\n` : 'no tools\n');
        if (hidden) out(`${hidden}\n`);
        return EXIT.ok;
      }
      out(
        formatTable(
          ['TOOL', 'POLICY', 'GRANTED', 'AVAILABLE', 'ORIGIN', 'DESCRIPTION'],
          answer.tools.map((tool: Loose) => [
            String(tool.id),
            String(tool.policy),
            tool.granted ? 'yes' : 'no',
            tool.available
              ? 'yes'
              : `no (${clip(String(tool.runtime?.reason ?? tool.runtime?.code ?? 'unavailable'), 30)})`,
            !tool.origin || tool.origin === answer.session.origin ? 'page' : String(tool.origin),
            clip(String(tool.description ?? '')),
          ]),
        ),
      );
      if (hidden) out(`${hidden}\n`);
      if (args.detail === 'full') {
        for (const tool of answer.tools) {
          out(`\n${escapeLine(String(tool.id))} (${escapeLine(String(tool.name))})\n`);
          out(`  arguments: ${stringifySafe(tool.argumentsSchema, 0)}\n`);
          out(`  result:    ${stringifySafe(tool.resultSchema, 0)}\n`);
        }
      }
      return EXIT.ok;
    }
    if (command === 'pair') {
      const answer = await control(
        target,
        'POST',
        '/v1/pair',
        args.page ? { page: args.page } : {},
      );
      if (args.json) {
        json({
          link: answer.link ?? null,
          fragment: answer.fragment ?? null,
          expiresAt: answer.expiresAt,
        });
      } else if (answer.link) {
        out(`${escapeLine(String(answer.link))}\n`);
        io.stderr.write(
          `toolwire: open it in the browser tab to pair (single use, until ${escapeLine(String(answer.expiresAt))}); the page asks before it connects\n`,
        );
      } else {
        out(`${escapeLine(String(answer.fragment))}\n`);
        io.stderr.write(
          `toolwire: add it to an allowed page's address (single use, until ${escapeLine(String(answer.expiresAt))}); the page asks before it connects\n`,
        );
      }
      return EXIT.ok;
    }
    if (command === 'revoke') {
      const answer = await control(target, 'POST', '/v1/revoke', { session: args.session });
      if (args.json) json({ revoked: answer.session });
      else out(`revoked ${sessionLine(answer.session)}\n`);
      return EXIT.ok;
    }
    if (command === 'call') {
      const callArgs = args.args === undefined ? {} : readJsonArgument(args.args, '--args');
      if (callArgs === null || typeof callArgs !== 'object' || Array.isArray(callArgs)) {
        throw new CliFailure(EXIT.usage, '--args must be a JSON object');
      }
      const answer = await control(target, 'POST', '/v1/call', {
        ...session,
        toolId: args.toolId,
        arguments: callArgs,
        ...(args.after?.length ? { after: { include: args.after } } : {}),
      });
      if (args.json) {
        json(answer);
        return EXIT.ok;
      }
      const result = answer.result;
      if (result.message) out(`${escapeBody(String(result.message))}\n`);
      out(`${render(result.result)}\n`);
      if (result.evidence) {
        for (const [key, evidence] of Object.entries(result.evidence)) {
          const shown = (evidence as Loose).success
            ? (evidence as Loose).result
            : (evidence as Loose).error;
          out(`\n${escapeLine(key)}:\n${render(shown)}\n`);
        }
      }
      return EXIT.ok;
    }
    // batch
    const text =
      args.file === '-'
        ? await readStdin(io.stdin)
        : (() => {
            try {
              return readFileSync(args.file as string, 'utf8');
            } catch (error) {
              throw new CliFailure(
                EXIT.usage,
                `cannot read ${args.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
              );
            }
          })();
    const batch = readJsonArgument(
      text,
      args.file === '-' ? 'stdin' : (args.file as string),
    ) as Loose;
    const calls = Array.isArray(batch) ? batch : batch?.calls;
    if (!Array.isArray(calls)) {
      throw new CliFailure(
        EXIT.usage,
        'a batch file is a JSON array of calls, or {"calls": [...]}',
      );
    }
    const continueOnError = args.continueOnError ?? batch?.continueOnError === true;
    const answer = await control(target, 'POST', '/v1/batch', {
      ...session,
      calls,
      ...(continueOnError ? { continueOnError: true } : {}),
    });
    const result = answer.result;
    if (args.json) {
      json(answer);
    } else {
      out(
        formatTable(
          ['#', 'TOOL', 'OK', 'RESULT'],
          result.results.map((item: Loose) => [
            String(item.index),
            String(item.toolId ?? '-'),
            item.success ? 'yes' : 'no',
            item.success
              ? clip(
                  typeof item.result === 'string'
                    ? item.result
                    : (JSON.stringify(item.result) ?? 'null'),
                  70,
                )
              : clip(`${item.error?.code}: ${item.error?.message}`, 70),
          ]),
        ),
      );
      out(
        `${result.completed} of ${result.requested} completed${result.stoppedEarly ? ', stopped early' : ''}\n`,
      );
    }
    if (!result.success) {
      const failed = result.results.find((item: Loose) => !item.success);
      printLine(
        io.stderr,
        `toolwire: batch call ${failed?.index ?? '?'} failed: ${failed?.error?.code ?? 'error'}: ${failed?.error?.message ?? ''}`,
      );
      return EXIT.failed;
    }
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof CliFailure)) {
      printLine(io.stderr, `toolwire: ${(error as Error)?.message ?? String(error)}`);
      return EXIT.failed;
    }
    if (args.json) {
      json(
        error.body ?? {
          ok: false,
          error: {
            code: error.exitCode === EXIT.noHost ? 'no_host' : 'usage',
            message: error.message,
          },
        },
      );
    }
    printLine(io.stderr, `toolwire: ${error.message}`);
    return error.exitCode;
  }
}
