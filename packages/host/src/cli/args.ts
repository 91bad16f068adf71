/**
 * Argument parsing shared by the commands: every option `toolwire` knows (node:util parseArgs,
 * strict), and how the host commands and the client commands read theirs.
 */
import type { ParseArgsConfig } from 'node:util';
import { parsePolicy } from '@toolwire/protocol';
import { extensionOrigin } from '../server/extension-origin.js';
import type { HostOptions } from '../server/host.js';
import { normalizeOrigin } from '../server/upgrade.js';
import type { ClientArgs, Env, OptionValues } from './command.js';
import { UsageError } from './command.js';

export const DEFAULT_PORT = 45124;
/** The longest deadline `--timeout` takes (what a timer can wait; the control API's bound). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** Every option of every command; each command says which of them it takes. */
export const OPTIONS = {
  port: { type: 'string' },
  hostname: { type: 'string' },
  path: { type: 'string' },
  token: { type: 'string' },
  'allow-origin': { type: 'string', multiple: true },
  'max-tool-policy': { type: 'string' },
  // Hidden aliases (the names the options had first).
  origin: { type: 'string', multiple: true },
  'max-policy': { type: 'string' },
  page: { type: 'string' },
  extension: { type: 'string' },
  timeout: { type: 'string' },
  poll: { type: 'string' },
  compress: { type: 'string' },
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
  'no-keep-pairings': { type: 'boolean' },
  'no-mcp-http': { type: 'boolean' },
  client: { type: 'string' },
  stdio: { type: 'boolean' },
  http: { type: 'boolean' },
  'forwarded-port': { type: 'string', multiple: true },
  pairing: { type: 'string' },
  all: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const satisfies ParseArgsConfig['options'];

/** The options of the commands that run a host (`host`, `mcp`). */
export const HOST_FLAGS = [
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
  'compress',
  'control-port',
  'forwarded-port',
  'no-keep-pairings',
  'no-mcp-http',
  'quiet',
];

/** Old names still read, never shown in the help. */
export const HIDDEN_ALIASES: readonly string[] = ['origin', 'max-policy'];

/** The options every client command takes: how to reach the control API, and --json. */
export const CLIENT_FLAGS = ['json', 'host-url', 'token'];

function integer(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) {
    throw new UsageError(`--${name} needs a whole number, not "${value}".`);
  }
  return number;
}

/** `--timeout`: a whole number of ms, at least 1; undefined when not given. */
function deadline(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > MAX_TIMEOUT_MS) {
    throw new UsageError(
      `--timeout needs a whole number of milliseconds (1 or more), not "${value}".`,
    );
  }
  return number;
}

function absoluteUrl(value: string, option: string, what: string): string {
  try {
    new URL(value);
  } catch {
    throw new UsageError(`--${option} needs ${what}, not "${value}".`);
  }
  return value;
}

/** The host options of `host` and `mcp` (without --attach). */
export function readHostOptions(
  values: OptionValues,
  env: Env,
): { options: HostOptions; page?: string; controlPort?: number; mcpHttp?: false } {
  const text = (name: string) => values[name] as string | undefined;
  const list = (name: string) => (values[name] as string[] | undefined) ?? [];
  const options: HostOptions = {
    port: integer(text('port'), 'port', DEFAULT_PORT),
    pollIntervalMs: integer(text('poll'), 'poll', 0),
  };
  // A call's deadline when its caller names none (the host's default: 60 s), not every
  // request's: catalog queries keep their 20 s.
  const callTimeoutMs = deadline(text('timeout'));
  if (callTimeoutMs !== undefined) options.callTimeoutMs = callTimeoutMs;
  if (text('hostname')) options.hostname = text('hostname') as string;
  if (text('path')) options.path = text('path') as string;
  const token = text('token') ?? env.TOOLWIRE_TOKEN;
  if (token !== undefined) {
    if (token.length < 16) throw new UsageError('--token needs at least 16 characters');
    options.token = token;
  }
  const origins = [...list('allow-origin'), ...list('origin')];
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
  const forwarded = list('forwarded-port');
  if (forwarded.length > 0) {
    options.forwardedPorts = forwarded.map((port) => {
      const value = integer(port, 'forwarded-port', 0);
      if (value < 1 || value > 65_535)
        throw new UsageError('--forwarded-port is a port, 1 to 65535.');
      return value;
    });
  }
  const maxPolicy = text('max-tool-policy') ?? text('max-policy');
  if (maxPolicy !== undefined) {
    const policy = parsePolicy(maxPolicy);
    if (!policy) throw new UsageError(`--max-tool-policy is read, write or critical.`);
    options.maxToolPolicy = policy;
  }
  const compress = text('compress');
  if (compress !== undefined) {
    if (compress !== 'auto' && compress !== 'on' && compress !== 'off') {
      throw new UsageError(`--compress is auto, on or off, not "${compress}".`);
    }
    options.compress = compress;
  }
  const page = text('page');
  if (page !== undefined) absoluteUrl(page, 'page', 'an absolute URL');
  return {
    options,
    ...(page ? { page } : {}),
    ...(text('control-port') !== undefined
      ? { controlPort: integer(text('control-port'), 'control-port', 0) }
      : {}),
    ...(values['no-keep-pairings'] === true ? { keepPairings: false as const } : {}),
    ...(values['no-mcp-http'] === true ? { mcpHttp: false as const } : {}),
  };
}

/** The client options (what a command does not take, parseCommand has refused already). */
export function readClientArgs(values: OptionValues): ClientArgs {
  const client: ClientArgs = { json: values.json === true };
  const text = (name: string) => values[name] as string | undefined;
  const hostUrl = text('host-url');
  if (hostUrl !== undefined) client.hostUrl = absoluteUrl(hostUrl, 'host-url', 'a URL');
  if (text('token') !== undefined) client.token = text('token') as string;
  if (text('session') !== undefined) client.session = text('session') as string;
  if (text('detail') !== undefined) {
    const detail = text('detail');
    if (detail !== 'index' && detail !== 'full') throw new UsageError('--detail is index or full.');
    client.detail = detail;
  }
  if (text('query') !== undefined) client.query = text('query') as string;
  if (text('args') !== undefined) client.args = text('args') as string;
  const timeoutMs = deadline(text('timeout'));
  if (timeoutMs !== undefined) client.timeoutMs = timeoutMs;
  if (values.after !== undefined) {
    client.after = (values.after as string[])
      .flatMap((value) => value.split(','))
      .map((value) => value.trim())
      .filter(Boolean);
  }
  if (values['continue-on-error'] === true) client.continueOnError = true;
  const page = text('page');
  if (page !== undefined) client.page = absoluteUrl(page, 'page', 'an absolute URL');
  const extension = text('extension');
  if (extension !== undefined) {
    try {
      client.extension = extensionOrigin(extension);
    } catch (error) {
      throw new UsageError(`--extension: ${(error as Error).message}`);
    }
  }
  if (text('pairing') !== undefined) client.pairing = text('pairing') as string;
  if (values.all === true) client.all = true;
  if (client.page !== undefined && client.extension !== undefined) {
    throw new UsageError('give --page or --extension, not both.');
  }
  return client;
}
