/**
 * The polyfill path: `window.tools` in the page, reached with `evaluate`. The functions that
 * run in the page are self-contained and return plain, serializable records.
 *
 * A call lists first (an agent reaches only what it is shown, as on the native path: not the
 * page's own tools), then calls as an agent does, JSON in and JSON out; what it rejects with
 * goes through the one mapping (`wireFailure`), which reads the polyfill's `toolCode` and
 * `issues`: the codes a host reading the same page over the wire gets.
 */
import type { Frame, Page } from '@playwright/test';
import { policyFromAnnotations, type ToolPolicy } from '@toolwire/polyfill/wire';
import { bounded } from './bounded.js';
import { evaluateFailed, pageFailure, WebMCPError } from './errors.js';
import { callInPage } from './in-page.js';
import type { WebMCPTool } from './tool.js';

type Target = Page | Frame;

interface PageTool {
  name: string;
  description: string;
  inputSchema?: unknown;
  annotations?: Record<string, unknown>;
  /** The policy the polyfill holds for it (a declared one shows in no annotation). */
  policy?: string;
}

type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; missing?: true; name: string; message: string };

const MISSING =
  'the page has no window.tools: load @toolwire/polyfill in it, or launch Chromium with --enable-features=WebMCP';

/** Lists the agent-exposed tools (those an agent, and so `page.webmcp`, would see). */
function listInPage(): Promise<Outcome<PageTool[]>> {
  type Tools = {
    getTools(options: { agentOnly: boolean }): Promise<PageTool[]>;
    sourceOf?(tool: PageTool): { entry?: { policy?: unknown }; descriptor?: { policy?: unknown } };
  };
  const tools = (globalThis as { tools?: Tools }).tools;
  if (!tools || typeof tools.getTools !== 'function')
    return Promise.resolve({ ok: false, missing: true, name: '', message: '' });
  const policyOf = (tool: PageTool): string | undefined => {
    try {
      const where = tools.sourceOf?.(tool);
      const policy = where?.entry?.policy ?? where?.descriptor?.policy;
      return typeof policy === 'string' ? policy : undefined;
    } catch {
      return undefined;
    }
  };
  return tools.getTools({ agentOnly: true }).then(
    (list) => ({
      ok: true as const,
      value: list.map((tool) => {
        const policy = policyOf(tool);
        return {
          name: tool.name,
          description: tool.description,
          ...(tool.inputSchema !== undefined ? { inputSchema: tool.inputSchema } : {}),
          ...(tool.annotations ? { annotations: { ...tool.annotations } } : {}),
          ...(policy ? { policy } : {}),
        };
      }),
    }),
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

/** The page's listing, as it came (policies included). */
async function pageTools(target: Target, toolName?: string): Promise<PageTool[]> {
  const outcome = await target.evaluate(listInPage);
  if (outcome.ok) return outcome.value;
  if (outcome.missing) throw new WebMCPError('webmcp_unavailable', MISSING, 'polyfill', toolName);
  throw new WebMCPError(
    'tool_call_failed',
    `${outcome.name}: ${outcome.message}`,
    'polyfill',
    toolName,
  );
}

export async function polyfillTools(target: Target, timeout?: number): Promise<WebMCPTool[]> {
  const list = await bounded(pageTools(target).catch(evaluateFailed('polyfill')), timeout, {
    via: 'polyfill',
  });
  return list.map(({ annotations, policy: _policy, ...tool }) => {
    const hints = annotations ? annotationsOf(annotations) : undefined;
    return hints ? { ...tool, annotations: hints } : tool;
  });
}

const POLICIES: readonly ToolPolicy[] = ['read', 'write', 'critical'];

export function polyfillCall(
  target: Target,
  name: string,
  input: Record<string, unknown>,
  timeout?: number,
): Promise<unknown> {
  let policy: ToolPolicy | undefined;
  const call = async () => {
    const tool = (await pageTools(target, name)).find((candidate) => candidate.name === name);
    if (!tool)
      throw new WebMCPError(
        'tool_not_found',
        `No agent-exposed tool named "${name}".`,
        'polyfill',
        name,
      );
    policy =
      POLICIES.find((known) => known === tool.policy) ??
      policyFromAnnotations(
        tool.annotations as Parameters<typeof policyFromAnnotations>[0] | undefined,
      );
    const outcome = await target.evaluate(callInPage, ['polyfill', name, input] as [
      'polyfill',
      string,
      unknown,
    ]);
    if (outcome.ok) return outcome.value;
    if ('missing' in outcome)
      throw new WebMCPError('webmcp_unavailable', MISSING, 'polyfill', name);
    throw pageFailure(outcome.error, 'polyfill', name, policy, tool.inputSchema);
  };
  return bounded(call().catch(evaluateFailed('polyfill', name)), timeout, {
    via: 'polyfill',
    toolName: name,
    policy: () => policy,
  });
}
