/**
 * The calls e2e/extension-provide.e2e.ts makes on the WebMCP corpus (e2e/pages/webmcp-corpus/),
 * with what toolwire answers through the extension's provided polyfill (the panel, `toolwire
 * call` and MCP alike) and what Chromium's own WebMCP answers for the same arguments. Where the
 * two differ, the case names its entry in PROVIDED_NATIVE_DIFFERENCES (docs/extension.md lists
 * the same), and the native run asserts that it still differs, so the list cannot go stale.
 */

/** A call's answer, reduced to what every road reports: the value, or the wire code. */
export type CorpusAnswer =
  | { ok: true; value: unknown }
  | { ok: false; code: string; message?: string };

export interface CorpusCase {
  page: string;
  tool: string;
  args: Record<string, unknown>;
  /** The answer on every toolwire road (code only, for a failure). */
  toolwire: CorpusAnswer;
  /** A failure's message on the CLI and MCP roads (what the tool threw). */
  toolwireMessage?: RegExp;
  /** The tool submits a form that loads another document. */
  navigates?: boolean;
  /** The key of the listed difference, when native Chromium answers otherwise. */
  difference?: keyof typeof PROVIDED_NATIVE_DIFFERENCES;
  /** What native Chromium answers, where it differs. */
  native?: CorpusAnswer;
}

/**
 * How the native answers are read: `executeTool`'s text parsed as JSON (else kept as text), and
 * a rejection's DOMException name as the wire code toolwire gives it (docs/wire.md).
 */
export const NATIVE_ERROR_CODES: Readonly<Record<string, string>> = {
  UnknownError: 'tool_execution_exception',
  DataError: 'tool_arguments_schema_invalid',
  NotAllowedError: 'tool_execution_denied',
  AbortError: 'tool_call_cancelled',
};

/** Where Chromium's own WebMCP answers a corpus call otherwise than toolwire's provided one. */
export const PROVIDED_NATIVE_DIFFERENCES = {
  'arguments are checked':
    'toolwire checks arguments against the tool’s inputSchema (enum, pattern, required…) on every road and answers tool_arguments_schema_invalid without running the tool; Chromium’s own executeTool runs the tool whatever the arguments.',
  'a throw names its error':
    'A tool that throws answers tool_execution_exception on both, but toolwire’s message (and details) carry what the tool threw; Chromium rejects with a generic UnknownError that says nothing of it.',
} as const;

const flights = 'flights.html';

export const CORPUS_CASES: readonly CorpusCase[] = [
  {
    page: flights,
    tool: 'searchFlights',
    args: { origin: 'AMS', destination: 'LIS', cabin: 'business', passengers: 2 },
    toolwire: {
      ok: true,
      value: { flights: [{ id: 'AMS-LIS-1', cabin: 'business', passengers: 2, price: 240 }] },
    },
  },
  {
    page: flights,
    tool: 'searchFlights',
    args: { origin: 'AMS', destination: 'LIS', cabin: 'first' },
    toolwire: { ok: false, code: 'tool_arguments_schema_invalid' },
    difference: 'arguments are checked',
    native: {
      ok: true,
      value: { flights: [{ id: 'AMS-LIS-1', cabin: 'first', passengers: 1, price: 120 }] },
    },
  },
  {
    page: flights,
    tool: 'searchFlights',
    args: { origin: 'ams', destination: 'LIS' },
    toolwire: { ok: false, code: 'tool_arguments_schema_invalid' },
    difference: 'arguments are checked',
    native: {
      ok: true,
      value: { flights: [{ id: 'ams-LIS-1', cabin: 'economy', passengers: 1, price: 120 }] },
    },
  },
  {
    page: flights,
    tool: 'bookFlight',
    args: { flightId: 'AMS-LIS-1' },
    toolwire: { ok: true, value: 'Booked AMS-LIS-1' },
  },
  {
    page: flights,
    tool: 'bookFlight',
    args: { flightId: 'AMS-LIS-2' },
    toolwire: { ok: false, code: 'tool_execution_exception' },
    toolwireMessage: /sold out/,
    difference: 'a throw names its error',
  },
  {
    page: flights,
    tool: 'getBaggagePolicy',
    args: { cabin: 'premium' },
    toolwire: {
      ok: true,
      value: { content: [{ type: 'text', text: 'premium: 1 bag of 23 kg' }] },
    },
  },
  {
    page: 'todos.html',
    tool: 'listTodos',
    args: {},
    toolwire: { ok: true, value: { todos: [{ id: 1, text: 'Buy milk', done: false }] } },
  },
  {
    page: 'todos.html',
    tool: 'removeTodo',
    args: { id: 99 },
    toolwire: { ok: false, code: 'tool_execution_exception' },
    toolwireMessage: /No todo with id 99/,
    difference: 'a throw names its error',
  },
  {
    page: 'restaurant.html',
    tool: 'book_table',
    args: { name: 'Ada', guests: '4', seating: 'terrace' },
    toolwire: {
      ok: true,
      value: { name: 'Ada', guests: 4, seating: 'terrace', confirmation: 'T-42' },
    },
  },
  {
    page: 'catalog.html',
    tool: 'showCategory',
    args: { category: 'hats' },
    toolwire: {
      ok: true,
      value: { shown: 'hats', url: '/e2e/pages/webmcp-corpus/catalog.html#hats' },
    },
  },
  {
    page: 'catalog.html',
    tool: 'search_products',
    args: { q: 'boots' },
    navigates: true,
    toolwire: { ok: true, value: null },
  },
];
