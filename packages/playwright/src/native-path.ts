/**
 * The native path: Playwright's own `page.webmcp` (or `frame.webmcp`), which reaches the
 * browser's WebMCP. A polyfill on a native browser mirrors its agent-exposed tools into the
 * browser's registry, so they are listed and called here too.
 */
import type { Frame, Page } from '@playwright/test';
import { firstLine, isTimeout, nativeCode, WebMCPError } from './errors.js';
import type { WebMCPTool } from './tool.js';

type Target = Page | Frame;

/** Playwright's answer when the browser was launched without WebMCP. */
export function isNotEnabled(error: unknown): boolean {
  return /WebMCP is not enabled/i.test(error instanceof Error ? error.message : String(error));
}

/** Playwright's own `timeout` option, given only when the caller set one. */
const bound = (timeout: number | undefined) => (timeout === undefined ? undefined : { timeout });

export async function nativeTools(target: Target, timeout?: number): Promise<WebMCPTool[]> {
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
    const code = isTimeout(message) ? 'tool_execution_timeout' : 'tool_call_failed';
    throw new WebMCPError(code, message, 'native');
  }
}

export async function nativeCall(
  target: Target,
  name: string,
  input: unknown,
  timeout?: number,
): Promise<unknown> {
  try {
    return await target.webmcp.callTool(name, (input ?? {}) as never, bound(timeout));
  } catch (error) {
    const message = firstLine(error);
    throw new WebMCPError(nativeCode(message), message, 'native', name);
  }
}
