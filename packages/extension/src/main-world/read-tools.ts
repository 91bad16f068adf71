/**
 * Reading and calling a page's tools from the MAIN world: through `window.tools` where
 * toolwire runs (its listing already coalesces frames, native and form tools), else through
 * `document.modelContext` (a browser's own WebMCP, or another polyfill). Everything read here is
 * the page's word; the relay checks its shape, not its truth.
 */
import type { ToolSources, WireFailureContext } from '@toolwire/polyfill/wire';
import { WIRE_RESULT, wireFailure, wireInfo } from '@toolwire/polyfill/wire';
import type { TabCallOutcome, TabTool, TabToolPolicy, TabToolSource } from '../types.js';

interface PageTool {
  name: string;
  /** toolwire's handles say whether the tool is for agents (`naturalLanguageProperties`). */
  agentExposed?: boolean;
  title?: string;
  description?: string;
  inputSchema?: object | string;
  outputSchema?: object;
  annotations?: Record<string, unknown>;
  origin?: string;
}

interface ToolwireTools extends EventTarget {
  getTools(): Promise<PageTool[]>;
  callTool(tool: PageTool | string, input: unknown, options: object): Promise<unknown>;
  /** Where a handle's tool lives, with its wire policy (what `wireInfo` reads). */
  sourceOf?(tool: PageTool): unknown;
}

interface ModelContextLike extends EventTarget {
  getTools(): Promise<PageTool[]>;
  executeTool(tool: PageTool, input: object, options: object): Promise<string | null>;
}

/** Where this document's tools are read from now (the polyfill may install after us). */
export function toolSource(win: Window): EventTarget | undefined {
  const tools = (win as unknown as { tools?: Partial<ToolwireTools> }).tools;
  if (typeof tools?.getTools === 'function' && typeof tools.callTool === 'function')
    return tools as ToolwireTools;
  const context = (win.document as unknown as { modelContext?: Partial<ModelContextLike> })
    .modelContext;
  if (typeof context?.getTools === 'function' && typeof context.executeTool === 'function')
    return context as ModelContextLike;
  return undefined;
}

const POLICIES: readonly TabToolPolicy[] = ['read', 'write', 'critical'];

/**
 * The policy toolwire's polyfill holds for a tool, as its endpoint reads it (`wireInfo` in
 * `@toolwire/polyfill/wire`, through `tools.sourceOf`): a policy the page declared
 * (`policy: 'critical'`) shows in no annotation, and must not be read as `write`. Undefined for
 * the browser's own tools, or a `window.tools` that does not say.
 */
function declaredPolicy(tools: ToolwireTools, tool: PageTool): TabToolPolicy | undefined {
  try {
    const where = tools.sourceOf?.(tool) as
      | { entry?: { policy?: unknown }; descriptor?: { policy?: unknown } }
      | undefined;
    const policy = where?.entry?.policy ?? where?.descriptor?.policy;
    return POLICIES.find((known) => known === policy);
  } catch {
    return undefined;
  }
}

/** Whether toolwire's polyfill checks `tool`'s input and output itself (wireInfo's word). */
function checkedByPolyfill(tools: ToolwireTools, tool: PageTool): boolean {
  try {
    return (
      typeof tools.sourceOf !== 'function' ||
      wireInfo(tools as unknown as ToolSources, tool as never)?.validates !== false
    );
  } catch {
    return true;
  }
}

function policyOf(annotations: Record<string, unknown> | undefined): TabToolPolicy {
  if (annotations?.destructiveHint === true) return 'critical';
  if (annotations?.readOnlyHint === true) return 'read';
  return 'write';
}

function isFormTool(win: Window, name: string, origin: string | undefined): boolean {
  if (origin !== win.location.origin) return false;
  for (const form of win.document.querySelectorAll('form[toolname]'))
    if (form.getAttribute('toolname') === name) return true;
  return false;
}

/** The tools of this tab as the MAIN world sees them, with the handles to call them by. */
export class ToolReader {
  #win: Window;
  #handles = new Map<string, PageTool>();
  /** Each listed name's policy: a timed-out `read` tool may be called again. */
  #policies = new Map<string, TabToolPolicy>();

  constructor(win: Window) {
    this.#win = win;
  }

