/**
 * The page's agent tools as wire catalog entries: the top document's coalesced,
 * agent-exposed tools (frames included) mapped to `BridgeTool`s.
 *
 * - `id`: the tool's name; when two documents offer one name, the top document's own tool keeps
 *   it and the others become `name@host[:port]` (then `#2`, `#3`...), so ids are stable for as
 *   long as the same tools are registered.
 * - `name`: the title, else the name. `category`: declared, else the name's prefix before the
 *   first `.`, else `page`. `policy`: declared, else from annotations (the polyfill's rule).
 * - Schemas: `webType` expanded to plain JSON Schema; no inputSchema means `{type: "object"}`.
 * - `origin` (a toolwire extension of the definition): the document that registered the tool, so
 *   the host and MCP clients can tell a widget's tools from the page's.
 * - Every tool is listed: listings page past 1,000 (docs/wire.md "Paging"). Which come first is
 *   still fair: one listing page carries at most 1,000 tools, and the first
 *   page holds the top document's own tools and the built-ins, then frames' tools sharing what
 *   is left, split fairly by origin (a widget with 1,000 tools cannot crowd out the app, or a
 *   smaller widget). Later pages split the rest the same way, a page's worth at a time
 *   (`listingRank`), so a host that reads only the first page, as hosts without paging do, gets
 *   what it got when the listing was cut there.
 * - Calls go through `tools.callTool(..., {encoding: 'json'})`: arguments lifted, results
 *   lowered; the polyfill's errors become wire codes by `@toolwire/polyfill/wire`'s one mapping
 *   (`wireFailure`, through `toBridgeTool`, which makes every entry).
 */
import type { CallToolOptions, Tool, Tools } from '@toolwire/polyfill';
import type { ToolWireInfo } from '@toolwire/polyfill/wire';
import { toBridgeTool, WIRE_RESULT, wireInfo } from '@toolwire/polyfill/wire';
import type { AvailabilityInput, BridgeTool, ReportProgress } from '@toolwire/protocol';
import { lateSignal, noProgress } from '@toolwire/protocol';

type Expand = (schema: object) => object;

/** docs/wire.md clamps a listing's `limit` to 1..1000: the most tools one listing page holds. */
export const MAX_WIRE_TOOLS = 1000;

export interface PageToolsOptions {
  tools: Tools;
  /** The top document's origin: its own tools keep their plain names. */
  origin: string;
  expandSchema: Expand;
  /** Ids taken by built-in tools. */
  reserved: ReadonlySet<string>;
}

function hostOf(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return origin;
  }
}

type WireInfo = ToolWireInfo;

interface Listed {
  handle: Tool;
  info: WireInfo;
}

/**
 * How many of each origin's tools fit in `room`: every origin an equal share, and what one
 * origin does not use goes to the others (origins in code-unit order take the odd remainders).
 */
export function fairShares(counts: ReadonlyMap<string, number>, room: number): Map<string, number> {
  const shares = new Map<string, number>();
  for (const origin of counts.keys()) shares.set(origin, 0);
  let left = room;
  let open = [...counts.keys()].sort();
  while (left > 0 && open.length > 0) {
    const share = Math.max(1, Math.floor(left / open.length));
    const next: string[] = [];
    for (const origin of open) {
      if (left === 0) break;
      const have = shares.get(origin) ?? 0;
      const give = Math.min(share, (counts.get(origin) ?? 0) - have, left);
      shares.set(origin, have + give);
      left -= give;
      if (have + give < (counts.get(origin) ?? 0)) next.push(origin);
    }
    open = next;
  }
  return shares;
}

/**
 * The listing rank of each frame tool: the first page's room (what the page's own tools and the
 * built-ins leave) split fairly by origin is rank 0, the next 1,000 split the same way rank 1,
 * and so on. Empty when every frame tool fits in the first page (no ranks: listed by id alone).
 */
function rankFrames(options: PageToolsOptions, own: number, framed: Listed[]): Map<Listed, number> {
  const ranks = new Map<Listed, number>();
  let room = Math.max(0, MAX_WIRE_TOOLS - options.reserved.size - own);
  if (framed.length <= room) return ranks;
  const byOrigin = new Map<string, Listed[]>();
  for (const listed of framed) {
    const list = byOrigin.get(listed.handle.origin);
    if (list) list.push(listed);
    else byOrigin.set(listed.handle.origin, [listed]);
  }
  // Each origin's tools in listing order; `next` is how many of them have a rank.
  const next = new Map<string, number>();
  for (let rank = 0; ranks.size < framed.length; rank++, room = MAX_WIRE_TOOLS) {
    const counts = new Map<string, number>();
    for (const [origin, list] of byOrigin) {
      const left = list.length - (next.get(origin) ?? 0);
      if (left > 0) counts.set(origin, left);
    }
    for (const [origin, share] of fairShares(counts, room)) {
      const list = byOrigin.get(origin) ?? [];
      const from = next.get(origin) ?? 0;
      for (let i = from; i < from + share; i++) ranks.set(list[i] as Listed, rank);
      next.set(origin, from + share);
    }
  }
  return ranks;
}

