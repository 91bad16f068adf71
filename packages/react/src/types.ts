/** Public types of `@toolwire/react`. */
import type { ToolDefinition, ToolExecuteContext, ToolSchema } from '@toolwire/polyfill';

/**
 * What the hooks take: a definition `toolManager.register()` accepts (a `defineTool()` one
 * included), or one whose `inputSchema` / `outputSchema` is a Standard Schema such as zod's,
 * which the hook passes through `defineTool()` itself.
 */
export interface ToolInput
  extends Omit<ToolDefinition, 'inputSchema' | 'outputSchema' | 'execute'> {
  inputSchema?: ToolSchema;
  outputSchema?: ToolSchema;
  // biome-ignore lint/suspicious/noExplicitAny: a tool declares its own input type, as in ToolDefinition.
  execute(input: any, context: ToolExecuteContext): unknown;
}

/**
 * What the hook needs of `window.toolManager`. Structural, so the
 * polyfill's IIFE (another copy of the class) and a future native toolManager both fit.
 */
export interface ToolManagerLike {
  register(tool: ToolDefinition, options?: { signal?: AbortSignal }): Promise<void>;
}

/**
 * Where the registration stands for the definition of the latest render:
 * - `pending`: not registered yet (before the first effect, while `register()` is in flight, or
 *   right after the definition's data changed and a new registration is on its way);
 * - `registered`: `register()` resolved; the tool is listed until unmount or the next change;
 * - `error`: no `window.toolManager`, or `register()` rejected (`error` says why).
 */
export type UseToolResult<Name extends string = string> =
  | { status: 'pending'; name: Name; error: undefined }
  | { status: 'registered'; name: Name; error: undefined }
  | { status: 'error'; name: Name; error: Error };