  async list(): Promise<TabTool[]> {
    const source = toolSource(this.#win);
    if (!source) return [];
    const toolwire = 'callTool' in source;
    const listed = await (source as ToolwireTools | ModelContextLike).getTools();
    const handles = new Map<string, PageTool>();
    const policies = new Map<string, TabToolPolicy>();
    const out: TabTool[] = [];
    for (const tool of listed) {
      const origin = typeof tool.origin === 'string' ? tool.origin : this.#win.location.origin;
      const form = isFormTool(this.#win, tool.name, origin);
      // A tool toolwire's polyfill runs (and checks) is `toolwire`; one it only lists for the
      // browser (a page's own registerTool on a browser with WebMCP) is the browser's, which the
      // bridge checks, as the page's own endpoint does (wireInfo's `validates`).
      const kind: TabToolSource = form
        ? 'declarative'
        : toolwire && checkedByPolyfill(source as ToolwireTools, tool)
          ? 'toolwire'
          : 'native';
      // A name several frames use: the first keeps it, the others are named with their origin.
      const name = handles.has(tool.name) ? `${tool.name}@${origin}` : tool.name;
      if (handles.has(name)) continue;
      handles.set(name, tool);
      const inputSchema =
        typeof tool.inputSchema === 'string' ? parseSchema(tool.inputSchema) : tool.inputSchema;
      const policy = form
        ? 'write'
        : ((toolwire ? declaredPolicy(source as ToolwireTools, tool) : undefined) ??
          policyOf(tool.annotations));
      policies.set(name, policy);
      out.push({
        name,
        title: tool.title || undefined,
        description: tool.description ?? '',
        inputSchema,
        outputSchema: tool.outputSchema,
        annotations: tool.annotations ? { ...tool.annotations } : undefined,
        origin,
        source: kind,
        policy,
        ...(toolwire && tool.agentExposed === false ? { agentExposed: false } : {}),
      } as TabTool);
    }
    this.#handles = handles;
    this.#policies = policies;
    return out;
  }

  /**
   * Calls a tool by its listed name; the result is lowered JSON (docs/lowering.md). `signal`
   * cancels it; `onProgress` (toolwire's `callTool` only: a native `executeTool` has none) gets
   * the tool's progress reports.
   */
  async call(
    name: string,
    args: unknown,
    signal: AbortSignal,
    onProgress?: (report: unknown) => void,
  ): Promise<TabCallOutcome> {
    const source = toolSource(this.#win);
    if (!source)
      return {
        ok: false,
        error: {
          code: 'tool_not_found',
          message: 'No tools here.',
          retryable: false,
          details: null,
        },
      };
    try {
      if ('callTool' in source) {
        const tool = this.#handles.get(name) ?? name;
        const result = await (source as ToolwireTools).callTool(tool, args ?? {}, {
          encoding: 'json',
          // The reader serializes the result at once (JSON text to the relay), keeping nothing:
          // a result that is JSON as it stands need not be copied first.
          [WIRE_RESULT]: true,
          signal,
          ...(onProgress ? { onProgress } : {}),
        });
        return { ok: true, result: result ?? null };
      }
      const context = source as ModelContextLike;
      const tool =
        this.#handles.get(name) ?? (await context.getTools()).find((t) => t.name === name);
      if (!tool)
        throw Object.assign(new Error(`No tool named "${name}".`), { toolCode: 'tool_not_found' });
      const text = await context.executeTool(tool, (args ?? {}) as object, { signal });
      return { ok: true, result: text === null ? null : parseResult(text) };
    } catch (error) {
      const schema = this.#handles.get(name)?.inputSchema;
      return errorOutcome(error, {
        toolId: name,
        policy: this.#policies.get(name) ?? 'write',
        cause: signal.aborted ? signal.reason : undefined,
        // A schema failure is said against the tool's schema (`qty` must be an integer >= 1).
        schemas: { input: typeof schema === 'string' ? parseSchema(schema) : schema },
      });
    }
  }
}

function parseSchema(text: string): object | undefined {
  try {
    const schema: unknown = JSON.parse(text);
    return typeof schema === 'object' && schema !== null ? schema : undefined;
  } catch {
    return undefined;
  }
}

function parseResult(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A failed call as a coded outcome: `@toolwire/polyfill/wire`'s one mapping (the code the
 * polyfill's error carries, else its DOMException name; the reason of the call's signal when it
 * aborted), with the error's name beside it for people.
 */
export function errorOutcome(
  error: unknown,
  context: WireFailureContext = { toolId: '', policy: 'write' },
): TabCallOutcome {
  const { code, message, retryable, details } = wireFailure(error, context);
  let name: unknown;
  try {
    name = (error as { name?: unknown } | null)?.name;
  } catch {
    name = undefined;
  }
  return {
    ok: false,
    error: {
      code,
      ...(typeof name === 'string' ? { name } : {}),
      message,
      retryable,
      details,
    },
  };
}
