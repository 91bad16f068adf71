/**
 * What the commands print: tables, clipped cells, result bodies and session lines. A page's
 * ids, titles, URLs, descriptions, results and messages go through shared/terminal-text.ts on
 * the way, so they never reach the terminal with a raw control character.
 */
import type { Writable } from 'node:stream';
import { escapeBody, escapeLine, stringifySafe } from '../shared/terminal-text.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON from the control API, read defensively.
export type Loose = any;

/** Writes one line to `stream`, every control character in it made visible. */
export function printLine(stream: Writable, line: string): void {
  stream.write(`${escapeLine(line)}\n`);
}

/**
 * Columns padded to their widest cell; the last column is not padded. Every cell is escaped
 * as one line first (a page's text cannot break the table or reach the terminal raw).
 */
export function formatTable(headers: string[], rows: string[][]): string {
  const cells = rows.map((row) => row.map((cell) => escapeLine(cell)));
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...cells.map((row) => (row[column] ?? '').length)),
  );
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(headers), ...cells.map(line)].join('\n')}\n`;
}

/** One line of at most `max` characters, runs of white space made one space. */
export function clip(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A value as a multi-line body: a string as it is, anything else as JSON; escaped. */
export function render(value: unknown): string {
  return typeof value === 'string' ? escapeBody(value) : stringifySafe(value);
}

/** "session 1a2b3c4d  ORIGIN  TITLE  URL  (grant read, page guard read-only)", escaped. */
export function sessionLine(session: Record<string, Loose>): string {
  const page = session.page
    ? `${session.page.title || '(untitled)'}  ${session.page.url}`
    : '(no session.open yet)';
  const guard = session.guard ? `, page guard ${session.guard}` : '';
  return escapeLine(
    `session ${String(session.id).slice(0, 8)}  ${session.origin ?? '(no origin)'}  ${page}  (grant ${session.grant}${guard})`,
  );
}

/**
 * "2 tools above the host's grant (read): notes.add (write), ...; restart the host with
 * --max-tool-policy write to call them" or nothing (a refused grant names the way out).
 */
export function ungrantedLine(
  session: Record<string, Loose>,
  tools: readonly Record<string, Loose>[],
): string | undefined {
  const above = tools.filter((tool) => tool.granted === false);
  if (above.length === 0) return undefined;
  const needed = above.some((tool) => tool.policy === 'critical') ? 'critical' : 'write';
  const shown = above.slice(0, 8).map((tool) => `${tool.id} (${tool.policy})`);
  if (above.length > shown.length) shown.push(`${above.length - shown.length} more`);
  const count = `${above.length} tool${above.length === 1 ? '' : 's'}`;
  return escapeLine(
    `${count} above the host's grant (${session.grant}): ${shown.join(', ')}; restart the host with --max-tool-policy ${needed} to call ${above.length === 1 ? 'it' : 'them'}`,
  );
}

/** "2 tools hidden by the page's guard (read-only): cart.add (write), ..." or nothing. */
export function hiddenLine(session: Record<string, Loose>): string | undefined {
  const hidden = Array.isArray(session.hidden) ? (session.hidden as Loose[]) : [];
  if (hidden.length === 0) return undefined;
  const shown = hidden.slice(0, 8).map((tool) => `${tool.id} (${tool.policy})`);
  if (hidden.length > shown.length) shown.push(`${hidden.length - shown.length} more`);
  const count = `${hidden.length} tool${hidden.length === 1 ? '' : 's'}`;
  return escapeLine(
    `${count} hidden by the page's guard (${session.guard ?? 'unknown'}): ${shown.join(', ')}; the page's author sets the guard (data-toolwire-guard, or connect({ guard }))`,
  );
}
