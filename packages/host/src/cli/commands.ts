/**
 * Every `toolwire` subcommand, in the order the help lists them. A new subcommand is a file of
 * its own (a Command; client.ts's `clientCommand` for one that asks the control API) and one
 * line here.
 */
import { batch } from './batch.js';
import { call } from './call.js';
import type { Command } from './command.js';
import { host } from './host.js';
import { mcp } from './mcp.js';
import { mcpConfig } from './mcp-config.js';
import { pair } from './pair.js';
import { pairings } from './pairings.js';
import { revoke } from './revoke.js';
import { sessions } from './sessions.js';
import { tools } from './tools.js';

export const COMMANDS: readonly Command[] = [
  host,
  mcp,
  mcpConfig,
  sessions,
  tools,
  call,
  batch,
  pair,
  pairings,
  revoke,
];

export function findCommand(name: string | undefined): Command | undefined {
  return COMMANDS.find((command) => command.name === name);
}
