/**
 * What the client commands (sessions, tools, call, batch, pair, revoke) share: finding the
 * running host, asking its control API through the one client (control/client.ts), and reading
 * every failure as one line on stderr and an exit code (EXIT):
 *
 * - 3 (noHost): no state file or secret, nothing answers, the host refused us, closed the
 *   connection on a request that runs nothing, or has no such session;
 * - 4 (outcomeUnknown): the connection broke after a call or batch was sent: the tool may have
 *   run, so saying "no host" would invite a blind retry;
 * - 2 (usage): a malformed request, or several sessions and no --session;
 * - 1 (failed): the tool or the protocol said no;
 * - 130 (cancelled): the call or batch was cancelled (`tool_call_cancelled`).
 *
 * A call or batch (`callPage`) can be stopped, and shows its progress:
 *
 * - The first Ctrl-C asks the host to cancel it (`POST /v1/cancel` with the cancel key the call
 *   was sent with): the page's tool is stopped, and the host's answer, `tool_call_cancelled`
 *   (or the result, if it came first), is printed as any outcome is. A host that cannot be
 *   asked (one without the route, or gone) is left: the call's connection is closed, which a
 *   host that cancels on a closed connection takes as the cancel, and the command ends 130.
 * - A second Ctrl-C ends the command at once (130), closing the call's connection.
 * - Progress: the call asks for it, and a call still running after a second shows a line on
 *   stderr (progress.ts).
 */
import { readFileSync } from 'node:fs';
import type { ControlTarget } from '../control/client.js';
import { actsOnPage, ControlFailure, newCancelKey, sendControl } from '../control/client.js';
import { controlStatePaths, readControlState, StateFileError } from '../control/state-file.js';
import { errnoText, grantHint } from '../shared/errors.js';
import { stringifySafe } from '../shared/terminal-text.js';
import { CLIENT_FLAGS, readClientArgs } from './args.js';
import type { ClientArgs, Command, CommandIo, Env } from './command.js';
import { EXIT, UsageError } from './command.js';
import type { Loose } from './format.js';
import { printLine } from './format.js';
import { progressLine } from './progress.js';

/** An error with its exit code and the one line to print (escaped when printed). */
export class CliFailure extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
    /** What `--json` prints instead of the default `{ok: false, error}`. */
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/** No host runs (no state file, or nothing answers): a command may do without one. */
export class NoHostFailure extends CliFailure {
  constructor(message: string) {
    super(EXIT.noHost, message);
  }
}

/**
 * Where the control API is and its secret. The state file is read only when needed, and its
 * secret goes only to the address it names: `--host-url elsewhere` never carries it away.
 */