/** Reads the page's agent tools now and maps them; call again when `toolchange` fires. */
export async function readPageTools(options: PageToolsOptions): Promise<BridgeTool[]> {
  const handles = await options.tools.getTools({ agentOnly: true });
  // The top document's own tools first, so they keep the plain names and always get in.
  const own: Listed[] = [];
  const framed: Listed[] = [];
  for (const handle of handles) {
    const info = wireInfo(options.tools, handle);
    if (info) (info.local ? own : framed).push({ handle, info });
  }
  const taken = new Set(options.reserved);
  const out: BridgeTool[] = [];
  // Then frames' tools of the page's origin, then the others: the earlier keeps a shared name.
  const ranks = rankFrames(options, own.length, framed);
  const frames = framed.sort(
    (a, b) =>
      Number(b.handle.origin === options.origin) - Number(a.handle.origin === options.origin),
  );
  for (const listed of [...own, ...frames]) {
    const { handle, info } = listed;
    let id = handle.name;
    if (taken.has(id)) {
      const base = `${handle.name}@${hostOf(handle.origin)}`;
      id = base;
      for (let n = 2; taken.has(id); n++) id = `${base}#${n}`;
    }
    taken.add(id);
    const tool = pageBridgeTool(options, handle, id, info);
    const rank = ranks.get(listed);
    if (rank) tool.listingRank = rank;
    out.push(tool);
  }
  return out;
}

/** One handle as the wire lists it (`@toolwire/polyfill/wire`'s toBridgeTool), called as JSON. */
function pageBridgeTool(
  options: PageToolsOptions,
  handle: Tool,
  id: string,
  info: WireInfo,
): BridgeTool {
  const ownRegistry = options.tools.sourceOf(handle)?.kind === 'registry';
  return toBridgeTool(
    {
      id,
      name: handle.name,
      title: handle.title,
      description: handle.description,
      inputSchema: handle.inputSchema,
      outputSchema: handle.outputSchema,
      annotations: handle.annotations,
      origin: handle.origin,
      policy: info.policy,
      category: info.category,
      keywords: info.keywords,
      prerequisites: info.prerequisites,
      availability: () => info.availability() as AvailabilityInput,
      // The polyfill checks input and output against these schemas on every callTool (the
      // input before lifting, the output after lowering), so the bridge does not check them
      // again. Only where the polyfill says so: a browser's native tool is not checked by it.
      validates: info.validates === true,
    },
    // callTool never throws (it rejects): toBridgeTool adds one hop, no async wrapper.
    (args, context) => {
      const call = {
        encoding: 'json',
        // This document's registry only checks the signal and listens while a call is
        // pending: it gets the run, and no AbortController is made for a call that no one
        // aborts. A browser's tool or another frame's gets a real signal.
        signal: ownRegistry ? lateSignal(context) : context.signal,
        // The bridge serializes the result at once: JSON as it is need not be copied.
        [WIRE_RESULT]: true,
      } as CallToolOptions;
      // Only for a call that asked: the others hand the polyfill no listener.
      if (context.reportProgress !== noProgress)
        call.onProgress = progressTo(context.reportProgress);
      return options.tools.callTool(handle, args, call);
    },
    options.expandSchema,
  );
}

/** The polyfill's `onProgress({progress, total, message})` as the bridge's reporter. */
function progressTo(report: ReportProgress) {
  return (update: { progress: number; total?: number; message?: string }) =>
    report(update.progress, update.total, update.message);
}

/**
 * Runs `read` one call at a time. A call made while a read runs gets the next read, which starts
 * when the running one settles and serves every call made meanwhile. So a burst of N tool changes
 * (a frame registering 1,000 tools one by one) costs two reads of the page's tools, not N
 * concurrent listings of every frame, and reads settle in the order they started: a read that
 * began before the latest change can never land after one that began after it.
 */
export function oneReadAtATime<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const run = read();
    running = run;
    const clear = () => {
      if (running === run) running = undefined;
    };
    run.then(clear, clear);
    return run;
  };
  return () => {
    // `next` first: between a read settling and the next one starting, `running` is clear.
    if (next) return next;
    if (!running) return start();
    next = running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return start();
      });
    return next;
  };
}
