/**
 * The built `toolwire mcp` as an MCP client meets it: the process launched over stdio by the
 * SDK's own client, with its stderr collected, or left unread as clients that hide it do.
 */
import { expect } from '@playwright/test';
import type { Client } from '../../packages/host/test/mcp-client.js';
import { CLI, E2E_HOME } from './cli.js';

export interface McpProcess {
  client: Client;
  /** What the process has written to stderr so far ('' when it is unread). */
  stderr(): string;
  /** The ws:// address (token included) its own host printed on stderr. */
  hostUrl(): Promise<string>;
  close(): Promise<void>;
}

export interface McpLaunchOptions {
  /** `ignore`: stderr unread, as an MCP client that hides it. Default `pipe` (collected). */
  stderr?: 'pipe' | 'ignore';
  /** Runs before the client connects (e.g. to set notification handlers). */
  beforeConnect?(client: Client): void;
}

/** `toolwire mcp ARGS` with only PATH and `env` in its environment, connected. */
export async function launchMcp(
  args: string[],
  env: Record<string, string>,
  options: McpLaunchOptions = {},
): Promise<McpProcess> {
  const { Client, StdioClientTransport } = await import('../../packages/host/test/mcp-client.js');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: { PATH: process.env.PATH ?? '', TOOLWIRE_HOME: E2E_HOME, ...env },
    stderr: options.stderr ?? 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const client = new Client({ name: 'toolwire-e2e', version: '0.0.0' });
  options.beforeConnect?.(client);
  await client.connect(transport);
  const url = () => /url: '([^']+)'/.exec(stderr)?.[1];
  return {
    client,
    stderr: () => stderr,
    async hostUrl() {
      await expect.poll(url).toBeTruthy();
      return url() as string;
    },
    close: () => client.close(),
  };
}
