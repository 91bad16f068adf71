/**
 * The polyfill path: `window.tools` in the page, reached with `evaluate`. The functions below
 * run in the page, so they are self-contained and return plain, serializable records.
 */
import type { Frame, Page } from '@playwright/test';
import { polyfillCode, WebMCPError } from './errors.js';
import type { WebMCPTool } from './tool.js';

type Target = Page | Frame;

interface PageTool {
  name: string;
  description: string;
  inputSchema?: unknown;
  annotations?: Record<string, unknown>;
}

type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; missing?: true; name: string; message: string };

const MISSING =
  'the page has no window.tools: load @toolwire/polyfill in it, or launch Chromium with --enable-features=WebMCP';

/** Lists the agent-exposed tools (those an agent, and so `page.webmcp`, would see). */
function listInPage(): Promise<Outcome<PageTool[]>> {
  type Tools = { getTools(options: { agentOnly: boolean }): Promise<PageTool[]> };
  const tools = (globalThis as { tools?: Tools }).tools;
  if (!tools || typeof tools.getTools !== 'function')
    return Promise.resolve({ ok: false, missing: true, name: '', message: '' });
  return tools.getTools({ agentOnly: true }).then(
    (list) => ({
      ok: true as const,
      value: list.map((tool) => ({
        name: tool.name,
        description: tool.description,
        ...(tool.inputSchema !== undefined ? { inputSchema: tool.inputSchema } : {}),
        ...(tool.annotations ? { annotations: { ...tool.annotations } } : {}),
      })),
    }),
    (error: { name?: unknown; message?: unknown }) => ({
      ok: false as const,
      name: String(error?.name ?? 'Error'),
      message: String(error?.message ?? error),
    }),
  );
}

/** Calls a tool as an agent would: an agent-exposed one, JSON in, JSON out (`encoding: 'json'`). */
function callInPage([name, input]: [string, unknown]): Promise<Outcome<unknown>> {
  type Tools = {
    getTools(options: { agentOnly: boolean }): Promise<{ name: string }[]>;
    callTool(name: string, input: unknown, options: object): Promise<unknown>;
  };
  const tools = (globalThis as { tools?: Tools }).tools;
  if (!tools || typeof tools.callTool !== 'function')
    return Promise.resolve({ ok: false, missing: true, name: '', message: '' });
  // An agent reaches only what it is shown (as on the native path): not the page's own tools.
  const listed = tools
    .getTools({ agentOnly: true })
    .then((list) => list.some((tool) => tool.name === name));
  return listed
    .then((found) => {
      if (!found)
        throw { name: 'NotFoundError', message: `No agent-exposed tool named "${name}".` };
      return tools.callTool(name, input, { encoding: 'json' });
    })
    .then(
      (value) => ({ ok: true as const, value }),
      (error: { name?: unknown; message?: unknown }) => ({
        ok: false as const,
        name: String(error?.name ?? 'Error'),
        message: String(error?.message ?? error),
      }),
    );
}

/** The polyfill's annotation hints, in the names Playwright's `webmcp.tools()` uses. */
function annotationsOf(hints: Record<string, unknown>): WebMCPTool['annotations'] {
  const out: NonNullable<WebMCPTool['annotations']> = {};
  if (typeof hints.readOnlyHint === 'boolean') out.readOnly = hints.readOnlyHint;
  if (typeof hints.untrustedContentHint === 'boolean')
    out.untrustedContent = hints.untrustedContentHint;
  if (typeof hints.consequentialHint === 'boolean') out.consequential = hints.consequentialHint;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * `work` (an `evaluate`), bounded by `timeout` ms when one is given: past it, rejects with
 * `tool_execution_timeout`. The page is not told: a tool still running there runs on, and its
 * late answer is dropped.
 */
function bounded<T>(work: Promise<T>, timeout: number | undefined, toolName?: string): Promise<T> {
  if (timeout === undefined || timeout === 0) return work;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const what = toolName === undefined ? 'the tool listing' : `tool "${toolName}"`;
      const message = `Timeout ${timeout}ms exceeded: ${what} did not settle`;
      reject(new WebMCPError('tool_execution_timeout', message, 'polyfill', toolName));
    }, timeout);
  });
  work.catch(() => {}); // a page closed after the timeout must not reject unhandled
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export async function polyfillTools(target: Target, timeout?: number): Promise<WebMCPTool[]> {
  const outcome = await bounded(target.evaluate(listInPage), timeout);
  if (!outcome.ok) {
    if (outcome.missing) throw new WebMCPError('webmcp_unavailable', MISSING, 'polyfill');
    throw new WebMCPError('tool_call_failed', `${outcome.name}: ${outcome.message}`, 'polyfill');
  }
  return outcome.value.map(({ annotations, ...tool }) => {
    const hints = annotations ? annotationsOf(annotations) : undefined;
    return hints ? { ...tool, annotations: hints } : tool;
  });
}

export async function polyfillCall(
  target: Target,
  name: string,
  input: unknown,
  timeout?: number,
): Promise<unknown> {
  const call = target.evaluate(callInPage, [name, input] as [string, unknown]);
  const outcome = await bounded(call, timeout, name);
  if (outcome.ok) return outcome.value;
  if (outcome.missing) throw new WebMCPError('webmcp_unavailable', MISSING, 'polyfill', name);
  const code = polyfillCode(outcome.name);
  throw new WebMCPError(code, `${outcome.name}: ${outcome.message}`, 'polyfill', name);
}
