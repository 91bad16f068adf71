/**
 * `toolwire pairings`: the tabs (and extensions) this user's host keeps pairings for. With a
 * host running it asks the control API (`GET /v1/pairings`), which also knows which are
 * connected now; with none, it reads the pairings file (server/pairing-file.ts) as it is.
 */

import type { PairingSummary } from '../control/pairings.js';
import { summarizePairing } from '../control/pairings.js';
import { StateFileError } from '../control/state-file.js';
import { pairingHome, readPairingFile } from '../server/pairing-file.js';
import { CliFailure, clientCommand } from './client.js';
import type { Env } from './command.js';
import { EXIT } from './command.js';
import { formatTable, printLine } from './format.js';

/** "just now", "5 minutes ago", "3 days ago". */
function ago(then: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  const unit = (count: number, name: string) => `${count} ${name}${count === 1 ? '' : 's'} ago`;
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return unit(Math.floor(seconds / 60), 'minute');
  if (seconds < 86_400) return unit(Math.floor(seconds / 3600), 'hour');
  return unit(Math.floor(seconds / 86_400), 'day');
}

/** The pairings file's records as summaries (connected: unknown), or a one-line failure. */
function pairingsOnFile(env: Env): {
  path: string;
  hostId: string | null;
  pairings: PairingSummary[];
} {
  try {
    const store = readPairingFile(pairingHome(env));
    return {
      path: store.path,
      hostId: store.identity?.id ?? null,
      pairings: store.list().map((record) => summarizePairing(record)),
    };
  } catch (error) {
    if (error instanceof StateFileError) throw new CliFailure(EXIT.failed, error.message);
    throw error;
  }
}

function table(pairings: readonly PairingSummary[]): string {
  const now = Date.now();
  return formatTable(
    ['PAIRING', 'KIND', 'ORIGIN', 'GUARD', 'CONNECTED', 'LAST SEEN'],
    pairings.map((pairing) => [
      pairing.id.slice(0, 8),
      pairing.kind,
      pairing.origin ?? '-',
      pairing.guard ?? '-',
      pairing.connected === null ? '-' : pairing.connected ? 'yes' : 'no',
      `${pairing.connected ? 'now' : ago(Date.parse(pairing.lastSeen), now)} (${pairing.lastSeen})`,
    ]),
  );
}

const NONE = 'no pairings: no tab is paired (toolwire pair --page URL makes a link)\n';

export const pairings = clientCommand({
  name: 'pairings',
  synopsis: 'pairings',
  summary: ['List the kept pairings: the tabs that reconnect with no new link.'],
  notes: [
    '',
    'Each row: the id (toolwire revoke --pairing takes it, or a prefix), how it',
    'was made (a link, or the extension), the origin, the guard the page last',
    'reported, whether a tab is connected with it now, and when it was last used.',
    'With no host running it reads the pairings file ($TOOLWIRE_HOME/pairings.json,',
    'else the state directory) and cannot say what is connected.',
  ],
  examples: ['toolwire pairings', 'toolwire pairings --json'],
  async run({ args, control, out, json }) {
    const answer = await control('/v1/pairings');
    const list = answer.pairings as PairingSummary[];
    if (args.json) json({ pairings: list, host: true, hostId: answer.hostId ?? null });
    else out(list.length === 0 ? NONE : table(list));
    return EXIT.ok;
  },
  async withoutHost({ args, io, out, json }) {
    const { path, hostId, pairings: list } = pairingsOnFile(io.env);
    if (args.json) {
      json({ pairings: list, host: false, hostId, file: path });
      return EXIT.ok;
    }
    printLine(io.stderr, `toolwire: no host is running; the pairings kept in ${path}:`);
    out(list.length === 0 ? NONE : table(list));
    return EXIT.ok;
  },
});
