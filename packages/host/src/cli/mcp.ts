/**
 * `toolwire mcp`: an MCP server over stdio (mcp/bridge.ts) serving page tools. Stdout carries
 * JSON-RPC only; human output goes to stderr, which MCP clients usually hide.
 *
 * 1. Without host options it attaches to the running host when there is one: the one the
 *    state file (or TOOLWIRE_HOST with TOOLWIRE_CONTROL_TOKEN) names, if its control API
 *    answers within ATTACH_PROBE_MS. Its tools come through that control API
 *    (mcp/control-source.ts).
 * 2. Otherwise, or given host options (--allow-origin, --max-tool-policy, --page...: a request
 *    for a host configured so, which a running host is not), it runs a host of its own. With
 *    no other host running it also publishes its control API and state file as `toolwire host`
 *    does, so `toolwire pair`, `toolwire tools` and other MCP clients reach it; it never takes
 *    a live host's state file. A port in use is one line naming the ways out (--attach, --port).
 * 3. `--attach` (or `--host-url`, naming the host) only attaches: no running host is exit 3,
 *    never a host of its own.
 * 4. Pairing does not depend on reading stderr: the bridge offers `toolwire_pair`
 *    (mcp/pair-tool.ts), which answers a page's pairing link inside the MCP client.
 * 5. It ends on SIGINT / SIGTERM, or when stdin ends: the MCP client owns it.
 * 6. `--timeout` is each call's deadline in both modes: a host of its own applies it (default
 *    60 s); attached, each call carries it (default: the running host's own). It asks for no
 *    host of its own.
 * 7. A host of its own keeps its pairings in the pairings file as `toolwire host` does (the
 *    same file: an MCP client restarting it reconnects every paired tab), unless
 *    `--no-keep-pairings`.
 */
import type { ControlTarget } from '../control/client.js';
import { sendControl } from '../control/client.js';
import { createMcpBridge } from '../mcp/bridge.js';
import { controlToolSource } from '../mcp/control-source.js';
import { redactUrl } from '../shared/token.js';
import { VERSION } from '../shared/version.js';
import { HIDDEN_ALIASES, HOST_FLAGS, readClientArgs, readHostOptions } from './args.js';
import { CliFailure, control, resolveTarget } from './client.js';
import type { Command, CommandIo, OptionValues, ParsedCommand } from './command.js';
import { EXIT } from './command.js';
import { printLine } from './format.js';
import { noArguments, startHost, untilStopped } from './host.js';

const ATTACH_FLAGS = ['attach', 'host-url', 'token', 'timeout', 'quiet'];
/**
 * Options that say only where a host of its own would listen, how much to print, each call's
 * deadline or whether it keeps its pairings: they do not ask for one (so
 * `--port N`, the way out of a port in use, still attaches when it can).
 */
const WHERE_FLAGS = ['port', 'control-port', 'timeout', 'quiet', 'no-keep-pairings', 'no-mcp-http'];
/** How long a running host's control API gets to answer before mcp runs a host of its own. */
const ATTACH_PROBE_MS = 2000;

/** The running host's control API, if one answers; never throws. */
async function runningHost(io: CommandIo): Promise<ControlTarget | undefined> {
  try {
    const target = resolveTarget({ json: false }, io.env);
    await sendControl(target, '/v1/sessions', undefined, {
      signal: AbortSignal.timeout(ATTACH_PROBE_MS),
    });
    return target;
  } catch {
    return undefined; // no state file, an untrusted one, or nothing answers: a host of our own
  }
}

/** Serves the bridge on stdio over `source` until the client goes. */
async function serve(
  io: CommandIo,
  source: Parameters<typeof createMcpBridge>[0],
  log: ((line: string) => void) | undefined,
): Promise<void> {
  const bridge = createMcpBridge(source, {
    input: io.stdin,
    output: io.stdout,
    serverVersion: VERSION,
    ...(log ? { log } : {}),
  });
  await untilStopped(io, { stdin: true });
  await bridge.close();
}

/** A host of its own, its tools served over stdio. */
async function runOwnHost(
  parsed: ParsedCommand,
  io: CommandIo,
  control: 'optional' | false,
): Promise<number> {
  const started = await startHost(parsed, io, { control });
  if (typeof started === 'number') return started;
  await serve(io, started.host, started.log);
  await started.close();
  return EXIT.ok;
}

