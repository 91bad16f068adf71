/**
 * `toolwire mcp`: an MCP server over stdio (mcp/bridge.ts) serving page tools. Stdout carries
 * JSON-RPC only; human output goes to stderr.
 *
 * - Alone, it runs a host of its own (no control API); with `--attach`, it serves the tools of
 *   the running `toolwire host` through its control API (mcp/control-source.ts), found as the
 *   client commands find it.
 * - It ends on SIGINT / SIGTERM, or when stdin ends: the MCP client owns it.
 */
import type { ControlTarget } from '../control/client.js';
import { createMcpBridge } from '../mcp/bridge.js';
import { controlToolSource } from '../mcp/control-source.js';
import { redactUrl } from '../shared/token.js';
import { VERSION } from '../shared/version.js';
import { HOST_FLAGS, readClientArgs, readHostOptions } from './args.js';
import { CliFailure, control, resolveTarget } from './client.js';
import type { ClientArgs, Command, CommandIo, ParsedCommand } from './command.js';
import { EXIT } from './command.js';
import { printLine } from './format.js';
import { noArguments, startHost, untilStopped } from './host.js';

const ATTACH_FLAGS = ['attach', 'host-url', 'token', 'quiet'];

/** `toolwire mcp`: a host of its own, its tools served over stdio. */
async function runOwnHost(parsed: ParsedCommand, io: CommandIo): Promise<number> {
  const started = await startHost(parsed, io, { control: false });
  if (typeof started === 'number') return started;
  const { log } = started;
  const bridge = createMcpBridge(started.host, {
    input: io.stdin,
    output: io.stdout,
    serverVersion: VERSION,
    ...(log ? { log } : {}),
  });
  await untilStopped(io, { stdin: true });
  await bridge.close();
  await started.close();
  return EXIT.ok;
}

/** `toolwire mcp --attach`: the MCP bridge over a running host's control API. */
async function runAttached(parsed: ParsedCommand, io: CommandIo): Promise<number> {
  const print = (line: string) => printLine(io.stderr, line);
  let target: ControlTarget;
  try {
    target = resolveTarget(parsed.attach as ClientArgs, io.env);
    await control(target, '/v1/sessions');
  } catch (error) {
    print(`toolwire: ${(error as Error).message}`);
    return error instanceof CliFailure ? error.exitCode : EXIT.failed;
  }
  const log = parsed.quiet ? undefined : (line: string) => print(`toolwire: ${redactUrl(line)}`);
  print(`toolwire mcp ${VERSION}: attached to the host at ${target.url}`);
  const bridge = createMcpBridge(controlToolSource(target, log ? { log } : {}), {
    input: io.stdin,
    output: io.stdout,
    serverVersion: VERSION,
    ...(log ? { log } : {}),
  });
  await untilStopped(io, { stdin: true });
  await bridge.close();
  return EXIT.ok;
}

export const mcp: Command = {
  name: 'mcp',
  synopsis: 'mcp',
  summary: [
    'Run a host and serve its page tools to an MCP client over stdio;',
    'with --attach, serve the tools of the running host instead.',
  ],
  group: 'host',
  options: (values) => (values.attach ? ATTACH_FLAGS : [...HOST_FLAGS, 'attach']),
  parse(extra, values, env) {
    noArguments(extra);
    const quiet = values.quiet === true;
    if (values.attach)
      return { command: 'mcp', options: {}, quiet, attach: readClientArgs(values) };
    return { command: 'mcp', quiet, ...readHostOptions(values, env) };
  },
  run: (parsed, io) => (parsed.attach ? runAttached(parsed, io) : runOwnHost(parsed, io)),
};
