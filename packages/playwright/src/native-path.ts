/**
 * The native path: the browser's own WebMCP. Tools are listed through Playwright's own
 * `page.webmcp` (or `frame.webmcp`), and called through the browser's
 * `document.modelContext.executeTool` in the page, so that its rejection is read by its
 * DOMException name rather than from Playwright's message. A polyfill on a native browser
 * mirrors its agent-exposed tools into the browser's registry, so they are listed and called
 * here too.
 *
 * What the helper checks itself comes first (the tool is listed: `tool_not_found`; the
 * arguments are an object: webmcp.ts), then the browser's rejection through the one mapping.
 * The browser reports every failure on the tool's side alike (`UnknownError`, "the invocation
 * failed"): a throw, and also input a polyfilled tool refused or a result it could not
 * serialize, so all of them are `tool_execution_exception` here (README "Errors").
 */
import type { Frame, Page } from '@playwright/test';
import { policyFromAnnotations, type ToolPolicy } from '@toolwire/polyfill/wire';
import { bounded } from './bounded.js';
import { checkArguments } from './check-arguments.js';
import {
  evaluateFailed,
  firstLine,
  isPlaywrightTimeout,
  pageFailure,
  WebMCPError,
} from './errors.js';
import { callInPage } from './in-page.js';
import type { WebMCPTool } from './tool.js';

type Target = Page | Frame;

/** Playwright's answer when the browser was launched without WebMCP. */
export function isNotEnabled(error: unknown): boolean {
  return /WebMCP is not enabled/i.test(error instanceof Error ? error.message : String(error));
}

/** Playwright's own `timeout` option, given only when the caller set one. */
const bound = (timeout: number | undefined) => (timeout === undefined ? undefined : { timeout });

async function listed(target: Target, timeout?: number): Promise<WebMCPTool[]> {
  try {
    const list = await target.webmcp.tools(bound(timeout));
    return list.map((tool) => ({
      name: tool.name,
      description: tool.description,
      ...(tool.inputSchema !== undefined ? { inputSchema: tool.inputSchema } : {}),
      ...(tool.annotations && Object.keys(tool.annotations).length > 0
        ? { annotations: { ...tool.annotations } }
        : {}),
    }));
  } catch (error) {
    const message = firstLine(error);
    if (isPlaywrightTimeout(error))
      throw new WebMCPError('tool_execution_timeout', message, 'native', undefined, {
        retryable: true,
      });
    throw new WebMCPError('tool_call_failed', message, 'native');
  }
}

export function nativeTools(target: Target, timeout?: number): Promise<WebMCPTool[]> {
  return listed(target, timeout);
}

export function nativeCall(
  target: Target,
  name: string,
  input: Record<string, unknown>,
  timeout?: number,
): Promise<unknown> {
  let policy: ToolPolicy | undefined;
  const call = async () => {
    const tool = (await listed(target)).find((candidate) => candidate.name === name);
    if (!tool)
      throw new WebMCPError(
        'tool_not_found',
        `No WebMCP tool named "${name}" is listed for this frame.`,
        'native',
        name,
      );
    policy = policyFromAnnotations({ readOnlyHint: tool.annotations?.readOnly === true });
    // The browser's executeTool runs a tool whatever its arguments (Chromium 156); every other
    // road checks them against inputSchema first, so the helper does too, as the page's own
    // endpoint checks the browser's tools (docs/browser-api.md "Installing": a call through
    // toolwire on a browser with its own WebMCP).
    if (tool.inputSchema !== undefined) {
      const refused = await checkArguments(name, tool.inputSchema, input);
      if (refused) throw refused;
    }
    const outcome = await target.evaluate(callInPage, ['native', name, input] as [
      'native',
      string,
      unknown,
    ]);
    if (outcome.ok) return outcome.value;
    if ('missing' in outcome)
      throw new WebMCPError(
        'webmcp_unavailable',
        'the page has no document.modelContext',
        'native',
        name,
      );
    throw pageFailure(outcome.error, 'native', name, policy);
  };
  return bounded(call().catch(evaluateFailed('native', name)), timeout, {
    via: 'native',
    toolName: name,
    policy: () => policy,
  });
}