/** The MCP bridge over a running host's control API. */
async function runAttached(
  parsed: ParsedCommand,
  io: CommandIo,
  target: ControlTarget,
): Promise<number> {
  const print = (line: string) => printLine(io.stderr, line);
  const log = parsed.quiet ? undefined : (line: string) => print(`toolwire: ${redactUrl(line)}`);
  print(`toolwire mcp ${VERSION}: attached to the host at ${target.url}`);
  // The deadline each call carries; none given, the host's own applies.
  const callTimeoutMs = parsed.options.callTimeoutMs ?? parsed.attach?.timeoutMs;
  const source = controlToolSource(target, {
    ...(log ? { log } : {}),
    ...(callTimeoutMs === undefined ? {} : { callTimeoutMs }),
  });
  await serve(io, source, log);
  return EXIT.ok;
}

/** `--attach`, or `--host-url` (which names the host to attach to). */
const attaching = (values: OptionValues) =>
  values.attach === true || values['host-url'] !== undefined;

export const mcp: Command = {
  name: 'mcp',
  synopsis: 'mcp',
  summary: [
    "Serve page tools to an MCP client over stdio: the running host's tools",
    'when there is one, else (or given host options) a host of its own.',
  ],
  group: 'host',
  help: {
    options: ['attach', 'host-url', ...HOST_FLAGS.filter((name) => !HIDDEN_ALIASES.includes(name))],
    notes: [
      '',
      'An MCP client launches it (stdout is the MCP stream; stderr, the log, is',
      'usually hidden). To pair a page, ask the client to call the toolwire_pair tool',
      "with the page's URL and open the link it answers; or run toolwire pair --page URL",
      'in a terminal. With --attach, --token is the control API secret.',
      '',
      "A call's deadline is --timeout (default 60000 ms; attached, the running host's),",
      "sent to the page, which stops the tool then. MCP's notifications/cancelled",
      "cancels the call at the page; a call with a progressToken gets the page's",
      'progress as notifications/progress.',
      '',
      'A host of its own also serves MCP over HTTP at /mcp on its port, as',
      'toolwire host does (--no-mcp-http: not); toolwire mcp-config prints the',
      'client configurations.',
    ],
    examples: [
      'toolwire mcp                                     # the running host, else its own',
      'toolwire mcp --allow-origin http://localhost:5173 --max-tool-policy write',
      'toolwire mcp --attach                            # only a running toolwire host',
      'toolwire mcp --timeout 30000                     # calls stop after 30 s',
    ],
    exitCodes: [
      '0 the client closed stdin (or SIGINT, SIGTERM), 1 could not start a host (e.g.',
      'the port is in use), 2 usage, 3 --attach and no host answers.',
    ],
  },
  options: (values) => (attaching(values) ? ATTACH_FLAGS : [...HOST_FLAGS, 'attach']),
  parse(extra, values, env) {
    noArguments(extra);
    const quiet = values.quiet === true;
    if (attaching(values))
      return { command: 'mcp', options: {}, quiet, attach: readClientArgs(values) };
    // A host option asks for a host configured so: a host of its own.
    const ownHost = HOST_FLAGS.some(
      (name) => !WHERE_FLAGS.includes(name) && values[name] !== undefined,
    );
    return {
      command: 'mcp',
      quiet,
      ...readHostOptions(values, env),
      ...(ownHost ? { ownHost } : {}),
    };
  },
  async run(parsed, io) {
    if (parsed.attach) {
      let target: ControlTarget;
      try {
        target = resolveTarget(parsed.attach, io.env);
        await control(target, '/v1/sessions');
      } catch (error) {
        printLine(io.stderr, `toolwire: ${(error as Error).message}`);
        return error instanceof CliFailure ? error.exitCode : EXIT.failed;
      }
      return runAttached(parsed, io, target);
    }
    const running = await runningHost(io);
    if (running && !parsed.ownHost) return runAttached(parsed, io, running);
    if (running) {
      printLine(
        io.stderr,
        `toolwire: a host runs at ${running.url}; this one is separate (the toolwire commands keep reaching that one)`,
      );
    }
    return runOwnHost(parsed, io, running ? false : 'optional');
  },
};
