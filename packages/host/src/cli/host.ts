/**
 * `toolwire host`: the host, and the control API the client commands use.
 *
 * - Human output goes to stderr. The connect line is the one place the full page token is
 *   printed: the page needs it. Every log line after it shows only the token's first characters.
 * - The control API (control/server.ts) listens on 127.0.0.1, with a secret of its own, and the
 *   state file (port and that secret, mode 0600) says where; it goes on exit. The page token
 *   does not open the control API.
 * - One host per state file: a host whose state file names a live host (its control API
 *   answers) does not start, one line naming that host (exit 1); a dead host's file is taken
 *   over. A second host needs a state file of its own (TOOLWIRE_STATE).
 * - SIGINT / SIGTERM close the host first, so pending calls fail with `tool_transport_closed`
 *   and those answers reach the CLIs waiting on them; then the control API closes.
 *
 * - Pairings are kept in the pairings file (server/pairing-file.ts: `$TOOLWIRE_HOME`, else the
 *   user's state directory), so a restart reconnects every paired tab with no new link; with
 *   `--no-keep-pairings`, in memory for this run only. A pairings file or directory not to be
 *   trusted stops the start with one line (exit 1).
 *
 * `startHost` and `untilStopped` also serve `toolwire mcp` (mcp.ts), which runs a host without
 * the control API.
 */
import { get as httpGet } from 'node:http';
import type { ControlServer } from '../control/server.js';
import { controlAnswers, publishControl } from '../control/server.js';
import {
  controlStatePath,
  controlStatePaths,
  describeRunning,
  HostRunningError,
  readControlState,
  StateFileError,
} from '../control/state-file.js';
import type { Host, HostOptions } from '../server/host.js';
import { createHost } from '../server/host.js';
import { mcpSecret } from '../server/mcp-secret.js';
import { openPairingFile, pairingHome } from '../server/pairing-file.js';
import { linkPhrase } from '../shared/link-phrase.js';
import { redactUrl } from '../shared/token.js';
import { VERSION } from '../shared/version.js';
import { DEFAULT_PORT, HIDDEN_ALIASES, HOST_FLAGS, readHostOptions } from './args.js';
import type { Command, CommandIo, ParsedCommand } from './command.js';
import { EXIT, UsageError } from './command.js';
import { printLine } from './format.js';

/** A host started for a command, its banner printed. */
export interface StartedHost {
  host: Host;
  /** Its log lines (tokens redacted, escaped) to stderr; undefined with --quiet. */
  log: ((line: string) => void) | undefined;
  /** The host first (pending calls fail and their answers go out), then the control API. */
  close(): Promise<void>;
}

/** The port of a `ws://` address, or undefined. */
function portOf(address: string): number | undefined {
  try {
    const url = new URL(address);
    return url.port === '' ? undefined : Number(url.port);
  } catch {
    return undefined;
  }
}

/**
 * Who holds `port`: a live host a state file names (this environment's, or the usual places),
 * else what answers there: a toolwire host without a state file we can read, or not toolwire.
 */
async function holderOf(parsed: ParsedCommand, env: CommandIo['env'], port: number) {
  const paths = new Set([
    ...controlStatePaths(env),
    ...controlStatePaths({ ...env, TOOLWIRE_STATE: undefined }),
  ]);
  for (const path of paths) {
    try {
      const state = readControlState(path);
      if (state?.address && portOf(state.address) === port && (await controlAnswers(state)))
        return { path, state };
    } catch {
      // an untrusted or unreadable file names no one
    }
  }
  // A toolwire host answers a plain GET on its path with its name (server/host.ts #onHttp).
  const hostname = parsed.options.hostname ?? '127.0.0.1';
  const near = hostname === '0.0.0.0' ? '127.0.0.1' : hostname === '::' ? '::1' : hostname;
  const at = `http://${near.includes(':') ? `[${near}]` : near}:${port}${parsed.options.path ?? '/toolwire'}`;
  return (await firstWords(at)).startsWith('toolwire host') ? 'toolwire' : undefined;
}

