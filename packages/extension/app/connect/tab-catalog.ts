/**
 * A tab's tools as the endpoint serves them to a host (`connect({source})`): each `TabTool` of a
 * `TabToolsClient` becomes a `BridgeTool` whose execute is `client.call`.
 *
 * - Nothing is run twice: the tab's own polyfill (or browser) lifted the input, ran the tool
 *   and lowered the result; here the result goes out as it is (images and Blobs stay in their
 *   lowered JSON form) and the schemas are only expanded for the listing (`webType`s as plain
 *   JSON Schema, as a page's endpoint lists them, so the host still sees an image result).
 * - A coded failure keeps its code (`tab_gone` too), its `retryable` and its (clipped) details;
 *   its message is the page's word. The tab's reader coded it with the one mapping the page's
 *   own endpoint uses (`wireFailure`), and every entry is made by the one function
 *   (`toBridgeTool`), so a tab's tool reads as the page's own would.
 * - The policy is the tab's (or, absent, the one annotations rule), so the guard picked for
 *   the tab and the host's grant still apply; each tool keeps the origin of its document.
 * - A tool toolwire's polyfill runs in the tab was checked there against its schemas; other
 *   tools (the browser's own, forms) are checked by the bridge, as on a page.
 * - Only agent-exposed tools are served (a toolwire tool without `naturalLanguageProperties`
 *   is for the page's own code), as the page's own endpoint serves them.
 * - On a change the client's new list is served (no second read of the tab).
 */
import type { ToolCatalogSource } from '@toolwire/endpoint';
import { expandSchema } from '@toolwire/lowering';
import { policyFromAnnotations, toBridgeTool } from '@toolwire/polyfill/wire';
import type { BridgeTool, JsonValue, ToolPolicy } from '@toolwire/protocol';
import { defaultRetryable, noProgress, toolFailure } from '@toolwire/protocol';
import type { TabCallOutcome, TabProgress, TabTool, TabToolsClient } from '../../src/types.js';

function policyOf(tool: TabTool): ToolPolicy {
  const declared = tool.policy;
  if (declared === 'read' || declared === 'write' || declared === 'critical') return declared;
  return policyFromAnnotations(tool.annotations as Parameters<typeof policyFromAnnotations>[0]);
}

/** A schema as the listing shows it; a schema that cannot be expanded is listed as it is. */
function listed(schema: object): object {
  try {
    return expandSchema(schema as Parameters<typeof expandSchema>[0]) as object;
  } catch {
    return schema;
  }
}

/**
 * The bridge's outcome for a tab's call outcome: the result, or the tab's coded failure as it
 * is (the tab's reader coded it with `@toolwire/polyfill/wire`'s wireFailure; the extension's
 * own codes, `tab_gone`, `tool_call_cancelled`..., come from its background). `retryable` is
 * the tab's when it says, else the code's default in the table.
 */
function answer(outcome: TabCallOutcome): unknown {
  if (outcome.ok) return outcome.result;
  const { code, message, retryable, details } = outcome.error;
  const wireCode = typeof code === 'string' && code !== '' ? code : 'tool_execution_failed';
  return toolFailure({
    code: wireCode,
    message: String(message),
    retryable: typeof retryable === 'boolean' ? retryable : defaultRetryable(wireCode),
    details: (details ?? null) as JsonValue | null,
  });
}

/** One tab tool as the bridge serves it (`@toolwire/polyfill/wire`'s toBridgeTool). */
export function bridgeToolOf(client: TabToolsClient, tool: TabTool): BridgeTool {
  return toBridgeTool(
    {
      id: tool.name,
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
      origin: tool.origin,
      policy: policyOf(tool),
      // The polyfill checks its own tools, and a form decides what a call may fill (as through
      // executeTool): only the browser's other tools are checked by the bridge.
      validates: tool.source !== 'native',
    },
    // The host's cancel and deadline abort `signal`, which cancels the call in the tab; the
    // tool's progress goes back as the host's (only when the host asked for it). A client that
    // rejects (it should not) fails through wireFailure, as a page's tool would.
    (args, context) => {
      const report = context.reportProgress;
      return client
        .call(tool.name, args, {
          signal: context.signal,
          ...(report !== noProgress
            ? {
                onProgress: ({ progress, total, message }: TabProgress) =>
                  report(progress, total, message),
              }
            : {}),
        })
        .then(answer);
    },
    listed,
  );
}

/**
 * The tools of `client`'s tab, as a `connect({source})` serves them: with `origin`, only the
 * tools of that origin (one host session per frame origin).
 */
export function tabCatalog(client: TabToolsClient, origin?: string): ToolCatalogSource {
  const mine = (tool: TabTool) => origin === undefined || tool.origin === origin;
  /** The list the last change brought, not yet served. */
  let pushed: TabTool[] | undefined;
  return {
    async read() {
      const tools = pushed ?? (await client.list());
      pushed = undefined;
      // Only agent-exposed tools go on the wire, as from the page's own endpoint.
      return tools
        .filter((tool) => tool.agentExposed !== false && mine(tool))
        .map((tool) => bridgeToolOf(client, tool));
    },
    subscribe(listener) {
      return client.onChange((tools) => {
        pushed = tools;
        listener();
      });
    },
  };
}
