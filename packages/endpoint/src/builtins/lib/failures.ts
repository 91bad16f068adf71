/**
 * Wire error codes the built-in tools report themselves (docs/style.md 5: one `as const` object, the
 * type derived from it), and the failures shared by several tools.
 */
import type { AvailabilityInput, ToolFailureOutcome } from '@toolwire/protocol';
import { toolFailure } from '@toolwire/protocol';

export const BUILTIN_ERROR_CODES = {
  /** The referenced node is gone; `details.refreshWith` names the tool that gives a fresh one. */
  staleNodeReference: 'stale_node_reference',
  nodeDisabled: 'node_disabled',
  actionNotSupported: 'action_not_supported',
  optionNotFound: 'option_not_found',
  invalidSelector: 'invalid_selector',
  screenshotUnavailable: 'screenshot_unavailable',
  screenshotFailed: 'screenshot_failed',
  /** Arguments the schema cannot express alone (also what the bridge reports for schema misses). */
  argumentsInvalid: 'tool_arguments_schema_invalid',
  /**
   * The tools' implementations could not be loaded (the page's `polyfill-ui-builtins.js` is not
   * served beside `endpoint.iife.js`): the polyfill's ChunkLoadError code; retryable.
   */
  chunkLoadFailed: 'toolwire_chunk_load_failed',
} as const;

export type BuiltinErrorCode = (typeof BUILTIN_ERROR_CODES)[keyof typeof BUILTIN_ERROR_CODES];

export function staleReference(nodeId: string, why: string): ToolFailureOutcome {
  return toolFailure({
    code: BUILTIN_ERROR_CODES.staleNodeReference,
    message: `Node ${nodeId} ${why}; query the page again with ui.query_nodes for a fresh reference.`,
    details: { refreshWith: 'ui.query_nodes', nodeId },
  });
}

export function invalidArguments(message: string): ToolFailureOutcome {
  return toolFailure({ code: BUILTIN_ERROR_CODES.argumentsInvalid, message });
}

/** What every built-in tool says once `dispose()` has run. */
export const DISPOSED: AvailabilityInput = {
  available: false,
  code: 'tool_unavailable',
  reason: 'The built-in UI tools of this page were disposed.',
};