/** The start of what a plain GET of `url` answers; '' for no HTTP answer within 2 s. */
function firstWords(url: string): Promise<string> {
  return new Promise((resolve) => {
    // No agent: the socket is ours to close, so the program holding the port is left alone.
    const request = httpGet(url, { agent: false, timeout: 2000 }, (response) => {
      response.setEncoding('utf8');
      let text = '';
      response.on('data', (chunk: string) => {
        text += chunk;
        if (text.length >= 64) request.destroy();
      });
      response.on('close', () => resolve(text));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(''));
    request.on('close', () => resolve(''));
  });
}

/** Why the host could not start, as one line; a port in use names who has it and the ways out. */
async function startFailure(parsed: ParsedCommand, io: CommandIo, error: unknown): Promise<string> {
  const { code } = error as NodeJS.ErrnoException;
  if (code !== 'EADDRINUSE') return `could not start the host: ${(error as Error).message}`;
  const port = parsed.options.port ?? DEFAULT_PORT;
  const elsewhere = '--port N (0 = any free port) runs this one elsewhere';
  const holder = await holderOf(parsed, io.env, port);
  const reach =
    parsed.command === 'mcp'
      ? 'toolwire mcp --attach serves its tools'
      : 'toolwire sessions, call and pair reach it';
  if (typeof holder === 'object') {
    return `port ${port} is in use by a toolwire host (${describeRunning(holder.path, holder.state)}): ${reach}; ${elsewhere}`;
  }
  if (holder === 'toolwire') {
    return `port ${port} is in use by a toolwire host with no state file here: a toolwire mcp (its MCP client reaches it), or a host started with another TOOLWIRE_STATE (the commands reach it with that TOOLWIRE_STATE); ${elsewhere}`;
  }
  return `port ${port} is in use by a program that is not a toolwire host: ${elsewhere}`;
}

/** The live host the state file at `path` names, as a HostRunningError to print; never throws. */
async function liveHostAt(path: string): Promise<HostRunningError | undefined> {
  try {
    const state = readControlState(path);
    if (state && (await controlAnswers(state))) return new HostRunningError(path, state);
  } catch {
    // an untrusted file: publishing says so
  }
  return undefined;
}

/** The host of `parsed` with its banner; with `control`, the control API too. Or an exit code. */
export async function startHost(
  parsed: ParsedCommand,
  io: CommandIo,
  options: { control: boolean | 'optional' },
): Promise<StartedHost | number> {
  // Every line, the host's and the MCP bridge's log lines included (they quote pages' URLs and
  // titles), is escaped on its way out.
  const print = (line: string) => printLine(io.stderr, line);
  const log = parsed.quiet ? undefined : (line: string) => print(`toolwire: ${redactUrl(line)}`);
  const statePath = controlStatePath(io.env);
  if (options.control === true) {
    // Before the page socket binds: a host already running is the thing to name, not its port.
    const running = await liveHostAt(statePath);
    if (running) {
      print(`toolwire ${parsed.command}: ${running.message}`);
      return EXIT.failed;
    }
  }
  // Pairings kept across runs (the header), unless --no-keep-pairings.
  let kept: Pick<HostOptions, 'pairingStore' | 'hostId'> = {};
  let keptIn: string | undefined;
  if (parsed.keepPairings !== false) {
    try {
      const store = openPairingFile(pairingHome(io.env), {
        onError: (message) => print(`toolwire: warning: ${message}`),
      });
      kept = { pairingStore: store, ...(store.identity ? { hostId: store.identity.id } : {}) };
      keptIn = store.path;
    } catch (error) {
      if (!(error instanceof StateFileError)) throw error;
      // A directory made by hand often has the umask's 0755: say how to fix it.
      const fix = / not 0700$/.test(error.message) ? 'chmod 700 it, or ' : '';
      print(
        `toolwire ${parsed.command}: ${error.message} (${fix}--no-keep-pairings runs without it)`,
      );
      return EXIT.failed;
    }
  }
  // MCP over Streamable HTTP at /mcp, unless --no-mcp-http: its secret kept beside the pairings.
  let mcp: HostOptions['mcp'];
  if (parsed.mcpHttp !== false) {
    try {
      mcp = { secret: mcpSecret(pairingHome(io.env)) };
    } catch (error) {
      if (!(error instanceof StateFileError)) throw error;
      print(`toolwire ${parsed.command}: ${error.message} (--no-mcp-http runs without it)`);
      return EXIT.failed;
    }
  }
  let host: Host;
  // The banner below says where the host listens and whom it allows, once: the host's own
  // lines about that (logged while it starts listening) would say it a second time.
  let listening = false;
  const hostLog = log && ((line: string) => listening && log(line));
  try {
    host = await createHost({
      ...parsed.options,
      ...kept,
      ...(mcp ? { mcp } : {}),
      ...(hostLog ? { log: hostLog } : {}),
    });
    listening = true;
  } catch (error) {
    print(`toolwire ${parsed.command}: ${await startFailure(parsed, io, error)}`);
    return EXIT.failed;
  }
  let control: ControlServer | undefined;
  if (options.control) {
    try {
      control = await publishControl(host, { port: parsed.controlPort ?? 0, statePath });
    } catch (error) {
      if (options.control === 'optional') {
        print(`toolwire: no control API for the toolwire commands: ${(error as Error).message}`);
      } else if (error instanceof HostRunningError) {
        // Another host claimed the file since the check above (two started at once).
        print(`toolwire ${parsed.command}: ${error.message}`);
        await host.close();
        return EXIT.failed;
      } else {
        print(`toolwire: could not start the control API: ${(error as Error).message}`);
        await host.close();
        return EXIT.failed;
      }
    }
  }
  print(`toolwire ${parsed.command} ${VERSION}: ${redactUrl(host.url)}, grant ${host.grant}`);
  if (!['127.0.0.1', 'localhost', '::1'].includes(host.hostname)) {
    // docs/wire.md: clear-text WebSocket, meant for the developer's machine or a trusted network.
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
  print(
    host.mcpUrl
      ? `toolwire: MCP over HTTP at ${host.mcpUrl} (bearer secret; toolwire mcp-config prints client configurations)`
      : 'toolwire: no MCP over HTTP (--no-mcp-http)',
  );
  if (control) print(`toolwire: control API on ${control.url} (state in ${statePath})`);
  const count = kept.pairingStore?.list().length ?? 0;
  print(
    keptIn
      ? `toolwire: pairings kept in ${keptIn} (${count === 1 ? '1 pairing' : `${count} pairings`}; toolwire pairings lists them)`
      : 'toolwire: pairings last this run only (--no-keep-pairings)',
  );
  print(`connect a page: toolwire.connect({ url: '${host.url}' })`);
  print(
    'or load <script src="endpoint.iife.js"></script> in the page and open its pairing link (--page URL prints one; toolwire pair --page URL makes more)',
  );
  if (parsed.page) {
    const link = host.pairingUrl(parsed.page);
    print(`or open: ${link}`);
    const phrase = linkPhrase(link);
    if (phrase) print(`phrase: ${phrase}`);
  }
  return {
    host,
    log,
    async close() {
      // The host first: its sessions fail pending calls with tool_transport_closed, and the
      // control API, still up, sends those answers to the CLIs waiting on them. Then the control
      // API closes (in-flight answers get a short grace) and the state file goes.
      await host.close();
      await control?.close();
    },
  };
}

/** Resolves on SIGINT/SIGTERM, and with `stdin`, when stdin ends (an MCP client went away). */
export function untilStopped(io: CommandIo, options: { stdin?: boolean } = {}): Promise<void> {
  return new Promise<void>((resolve) => {
    io.onSignal?.(() => resolve());
    if (options.stdin) {
      io.stdin.once('end', () => resolve());
      io.stdin.once('close', () => resolve());
    }
  });
}

/** `host` and `mcp` take no positional arguments. */
export function noArguments(extra: string[]): void {
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
}

export const host: Command = {
  name: 'host',
  synopsis: 'host',
  summary: [
    'Run the host. Pages connect to it over a WebSocket; it also serves the',
    'control API (127.0.0.1, a secret of its own) the commands below use.',
  ],
  group: 'host',
  help: {
    options: HOST_FLAGS.filter((name) => !HIDDEN_ALIASES.includes(name)),
    notes: [
      '',
      'Its lines go to stderr: the page token once (the connect line), the pairing link',
      '(--page), then who connects. It runs until Ctrl-C (SIGINT) or SIGTERM.',
      '',
      'It also serves MCP over HTTP at /mcp on its port, for clients holding the',
      'secret in $TOOLWIRE_HOME/mcp-secret (toolwire mcp-config prints their',
      'configurations); --no-mcp-http turns that off.',
    ],
    examples: [
      "toolwire host --page http://localhost:5173/app/   # prints that page's pairing link",
      'toolwire host --max-tool-policy write --allow-origin http://localhost:5173',
      'toolwire host --port 0 --quiet                    # any free port, only the connect lines',
    ],
    exitCodes: [
      '0 stopped (SIGINT, SIGTERM), 1 could not start (e.g. the port is in use, or',
      'a host already runs with the same state file), 2 usage.',
    ],
  },
  options: () => HOST_FLAGS,
  parse(extra, values, env) {
    noArguments(extra);
    return { command: 'host', quiet: values.quiet === true, ...readHostOptions(values, env) };
  },
  async run(parsed, io) {
    const started = await startHost(parsed, io, { control: true });
    if (typeof started === 'number') return started;
    await untilStopped(io);
    await started.close();
    return EXIT.ok;
  },
};
