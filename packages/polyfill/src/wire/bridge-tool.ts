/**
 * The one function that turns a page tool into its wire entry (docs/wire.md "How a page's tools
 * become entries"), whoever read the tool: the endpoint from this document's `window.tools`,
 * the toolwire extension from a tab's reader.
 *
 * - `name`: the title, else the name. `category`: declared, else the name's prefix before the
 *   first `.`, else `page`. `policy`: the caller's (declared, else the annotations rule).
 * - Schemas: `expandSchema` (webTypes as plain JSON Schema; it may throw, and the caller decides
 *   what that means); no inputSchema means `{type: "object"}`, no outputSchema `{}`.
 * - `origin` and the hints MCP clients read (toolwire extensions of the definition).
 * - A tool the polyfill validates itself (where it runs) is not checked again by the bridge.
 * - A failure becomes the wire's error through `wireFailure` (its schema failures said by
 *   schema-failure, loaded on the first), with the call's signal reason as
 *   its cause once that signal has aborted. What `run` resolves to goes out as it is (a
 *   `toolFailure(...)` outcome included: a failure already coded, such as a tab's).
 */
import type {
  AvailabilityInput,
  BridgeTool,
  SelfValidation,
  ToolContext,
  ToolPolicy,
} from '@toolwire/protocol';
import { toolFailure, toolHints } from '@toolwire/protocol';
import { wireFailureLoading } from './failure.js';
import { loadSchemaFailure } from './schema-failure.js';

/** A page tool as a reader found it: what its wire entry is made of. */
export interface PageToolEntry {
  /** Its wire id (unique in the listing; the name, or `name@host` for a second of that name). */
  id: string;
  /** Its own name: the category comes from it when none is declared. */
  name: string;
  title?: string | undefined;
  description: string;
  inputSchema?: object | undefined;
  outputSchema?: object | undefined;
  annotations?: unknown;
  /** The origin of the document that registered it. */
  origin: string;
  policy: ToolPolicy;
  category?: string | undefined;
  keywords?: readonly string[] | undefined;
  prerequisites?: readonly string[] | undefined;
  availability?: (() => AvailabilityInput) | undefined;
  /** The polyfill checks its input and output against its schemas on every call. */
  validates: boolean;
}

/** Runs the tool: resolves its JSON result (or a coded failure), rejects with what failed. */
export type RunPageTool = (
  args: Record<string, unknown>,
  context: ToolContext,
) => PromiseLike<unknown>;

const SELF_VALIDATING: SelfValidation = { arguments: true, result: true };

function categoryOf(name: string, declared: string | undefined): string {
  if (declared) return declared;
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : 'page';
}

export function toBridgeTool(
  tool: PageToolEntry,
  run: RunPageTool,
  expandSchema: (schema: object) => object,
): BridgeTool {
  const { id, policy } = tool;
  return {
    definition: {
      id,
      name: tool.title || tool.name,
      description: tool.description,
      category: categoryOf(tool.name, tool.category),
      policy,
      argumentsSchema: (tool.inputSchema
        ? expandSchema(tool.inputSchema)
        : { type: 'object' }) as Record<string, unknown>,
      resultSchema: (tool.outputSchema ? expandSchema(tool.outputSchema) : {}) as Record<
        string,
        unknown
      >,
      ...(tool.keywords ? { keywords: [...tool.keywords] } : {}),
      ...(tool.prerequisites ? { prerequisiteToolIds: [...tool.prerequisites] } : {}),
      origin: tool.origin,
      annotations: toolHints(tool.annotations),
    },
    ...(tool.availability ? { availability: tool.availability } : {}),
    ...(tool.validates ? { validates: SELF_VALIDATING } : {}),
    execute(args, context) {
      const fail = (error: unknown) => {
        const { signal } = context;
        const failed = wireFailureLoading(
          error,
          {
            toolId: id,
            policy,
            cause: signal.aborted ? signal.reason : undefined,
            schemas: { input: tool.inputSchema, output: tool.outputSchema },
          },
          loadSchemaFailure,
        );
        return 'code' in failed ? toolFailure(failed) : failed.then(toolFailure);
      };
      let running: PromiseLike<unknown>;
      try {
        running = run(args, context);
      } catch (error) {
        return fail(error);
      }
      // One hop: `run` rejects rather than throws (callTool does), so no async wrapper.
      return running.then(undefined, fail);
    },
  };
}
