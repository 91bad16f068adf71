/**
 * Paging cursors (docs/wire.md "Paging", a toolwire extension).
 *
 * 1. A cursor is `tw1.<offset>.<listing key>`: the position of the next tool in the listing
 *    order, and the 64-hex key of the listing it was made in (CatalogState.listingKey). It names
 *    a position and nothing else: every tool it can reach, a host could list from the first page.
 * 2. A host's cursor is read before anything else is: a non-string, more than
 *    MAX_CURSOR_LENGTH characters, another shape, or an offset outside the listing is
 *    `tool_cursor_invalid`; a well-formed cursor of another listing (the catalog or its order
 *    changed) is `tool_cursor_stale` (retryable: list again from the first page).
 * 3. Errors never echo the cursor, so a hostile one cannot travel back through them.
 */
import type { CatalogState } from './catalog.js';
import { ToolProtocolError } from './errors.js';

/** Far above an honest cursor's (under 80 characters), far below anything that costs to look at. */
export const MAX_CURSOR_LENGTH = 128;

const CURSOR = /^tw1\.(0|[1-9][0-9]{0,8})\.([0-9a-f]{64})$/;

export function encodeCursor(state: CatalogState, offset: number): string {
  return `tw1.${offset}.${state.listingKey}`;
}

/** The listing offset a host's cursor resumes at. */
export function readCursor(state: CatalogState, cursor: unknown): number {
  if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH) {
    throw invalid(
      typeof cursor === 'string'
        ? `The cursor is ${cursor.length} characters; a cursor has at most ${MAX_CURSOR_LENGTH}.`
        : `The cursor is a ${cursor === null ? 'null' : typeof cursor}, not a string.`,
    );
  }
  const match = CURSOR.exec(cursor);
  if (!match) throw invalid('The cursor is not one this page made.');
  if (match[2] !== state.listingKey) {
    throw new ToolProtocolError(
      'tool_cursor_stale',
      'The catalog changed since this cursor was made: list again from the first page.',
      { details: { revision: state.revision } },
    );
  }
  const offset = Number(match[1]);
  if (offset < 1 || offset >= state.listed.length) {
    throw invalid(`The cursor's position is outside the listing of ${state.listed.length} tools.`);
  }
  return offset;
}

function invalid(message: string): ToolProtocolError {
  return new ToolProtocolError('tool_cursor_invalid', message, {
    details: { maxLength: MAX_CURSOR_LENGTH },
  });
}
