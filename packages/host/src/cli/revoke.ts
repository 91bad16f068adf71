/**
 * `toolwire revoke SESSION | --pairing ID | --all`: ends a paired tab's session and forgets its
 * pairing, so it neither stays connected nor reconnects (closed with 4403).
 *
 * - SESSION: a session id or prefix (toolwire sessions); its pairing goes with it.
 * - `--pairing ID`: a pairing id or prefix (toolwire pairings); `--all`: every pairing.
 *   With no host running, these two edit the pairings file directly.
 */
import type { PairingSummary } from '../control/pairings.js';
import { findPairing, pairingList, summarizePairing } from '../control/pairings.js';
import { StateFileError } from '../control/state-file.js';
import { pairingHome, readPairingFile } from '../server/pairing-file.js';
import { escapeLine } from '../shared/terminal-text.js';
import type { NoHostFailure } from './client.js';
import { CliFailure, clientCommand } from './client.js';
import type { ClientArgs } from './command.js';
import { EXIT } from './command.js';
import { printLine, sessionLine } from './format.js';

/** What to revoke: exactly one of a session, --pairing or --all. */
function target(args: ClientArgs): { session: string } | { pairing: string } | { all: true } {
  const given = [args.session !== undefined, args.pairing !== undefined, args.all === true];
  if (given.filter(Boolean).length !== 1) {
    throw new CliFailure(EXIT.usage, 'give one of SESSION, --pairing ID or --all');
  }
  if (args.session !== undefined) return { session: args.session };
  if (args.pairing !== undefined) {
    if (args.pairing === '') throw new CliFailure(EXIT.usage, '--pairing needs an id');
    return { pairing: args.pairing };
  }
  return { all: true };
}

const pairingLine = (pairing: PairingSummary) =>
  escapeLine(
    `pairing ${pairing.id.slice(0, 8)}  ${pairing.kind}  ${pairing.origin ?? '(no origin)'}`,
  );

function report(revoked: PairingSummary[], all: boolean): string {
  const lines = revoked.map((pairing) => `revoked ${pairingLine(pairing)}`);
  if (all) lines.push(`revoked ${revoked.length} pairing${revoked.length === 1 ? '' : 's'}`);
  return `${lines.join('\n')}\n`;
}

export const revoke = clientCommand({
  name: 'revoke',
  synopsis: 'revoke SESSION',
  summary: [
    "End a paired tab's session and forget its pairing (--pairing ID: one",
    'pairing, --all: every one); the tab does not reconnect.',
  ],
  options: ['pairing', 'all'],
  notes: ['', 'With no host running, --pairing and --all edit the pairings file.'],
  positional: { label: 'SESSION', field: 'session', optional: true },
  examples: [
    'toolwire revoke 1a2b3c4d             # a session id or prefix, from toolwire sessions',
    'toolwire revoke --pairing 9f8e7d6c   # a pairing id or prefix, from toolwire pairings',
    'toolwire revoke --all                # every pairing',
  ],
  async run({ args, control, out, json }) {
    const what = target(args);
    const answer = await control('/v1/revoke', what);
    if ('session' in what) {
      if (args.json) json({ revoked: answer.session });
      else out(`revoked ${sessionLine(answer.session)}\n`);
      return EXIT.ok;
    }
    const revoked = answer.revoked as PairingSummary[];
    if (args.json) json({ revoked, host: true });
    else out(report(revoked, 'all' in what));
    return EXIT.ok;
  },
  async withoutHost({ args, io, out, json }, failure: NoHostFailure) {
    const what = target(args);
    if ('session' in what) throw failure; // sessions live in a running host only
    let revoked: PairingSummary[];
    try {
      const store = readPairingFile(pairingHome(io.env));
      const records = store.list();
      if ('all' in what) {
        store.clear();
        revoked = records.map(summaryOf);
      } else {
        const match = findPairing(records, what.pairing);
        if (!match.found) {
          throw new CliFailure(
            EXIT.usage,
            match.matches.length > 1
              ? `pairing_ambiguous: Pairing "${what.pairing}" matches ${match.matches.length} pairings: ${pairingList(match.matches)}; give more of the id`
              : `pairing_not_found: No pairing "${what.pairing}".`,
          );
        }
        store.delete(match.found.id);
        revoked = [summaryOf(match.found)];
      }
    } catch (error) {
      if (error instanceof StateFileError) throw new CliFailure(EXIT.failed, error.message);
      throw error;
    }
    if (args.json) json({ revoked, host: false });
    else {
      printLine(io.stderr, 'toolwire: no host is running; revoked in the pairings file');
      out(report(revoked, 'all' in what));
    }
    return EXIT.ok;
  },
});

function summaryOf(record: Parameters<typeof summarizePairing>[0]): PairingSummary {
  return summarizePairing(record, null);
}
