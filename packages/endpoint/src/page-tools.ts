/**
 * The page's agent tools as wire catalog entries (issue 6): the top document's coalesced,
 * agent-exposed tools (frames included) mapped to `BridgeTool`s.
 *
 * - `id`: the tool's name; when two documents offer one name, the top document's own tool keeps
 *   it and the others become `name@host[:port]` (then `#2`, `#3`...), so ids are stable for as
 *   long as the same tools are registered.
 * - `name`: the title, else the name. `category`: declared, else the name's prefix before the
 *   first `.`, else `page`. `policy`: declared, else from annotations (the polyfill's rule).
 * - Schemas: `webType` expanded to plain JSON Schema; no inputSchema means `{type: "object"}`.
 * - Calls go through `tools.callTool(..., {encoding: 'json'})`: arguments lifted, results
 *   lowered; the polyfill's errors become wire codes.
 */
import type { CallToolOptions, Tool, Tools } from '@toolwire/polyfill';
import type { AvailabilityInput, BridgeTool, JsonValue } from '@toolwire/protocol';
import { toolFailure } from '@toolwire/protocol';

type Expand = (schema: object) => object;

/** The polyfill's `WIRE_RESULT` option key (a registered symbol, so any copy reads it). */
const WIRE_RESULT = Symbol.for('toolwire.wireResult');

export interface PageToolsOptions {
  tools: Tools;
  /** The top document's origin: its own tools keep their plain names. */
  origin: string;
  expandSchema: Expand;
  /** Ids taken by built-in tools. */
  reserved: ReadonlySet<string>;
}

function categoryOf(name: string, declared: string | undefined): string {
  if (declared) return declared;
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : 'page';
}

function hostOf(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return origin;
  }
}

/** The wire error for something callTool threw. */
export function wireFailure(error: unknown) {
  const name = (error as { name?: unknown })?.name;
  const message = String((error as { message?: unknown })?.message ?? error);
  switch (name) {
    case 'DataError':
      return toolFailure({
        code: 'tool_arguments_schema_invalid',
        message,
        details: ((error as { errors?: unknown }).errors ?? null) as JsonValue,
      });
    case 'ToolExecutionError':
      return toolFailure({
        code: 'tool_execution_exception',
        message,
        details: ((error as { cause?: unknown }).cause ?? null) as JsonValue,
      });
    case 'OperationError':
      return toolFailure({ code: 'tool_result_schema_invalid', message });
    case 'NotFoundError':
      return toolFailure({ code: 'tool_not_found', message });
    case 'AbortError':
    case 'TimeoutError':
      return toolFailure({ code: 'tool_execution_timeout', message, retryable: true });
    default:
      return toolFailure({ code: 'tool_execution_failed', message });
  }
}

/** Reads the page's agent tools now and maps them; call again when `toolchange` fires. */
export async function readPageTools(options: PageToolsOptions): Promise<BridgeTool[]> {
  const handles = await options.tools.getTools({ agentOnly: true });
  // The top document's own tools first, so they keep the plain names.
  const ordered = [...handles].sort(
    (a, b) => Number(b.origin === options.origin) - Number(a.origin === options.origin),
  );
  const taken = new Set(options.reserved);
  const out: BridgeTool[] = [];
  for (const handle of ordered) {
    const info = options.tools.wireInfo(handle);
    if (!info) continue;
    let id = handle.name;
    if (taken.has(id)) {
      const base = `${handle.name}@${hostOf(handle.origin)}`;
      id = base;
      for (let n = 2; taken.has(id); n++) id = `${base}#${n}`;
    }
    taken.add(id);
    out.push(toBridgeTool(options, handle, id, info));
  }
  return out;
}

function toBridgeTool(
  options: PageToolsOptions,
  handle: Tool,
  id: string,
  info: NonNullable<ReturnType<Tools['wireInfo']>>,
): BridgeTool {
  const argumentsSchema = handle.inputSchema
    ? options.expandSchema(handle.inputSchema)
    : { type: 'object' };
  const resultSchema = handle.outputSchema ? options.expandSchema(handle.outputSchema) : {};
  return {
    definition: {
      id,
      name: handle.title || handle.name,
      description: handle.description,
      category: categoryOf(handle.name, info.category),
      policy: info.policy,
      argumentsSchema: argumentsSchema as Record<string, unknown>,
      resultSchema: resultSchema as Record<string, unknown>,
      keywords: info.keywords,
      prerequisiteToolIds: info.prerequisites,
    },
    availability: () => info.availability() as AvailabilityInput,
    execute(args, context) {
      // callTool never throws (it rejects), so no async wrapper: one promise hop fewer a call.
      return options.tools
        .callTool(handle, args, {
          encoding: 'json',
          signal: context.signal,
          // The bridge serializes the result at once: JSON as it is need not be copied.
          [WIRE_RESULT]: true,
        } as CallToolOptions)
        .then(undefined, wireFailure);
    },
  };
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
