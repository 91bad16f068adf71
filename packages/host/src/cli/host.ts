/**
 * `toolwire host`: the host, and the control API the client commands use.
 *
 * - Human output goes to stderr. The connect line is the one place the full page token is
 *   printed: the page needs it. Every log line after it shows only the token's first characters.
 * - The control API (control/server.ts) listens on 127.0.0.1, with a secret of its own, and the
 *   state file (port and that secret, mode 0600) says where; it goes on exit. The page token
 *   does not open the control API.
 * - SIGINT / SIGTERM close the host first, so pending calls fail with `tool_transport_closed`
 *   and those answers reach the CLIs waiting on them; then the control API closes.
 *
 * `startHost` and `untilStopped` also serve `toolwire mcp` (mcp.ts), which runs a host without
 * the control API.
 */
import type { ControlServer } from '../control/server.js';
import { publishControl } from '../control/server.js';
import { controlStatePath } from '../control/state-file.js';
import type { Host } from '../server/host.js';
import { createHost } from '../server/host.js';
import { redactUrl } from '../shared/token.js';
import { VERSION } from '../shared/version.js';
import { HOST_FLAGS, readHostOptions } from './args.js';
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

/** The host of `parsed` with its banner; with `control`, the control API too. Or an exit code. */
export async function startHost(
  parsed: ParsedCommand,
  io: CommandIo,
  options: { control: boolean },
): Promise<StartedHost | number> {
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
  if (options.control) {
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
  if (control) print(`toolwire: control API on ${control.url} (state in ${statePath})`);
  print(`connect a page: toolwire.connect({ url: '${host.url}' })`);
  print(
    'or load <script src="endpoint.iife.js"></script> in the page and open its pairing link (--page URL prints one; toolwire pair --page URL makes more)',
  );
  if (parsed.page) print(`or open: ${host.pairingUrl(parsed.page)}`);
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
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}".`);
}

export const host: Command = {
  name: 'host',
  synopsis: 'host',
  summary: [
    'Run the host. Pages connect to it over a WebSocket; it also serves the',
    'control API (127.0.0.1, a secret of its own) the commands below use.',
  ],
  group: 'host',
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
