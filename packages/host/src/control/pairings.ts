/**
 * Pairings as the control API and `toolwire pairings` show them, and how an id prefix names
 * one (`toolwire revoke --pairing`), with a host running or from the pairings file alone.
 *
 * 1. Never the secret: an id (the public one), origin, guard, kind, created and last seen
 *    (ISO), and whether a session is open with it now (`connected`: unknown, null, without a
 *    running host).
 * 2. A prefix names a pairing when exactly one id starts with it (an exact id always does);
 *    two or more is ambiguous, and the refusal names them all.
 */
import type { PairingRecord } from '../server/pairing-store.js';

export interface PairingSummary {
  id: string;
  origin: string | null;
  kind: PairingRecord['kind'];
  guard: string | null;
  createdAt: string;
  lastSeen: string;
  /** A session is open with it now; null: not known (no host running). */
  connected: boolean | null;
  /** The open sessions' ids (empty without a running host). */
  sessions: string[];
}

export function summarizePairing(
  record: Omit<PairingRecord, 'secret'> & { sessions?: string[] },
  connected: boolean | null = record.sessions ? record.sessions.length > 0 : null,
): PairingSummary {
  return {
    id: record.id,
    origin: record.origin,
    kind: record.kind,
    guard: record.guard ?? null,
    createdAt: new Date(record.createdAt).toISOString(),
    lastSeen: new Date(record.lastSeen).toISOString(),
    connected,
    sessions: record.sessions ?? [],
  };
}

/** The one pairing `prefix` names (header 2), or why not. */
export function findPairing<T extends { id: string }>(
  pairings: readonly T[],
  prefix: string,
): { found: T } | { found: undefined; matches: T[] } {
  const exact = pairings.find((pairing) => pairing.id === prefix);
  if (exact) return { found: exact };
  const matches = prefix === '' ? [] : pairings.filter((pairing) => pairing.id.startsWith(prefix));
  return matches.length === 1 ? { found: matches[0] as T } : { found: undefined, matches };
}

/** "1a2b3c4d http://localhost:5173, 1a2bffee http://127.0.0.1:5173" (raw: printers escape). */
export function pairingList(pairings: readonly { id: string; origin: string | null }[]): string {
  return pairings
    .map((pairing) => `${pairing.id.slice(0, 8)} ${pairing.origin ?? '(no origin)'}`)
    .join(', ');
}