export function resolveTarget(args: ClientArgs, env: Env): ControlTarget {
  const given = args.hostUrl ?? env.TOOLWIRE_HOST;
  const givenToken = args.token ?? env.TOOLWIRE_CONTROL_TOKEN;
  let state: ReturnType<typeof readControlState>;
  if (given === undefined || givenToken === undefined) {
    // The usual place first (its distrust is an error), then the other conventional one (an
    // untrusted file there is passed over: it was never ours to read first).
    for (const [index, path] of controlStatePaths(env).entries()) {
      try {
        state = readControlState(path);
      } catch (error) {
        if (!(error instanceof StateFileError)) throw error;
        if (index === 0) throw new CliFailure(EXIT.noHost, error.message);
      }
      if (state) break;
    }
  }
  const url = given ?? state?.controlUrl;
  if (!url) {
    throw new NoHostFailure(
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

/** One control API request; its failures as CliFailures with their exit codes (the header). */
export async function control(
  target: ControlTarget,
  path: string,
  body?: object,
  options: Parameters<typeof sendControl>[3] = {},
): Promise<Record<string, Loose>> {
  try {
    return await sendControl(target, path, body, options);
  } catch (error) {
    if (!(error instanceof ControlFailure)) throw error;
    throw cliFailureOf(error, target, path);
  }
}

function cliFailureOf(failure: ControlFailure, target: ControlTarget, path: string): CliFailure {
  if (failure.kind === 'cut' && actsOnPage(path)) {
    const what = path === '/v1/call' ? 'call' : 'batch';
    return new CliFailure(
      EXIT.outcomeUnknown,
      `the connection to the host at ${target.url} broke during the ${what} (${failure.reason}): its outcome is unknown, the tool may have run`,
      {
        ok: false,
        error: {
          code: 'outcome_unknown',
          message: `The connection to the host broke during the ${what}; the tool may have run.`,
        },
      },
    );
  }
  if (failure.kind === 'cut') {
    return new CliFailure(
      EXIT.noHost,
      `the host at ${target.url} closed the connection (${failure.reason})`,
    );
  }
  if (failure.kind === 'unreachable') {
    return new NoHostFailure(
      `no toolwire host answers at ${target.url} (start one with "toolwire host")`,
    );
  }
  if (failure.kind === 'not-a-host') {
    return new CliFailure(EXIT.noHost, `${target.url} is not a toolwire host`);
  }
  const { status, answer } = failure as { status: number; answer: Record<string, Loose> };
  if (status === 401 || status === 403) {
    return new CliFailure(
      EXIT.noHost,
      `the host at ${target.url} refused us: ${answer?.error?.message ?? status}`,
      answer,
    );
  }
  const code = String(answer?.error?.code ?? status);
  const hint = grantHint(code, answer?.error?.details);
  const message = `${code}: ${answer?.error?.message ?? 'the host failed'}${hint ? ` (${hint})` : ''}`;
  if (code === 'session_not_connected') return new CliFailure(EXIT.noHost, message, answer);
  if (code === 'tool_call_cancelled') return new CliFailure(EXIT.cancelled, message, answer);
  if (code === 'pairing_not_found') return new CliFailure(EXIT.usage, message, answer);
  if (status === 400 || status === 409) return new CliFailure(EXIT.usage, message, answer);
  return new CliFailure(EXIT.failed, message, answer);
}

/**
 * A call or batch whose Ctrl-C cancels it at the page, with its progress shown (the header).
 * Resolves the `{ok: true}` answer; rejects as `control` does, or with 130 when cancelled.
 */
async function callPage(
  target: ControlTarget,
  io: CommandIo,
  path: string,
  body: object,
): Promise<Record<string, Loose>> {
  const cancelKey = newCancelKey();
  const progress = progressLine(io.stderr);
  const call = new AbortController();
  const asking = new AbortController();
  let interrupts = 0;
  let quit: (failure: CliFailure) => void = () => {};
  const quitting = new Promise<never>((_, reject) => {
    quit = (failure) => {
      call.abort(failure);
      reject(failure);
    };
  });
  const cancelled = (why: string) =>
    new CliFailure(EXIT.cancelled, `tool_call_cancelled: ${why}`, {
      ok: false,
      error: { code: 'tool_call_cancelled', message: why, retryable: false, details: null },
    });
  const interrupt = () => {
    interrupts++;
    progress.end();
    if (interrupts > 1) {
      quit(cancelled('quit at once (a second Ctrl-C) without waiting for the host'));
      return;
    }
    printLine(io.stderr, 'toolwire: cancelling the call (Ctrl-C again to quit at once)');
    sendControl(target, '/v1/cancel', { cancelKey }, { signal: asking.signal }).catch(() => {
      if (asking.signal.aborted) return;
      quit(cancelled('the host could not be asked to stop the tool; its connection was closed'));
    });
  };
  const stop = io.onInterrupt?.(interrupt);
  try {
    return await Promise.race([
      control(
        target,
        path,
        { ...body, cancelKey },
        { signal: call.signal, onProgress: progress.report },
      ),
      quitting,
    ]);
  } finally {
    stop?.();
    progress.end();
    asking.abort();
  }
}

/** A file's text, or a usage failure naming it. */
export function readText(path: string, what = path): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliFailure(EXIT.usage, `cannot read ${what}: ${errnoText(error)}`);
  }
}

/** JSON given inline, or `@file`. */
export function readJsonArgument(value: string, what: string): unknown {
  const text = value.startsWith('@')
    ? readText(value.slice(1), `${what} file ${value.slice(1)}`)
    : value;
  try {
    return JSON.parse(text);
  } catch (error) {
    // A shell ate the quotes ({sku:A-1}): say how to keep them.
    const quote =
      /^\s*[[{]/.test(text) && !value.startsWith('@')
        ? ` (quote it for the shell: '{"sku":"A-1"}')`
        : '';
    throw new CliFailure(
      EXIT.usage,
      `${what}: not valid JSON (${(error as Error).message})${quote}`,
    );
  }
}

/** What a client command's `run` gets. */
interface ClientContext {
  args: ClientArgs;
  io: CommandIo;
  /** `{session}` for a request body when --session was given, else nothing. */
  session: { session?: string };
  /** Asks the control API (the target resolved once). */
  control(path: string, body?: object): Promise<Record<string, Loose>>;
  /** A call or batch: Ctrl-C cancels it, its progress shows on stderr (the header). */
  callPage(path: string, body: object): Promise<Record<string, Loose>>;
  out(text: string): void;
  /** --json output: still JSON, but C1 and bidi controls (left raw by JSON) as \uXXXX. */
  json(value: unknown): void;
}

export interface ClientCommandSpec {
  name: string;
  synopsis: string;
  summary: readonly string[];
  /** Its options beside CLIENT_FLAGS. */
  options?: readonly string[];
  /** Its `--help`: examples, and lines after the summary. */
  examples: readonly string[];
  notes?: readonly string[];
  /**
   * Its one positional argument: its name in messages, the ClientArgs field it fills, and
   * whether it may be left out (the command then checks what it was given).
   */
  positional?: { label: string; field: 'toolId' | 'file' | 'session'; optional?: boolean };
  /** An optional second positional argument: the call's arguments (what --args also takes). */
  argsPositional?: string;
  /** Prints its answer; resolves with the exit code. Throw CliFailure to fail. */
  run(context: ClientContext): Promise<number>;
  /**
   * What it does when no host runs (a NoHostFailure), instead of failing: rethrow `failure`
   * when it cannot do without one.
   */
  withoutHost?(context: OfflineContext, failure: NoHostFailure): Promise<number>;
}

/** What `withoutHost` gets: no control API, the rest as `run`'s. */
type OfflineContext = Pick<ClientContext, 'args' | 'io' | 'out' | 'json'>;

/** A client command from its spec: the shared options, parsing and failure handling. */
export function clientCommand(spec: ClientCommandSpec): Command {
  const options = [...CLIENT_FLAGS, ...(spec.options ?? [])];
  return {
    name: spec.name,
    synopsis: spec.synopsis,
    summary: spec.summary,
    group: 'client',
    help: {
      // Its own options, then the shared ones (--token is the control API's secret here).
      options: [
        ...(spec.options ?? []).map((name) =>
          name === 'page' ? 'pair-page' : name === 'timeout' ? 'call-timeout' : name,
        ),
        ...CLIENT_FLAGS.map((name) => (name === 'token' ? 'control-token' : name)),
      ],
      examples: spec.examples,
      ...(spec.notes ? { notes: spec.notes } : {}),
    },
    options: () => options,
    parse(extra, values) {
      const positional = spec.positional;
      if (positional && !positional.optional && extra.length === 0) {
        throw new UsageError(`${positional.label} is missing`);
      }
      const taken = (positional ? 1 : 0) + (spec.argsPositional ? 1 : 0);
      const unexpected = extra[taken];
      if (unexpected !== undefined) throw new UsageError(`unexpected argument "${unexpected}"`);
      const client = readClientArgs(values);
      if (positional && extra[0] !== undefined) client[positional.field] = extra[0];
      const inline = spec.argsPositional ? extra[1] : undefined;
      if (inline !== undefined) {
        if (client.args !== undefined) {
          throw new UsageError(`give the arguments once: as ${spec.argsPositional} or with --args`);
        }
        client.args = inline;
      }
      return { command: spec.name, options: {}, quiet: false, client };
    },
    run: async (parsed, io) => {
      const args = parsed.client as ClientArgs;
      const json = (value: unknown) => io.stdout.write(`${stringifySafe(value)}\n`);
      const out = (text: string) => io.stdout.write(text);
      try {
        try {
          const target = resolveTarget(args, io.env);
          return await spec.run({
            args,
            io,
            session: args.session === undefined ? {} : { session: args.session },
            control: (path, body) => control(target, path, body),
            callPage: (path, body) => callPage(target, io, path, body),
            out,
            json,
          });
        } catch (error) {
          if (!(error instanceof NoHostFailure) || !spec.withoutHost) throw error;
          return await spec.withoutHost({ args, io, out, json }, error);
        }
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
    },
  };
}
