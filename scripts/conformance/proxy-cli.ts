/**
 * `pnpm conformance:proxy [--listen <port>] [--target <origin>] [--secret <secret>]`: the
 * header-adding proxy (proxy.ts) in front of a running host's `/mcp`, for running the official
 * conformance suite by hand (docs/conformance.md). The secret and the host's address default to
 * what `toolwire mcp-config` prints for this machine. Runs until Ctrl-C.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startBearerProxy } from './proxy.js';

const CLI = fileURLToPath(new URL('../../packages/host/dist/cli.js', import.meta.url));

const { values } = parseArgs({
  options: {
    listen: { type: 'string', default: '0' },
    target: { type: 'string' },
    secret: { type: 'string' },
  },
});

/** The HTTP client configuration `toolwire mcp-config` prints: its URL and bearer secret. */
function configured(): { url: string; secret: string } {
  const out = execFileSync(
    process.execPath,
    [CLI, 'mcp-config', '--client', 'vscode', '--http', '--json'],
    {
      encoding: 'utf8',
    },
  );
  const printed = JSON.parse(out) as {
    url: string;
    configs: { config?: { servers?: { toolwire?: { headers?: Record<string, string> } } } }[];
  };
  const authorization = printed.configs[0]?.config?.servers?.toolwire?.headers?.Authorization;
  const secret = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  if (!secret) throw new Error('toolwire mcp-config printed no secret');
  return { url: printed.url, secret };
}

const port = Number(values.listen);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`--listen wants a port number, not ${JSON.stringify(values.listen)}\n`);
  process.exit(2);
}
const config = values.target && values.secret ? undefined : configured();
const target = values.target ?? new URL(config?.url ?? '').origin;
const proxy = await startBearerProxy({
  secret: values.secret ?? config?.secret ?? '',
  target,
  port,
});
process.stdout.write(
  `conformance proxy: ${proxy.url} -> ${target}/mcp (adds the bearer secret)\n` +
    `the host must know this port: toolwire host --forwarded-port ${proxy.port}\n` +
    `then: node --import ./scripts/conformance/register.mjs node_modules/@modelcontextprotocol/conformance/dist/index.js server --url ${proxy.url} --scenario tools-list\n`,
);
const stop = () => void proxy.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
