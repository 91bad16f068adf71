/**
 * `webmcp(page)`: list and call a page's WebMCP tools from a Playwright test. It takes
 * Playwright's own `page.webmcp` when the browser has WebMCP enabled (Chromium launched with
 * `--enable-features=WebMCP`), and the page's `window.tools` (toolwire's polyfill) otherwise.
 * The path is chosen once, on first use, and can be forced with `{ via }`.
 */
import type { Frame, Page } from '@playwright/test';
import { firstLine, WebMCPError, type WebMCPPath } from './errors.js';
import { isNotEnabled, nativeCall, nativeTools } from './native-path.js';
import { polyfillCall, polyfillTools } from './polyfill-path.js';
import type { WebMCPTool } from './tool.js';

export interface WebMCPOptions {
  /** `'auto'` (the default) tries the native path first; the others force one path. */
  via?: 'auto' | WebMCPPath;
}

export interface WebMCPCallOptions {
  /**
   * At most this many milliseconds, then reject with `tool_execution_timeout` (retryable only
   * for a `read` tool); `0` or absent: no bound of the helper's own. A call is bounded by the
   * helper, on both paths: a tool still running in the page runs on. A native listing passes
   * it to Playwright's `page.webmcp.tools()`.
   */
  timeout?: number;
}

export interface WebMCP {
  /** The tools agents see in this page (or frame), sorted by name. */
  tools(options?: WebMCPCallOptions): Promise<WebMCPTool[]>;
  /**
   * Calls a tool with JSON arguments and resolves its result as JSON. Rejects with a
   * `WebMCPError` (`code`, `retryable`, `details`, `toolName`, `via`) when the tool is unknown,
   * refuses its input, throws, or does not settle within `options.timeout`: the codes a host
   * reading the same page over the wire gets (README "Errors").
   */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: WebMCPCallOptions,
  ): Promise<unknown>;
  /** Which path this helper uses (found out on first use). */
  via(): Promise<WebMCPPath>;
}

function timeoutOf(options: WebMCPCallOptions | undefined, method: string): number | undefined {
  const timeout = options?.timeout;
  if (timeout === undefined) return undefined;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 0)
    throw new TypeError(`webmcp().${method}: timeout must be a finite number of ms, 0 or more`);
  return timeout;
}

const byName = (a: WebMCPTool, b: WebMCPTool) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function webmcp(target: Page | Frame, options: WebMCPOptions = {}): WebMCP {
  const wanted = options.via ?? 'auto';
  if (wanted !== 'auto' && wanted !== 'native' && wanted !== 'polyfill')
    throw new TypeError(`webmcp(): unknown via ${JSON.stringify(wanted)}`);
  let chosen: Promise<WebMCPPath> | undefined =
    wanted === 'auto' ? undefined : Promise.resolve(wanted);

  // One cheap probe: Playwright's tools() throws at once when the browser has no WebMCP.
  const probe = async (): Promise<WebMCPPath> => {
    try {
      await target.webmcp.tools();
      return 'native';
    } catch (error) {
      if (isNotEnabled(error)) return 'polyfill';
      throw new WebMCPError('webmcp_unavailable', firstLine(error), 'native');
    }
  };
  const via = (): Promise<WebMCPPath> => {
    chosen ??= probe().catch((error: unknown) => {
      chosen = undefined; // a page still loading, say: the next call probes again
      throw error;
    });
    return chosen;
  };

  return {
    via,
    async tools(options) {
      const timeout = timeoutOf(options, 'tools');
      const list =
        (await via()) === 'native'
          ? await nativeTools(target, timeout)
          : await polyfillTools(target, timeout);
      return list.sort(byName);
    },
    async callTool(name, args = {}, options) {
      if (typeof name !== 'string') throw new TypeError('webmcp().callTool: name must be a string');
      const timeout = timeoutOf(options, 'callTool');
      const path = await via();
      // As the wire's check: arguments are a JSON object, or the call is refused before it starts.
      if (typeof args !== 'object' || args === null || Array.isArray(args))
        throw new WebMCPError(
          'tool_arguments_invalid',
          'The call arguments must be a JSON object.',
          path,
          name,
        );
      return path === 'native'
        ? nativeCall(target, name, args, timeout)
        : polyfillCall(target, name, args, timeout);
    },
  };
}
