/**
 * The call, in the page (reached with `evaluate`): self-contained, and it returns a plain,
 * serializable record. On the native path it calls the browser's own
 * `document.modelContext.executeTool` (the tool this frame registered, as Playwright's
 * `page.webmcp` lists it); on the polyfill path `window.tools.callTool` as an agent calls, JSON
 * in and JSON out (`encoding: 'json'`). A rejection comes back as the properties the one mapping
 * reads (`wireFailure`: the polyfill's `toolCode` and `issues`, the DOMException's `name`...),
 * copied as JSON: an error object itself does not survive `evaluate` with them.
 */

export type CallOutcome =
  | { ok: true; value: unknown }
  | { ok: false; missing: true }
  | { ok: false; error: Record<string, unknown> };

export function callInPage([via, name, input]: [
  'native' | 'polyfill',
  string,
  unknown,
]): Promise<CallOutcome> {
  const json = (value: unknown): unknown => {
    try {
      const text = JSON.stringify(value);
      return text === undefined ? undefined : JSON.parse(text);
    } catch {
      return undefined;
    }
  };
  const snapshot = (error: unknown): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (typeof error !== 'object' || error === null) {
      out.name = 'Error';
      out.message = String(error);
      return out;
    }
    for (const key of ['name', 'message', 'toolCode', 'code']) {
      try {
        const value = (error as Record<string, unknown>)[key];
        if (typeof value === 'string') out[key] = value;
      } catch {
        // A getter that throws: left out.
      }
    }
    for (const key of ['issues', 'errors', 'cause', 'details', 'retryable']) {
      try {
        const value = json((error as Record<string, unknown>)[key]);
        if (value !== undefined) out[key] = value;
      } catch {
        // As above.
      }
    }
    return out;
  };
  const failed = (error: unknown): CallOutcome => ({ ok: false, error: snapshot(error) });

  if (via === 'native') {
    type NativeTool = { name: string; window?: unknown };
    type Context = {
      getTools(): Promise<NativeTool[]>;
      executeTool(tool: NativeTool, input: unknown): Promise<string | null>;
    };
    const context = (document as unknown as { modelContext?: Partial<Context> }).modelContext;
    if (typeof context?.getTools !== 'function' || typeof context.executeTool !== 'function')
      return Promise.resolve({ ok: false, missing: true });
    const ready = context as Context;
    return ready
      .getTools()
      .then((tools) => {
        // This frame's own, as Playwright's page.webmcp lists them.
        const tool = tools.find(
          (candidate) =>
            candidate.name === name && (!('window' in candidate) || candidate.window === window),
        );
        if (!tool)
          return failed({
            name: 'NotFoundError',
            message: `No WebMCP tool named "${name}" in this frame.`,
            toolCode: 'tool_not_found',
          });
        return ready.executeTool(tool, input).then((text): CallOutcome => {
          // The browser answers JSON text; nothing (null, "undefined") resolves null.
          if (text === null || text === undefined || text === 'undefined')
            return { ok: true, value: null };
          try {
            return { ok: true, value: JSON.parse(text) };
          } catch {
            return { ok: true, value: text };
          }
        });
      })
      .then(undefined, failed);
  }

  type Tools = { callTool(name: string, input: unknown, options: object): Promise<unknown> };
  const tools = (globalThis as { tools?: Partial<Tools> }).tools;
  if (typeof tools?.callTool !== 'function') return Promise.resolve({ ok: false, missing: true });
  return (tools as Tools)
    .callTool(name, input, { encoding: 'json' })
    .then(
      (value): CallOutcome => ({ ok: true, value: value === undefined ? null : value }),
      failed,
    );
}
