/**
 * What a `toolwire` subcommand is (one file each; commands.ts lists them), what it reads, and
 * the exit codes every one of them shares.
 */
import type { Readable, Writable } from 'node:stream';
import type { HostOptions } from '../server/host.js';

/**
 * Exit codes of every command. `outcomeUnknown`: the connection to the host broke after a call
 * or batch was sent (the host died mid-call): the tool may or may not have run. `cancelled`:
 * the call or batch was cancelled (`tool_call_cancelled`; Ctrl-C), 128 + SIGINT as shells do.
 */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  noHost: 3,
  outcomeUnknown: 4,
  cancelled: 130,
} as const;

export type Env = Record<string, string | undefined>;

export interface CommandIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: Env;
  /** Registers what to do on SIGINT/SIGTERM (once). */
  onSignal?: (handler: () => void) => void;
  /**
   * Calls `handler` on every SIGINT (Ctrl-C) until the returned function is called: `call` and
   * `batch` cancel on the first and quit on the second. Without it, Ctrl-C ends the process.
   */
  onInterrupt?: (handler: () => void) => () => void;
}

/**
 * A command line that does not fit: printed as one line with a pointer to the help of the
 * command it is about (`command`, when known), exit 2.
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

/** The option values node:util parseArgs read (args.ts OPTIONS). */
export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** What a client command (sessions, tools, call, ...) read from its command line. */
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
  /** call, batch, mcp --attach: the call's deadline (--timeout), in ms. */
  timeoutMs?: number;
  file?: string;
  continueOnError?: boolean;
  /** pair: the page the link is for. */
  page?: string;
  /** pair: the browser extension (id or origin) the pairing address is for. */
  extension?: string;
  /** revoke: a pairing's id or id prefix (--pairing). */
  pairing?: string;
  /** revoke: every pairing (--all). */
  all?: boolean;
}

export interface ParsedCommand {
  /** A command's name, or `help` / `version` (-h, -v). */
  command: string;
  /** `help`: the command whose help was asked for (`toolwire call --help`). */
  topic?: string;
  options: HostOptions;
  page?: string;
  quiet: boolean;
  controlPort?: number;
  /** `--no-keep-pairings`: this run's pairings in memory only, the pairings file untouched. */
  keepPairings?: false;
  /** `--no-mcp-http`: the host does not serve MCP over HTTP at `/mcp`. */
  mcpHttp?: false;
  client?: ClientArgs;
  /** `mcp` given host options: run a host of its own even when one is running. */
  ownHost?: boolean;
  /** `mcp --attach`: the running host to use (resolved like the client commands'). */
  attach?: ClientArgs;
  /** `mcp-config`: which clients (all when undefined), which transports, --json. */
  mcpConfig?: { client?: string; transports: readonly ('http' | 'stdio')[]; json: boolean };
}

/** One subcommand: its entry in the help, the options it takes, how it reads them and runs. */
export interface Command {
  readonly name: string;
  /** Its entry under "Commands:" in the help: `synopsis`, then what it does (lines). */
  readonly synopsis: string;
  readonly summary: readonly string[];
  /** The help's option list it takes its options from. */
  readonly group: 'host' | 'client';
  /** Its own `--help`: the options it lists (names in OPTIONS), examples, further lines. */
  readonly help: CommandHelp;
  /** The options it accepts (names in OPTIONS); `values` decides for `mcp --attach`. */
  options(values: OptionValues): readonly string[];
  /** Its arguments, read (UsageError when they do not fit). */
  parse(extra: string[], values: OptionValues, env: Env): ParsedCommand;
  /** Runs it; resolves with the exit code. */
  run(parsed: ParsedCommand, io: CommandIo): Promise<number>;
}

/** What `toolwire COMMAND --help` prints beside the synopsis and summary. */
interface CommandHelp {
  /** The options to describe, in order (every one `options()` may accept, aliases aside). */
  readonly options: readonly string[];
  /** Command lines to copy, each with a comment after `#` when useful. */
  readonly examples: readonly string[];
  /** Paragraph lines after the summary (what it prints, what it needs). */
  readonly notes?: readonly string[];
  /** Its exit codes, when they differ from the client commands' (help.ts CLIENT_EXIT). */
  readonly exitCodes?: readonly string[];
}
