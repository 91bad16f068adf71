/**
 * `window.tools` (API.md "Reading and calling"): getTools, callTool, of, and `toolchange`.
 *
 * callTool, in order: find the tool (NotFoundError), the permission (NotAllowedError), the
 * caller's signal (AbortError...), the input (DataError: JSON lifted through inputSchema, or
 * structured values checked against it), the tool itself (ToolExecutionError with the thrown
 * value lowered in `.cause`), then the output (OperationError when it fails outputSchema or
 * cannot be lowered). With `encoding: 'json'` the result comes back lowered to JSON.
 */
import { expanded, namesWebTypes } from './agent-schema.js';
import { dataError, ToolExecutionError } from './errors.js';
import type { FramesGate } from './frames/gate.js';
import { RemoteTools } from './frames/remote-tools.js';
import { abortReason, domException } from './lib/dom.js';
import type { LoweringModule } from './lib/lowering.js';
import { loadedLowering, loadLowering, lowerThrown } from './lib/lowering.js';
import type { NativeHooks } from './native-proxy.js';
import type { RegistryEntry } from './registry.js';
import { ToolFailure, ToolRegistry } from './registry.js';
import type { Tool, ToolCaller } from './tool.js';
import { entryOf, handleOf } from './tool.js';
import type {
  AvailabilityResult,
  CallToolOptions,
  GetToolsOptions,
  JsonSchema,
  ToolPolicy,
} from './types.js';

/** Wire metadata of a tool (see Tools.wireInfo). */
export interface ToolWireInfo {
  policy: ToolPolicy;
  category: string | undefined;
  keywords: string[];
  prerequisites: string[];
  /** Evaluated now for this document's tools; the owner's last report for other frames'. */
  availability: () => AvailabilityResult;
  local: boolean;
}

import { loadValidator } from './validation/load.js';
import type { ValidationIssue } from './validation/types.js';

export interface ToolsHooks {
  allowed(): boolean;
  native?: NativeHooks | undefined;
  /** The frames bridge: other frames' tools coalesce in, `of(frame)` reads them directly. */
  frames?: FramesGate | undefined;
}

/**
 * @internal A CallToolOptions key the endpoint sets (`encoding: 'json'` only): the caller
 * serializes the result at once and keeps nothing, so a result that is already JSON (plain
 * objects and arrays, strings, finite numbers, booleans, null; within lower's depth and size
 * limits; no -0) is handed back as it is instead of being copied by lower, which would give
 * equal JSON. Anything else is lowered as usual. Registered, so that another copy of the
 * polyfill on the page reads it too.
 */
export const WIRE_RESULT: unique symbol = Symbol.for('toolwire.wireResult');

/** lower's default maxJsonBytes (@toolwire/lowering DEFAULT_LIMITS): 64 MiB. */
const MAX_LOWERED_BYTES = 64 * 1024 * 1024;

export class Tools extends EventTarget implements ToolCaller {
  #registry: ToolRegistry;
  #hooks: ToolsHooks;

  constructor(registry: ToolRegistry, hooks: ToolsHooks) {
    super();
    this.#registry = registry;
    this.#hooks = hooks;
    registry.onChange(() => this.dispatchEvent(new Event('toolchange')));
    hooks.native?.onChange(() => this.dispatchEvent(new Event('toolchange')));
  }

  #remote = new Map<string, RemoteTools>();

  /**
   * This document's tools visible to it, those that coalesce up from its frames, and native
   * ones; sorted by name, then origin.
   */
  async getTools(options: GetToolsOptions = {}): Promise<Tool[]> {
    const agentOnly = options.agentOnly === true;
    const own = this.#registry
      .list(this.#registry.origin, agentOnly ? (entry) => entry.agentExposed : undefined)
      .map((entry) => handleOf(this, entry));
    const frames = this.#hooks.frames;
    const fromFrames = frames?.hasChildren
      ? (await frames.listSubtree(this.#registry.origin, [], agentOnly, null))
          .filter((tool) => tool.route.length > 0)
          .map((tool) => frames.handleFor(this, tool))
      : [];
    const native = this.#hooks.native ? await this.#hooks.native.tools(this) : [];
    if (native.length === 0 && fromFrames.length === 0) return own;
    return [...own, ...fromFrames, ...native].sort(compareTools);
  }

  /** Another frame's tools (a descendant iframe element or window), read directly. */
  of(target: unknown): Tools | RemoteTools {
    const win = isIframe(target) ? target.contentWindow : target;
    const frames = this.#hooks.frames;
    if (win === globalThis || win === frames?.window) return this;
    const route =
      frames && win && typeof win === 'object' ? frames.routeTo(win as Window) : undefined;
    if (!frames || !route)
      throw domException('NotFoundError', 'tools.of() takes this window or a frame inside it.');
    const key = route.join('/');
    let remote = this.#remote.get(key);
    if (!remote) {
      remote = new RemoteTools(frames, route, this);
      this.#remote.set(key, remote);
    }
    return remote;
  }

  callTool(tool: string | Tool, input?: unknown, options: CallToolOptions = {}): Promise<unknown> {
    try {
      const native = this.#hooks.native;
      if (native && typeof tool === 'object' && native.owns(tool))
        return native.call(tool, input, options);
      if (typeof tool === 'object' && this.#hooks.frames?.isRemote(tool)) {
        return this.#hooks.frames.callRemote(tool, input === undefined ? {} : input, options);
      }
      // A name this document has no tool for may still name one getTools() lists (a frame's or
      // a native one): that is looked up, then called by its handle.
      if (
        typeof tool === 'string' &&
        !this.#own(tool) &&
        (native || this.#hooks.frames?.hasChildren)
      )
        return this.#callListed(tool, input, options);
      const entry = this.#resolve(tool);
      if (!this.#hooks.allowed())
        throw domException('NotAllowedError', 'This document is not allowed to use tools.');
      const encoding = options.encoding ?? 'structured';
      if (encoding !== 'structured' && encoding !== 'json')
        throw new TypeError(`Unknown encoding ${JSON.stringify(encoding)}.`);
      if (options.signal?.aborted) throw abortReason(options.signal);
      return this.#run(
        entry,
        input === undefined ? {} : input,
        encoding,
        options.signal,
        this.#registry.origin,
        encoding === 'json' && (options as { [WIRE_RESULT]?: unknown })[WIRE_RESULT] === true,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** This document's own tool of that name, when it is visible here. */
  #own(name: string): RegistryEntry | undefined {
    const entry = this.#registry.get(name);
    return entry && ToolRegistry.isExposedTo(entry, this.#registry.origin) ? entry : undefined;
  }

  #resolve(tool: string | Tool): RegistryEntry {
    let entry: RegistryEntry | undefined;
    if (typeof tool === 'string') entry = this.#registry.get(tool);
    else if (tool && typeof tool === 'object') entry = entryOf(tool);
    if (
      !entry ||
      !this.#registry.isCurrent(entry) ||
      !ToolRegistry.isExposedTo(entry, this.#registry.origin)
    ) {
      throw notFound(typeof tool === 'string' ? tool : (tool as { name?: unknown })?.name);
    }
    return entry;
  }

  /**
   * callTool(name) for a tool outside this document's registry: the one getTools() lists under
   * that name, by the precedence a plain name has on the wire (page-tools.ts): this document's
   * own (native) tools, then frames' tools of this document's origin, then other frames'
   * tools, each in getTools() order (by origin, then as listed). Then called by its handle.
   */
  async #callListed(name: string, input: unknown, options: CallToolOptions): Promise<unknown> {
    const signal = options.signal;
    if (signal?.aborted) throw abortReason(signal);
    const listing = this.getTools();
    // The listing waits for frames (up to the discovery deadline); the caller's abort does not.
    const listed = signal
      ? await new Promise<Tool[]>((resolve, reject) => {
          const onAbort = () => reject(abortReason(signal));
          signal.addEventListener('abort', onAbort, { once: true });
          listing.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
        })
      : await listing;
    let found: Tool | undefined;
    let foundRank = 3;
    for (const tool of listed) {
      if (tool.name !== name) continue;
      const rank = this.#isLocal(tool) ? 0 : tool.origin === this.#registry.origin ? 1 : 2;
      if (rank < foundRank) {
        found = tool;
        foundRank = rank;
      }
    }
    if (!found) throw notFound(name);
    return this.callTool(found, input, options);
  }

  /** A handle on this document's own tool (registry or native), as opposed to a frame's. */
  #isLocal(tool: Tool): boolean {
    return entryOf(tool) !== undefined || this.#hooks.native?.owns(tool) === true;
  }

  /**
   * What a remote-tool endpoint needs beyond the handle (policy, category, keywords,
   * prerequisites, availability): from the registry for this document's tools, from the owner
   * frame's last report for tools in other frames. Undefined for handles it does not know.
   */
  wireInfo(tool: Tool): ToolWireInfo | undefined {
    const entry = entryOf(tool);
    if (entry) {
      return {
        policy: entry.policy,
        category: entry.category,
        keywords: [...entry.keywords],
        prerequisites: [...entry.prerequisites],
        availability: entry.availability ?? (() => true),
        local: true,
      };
    }
    if (this.#hooks.native?.owns(tool)) {
      // A tool the browser registered (a page's own registerTool, or a form tool): the same
      // policy rule as our document.modelContext registrations; availability is the browser's.
      return {
        policy: tool.annotations?.readOnlyHint ? 'read' : 'write',
        category: undefined,
        keywords: [],
        prerequisites: [],
        availability: () => true,
        local: true,
      };
    }
    const descriptor = this.#hooks.frames?.descriptorOf(tool);
    if (!descriptor) return undefined;
    const runtime = descriptor.runtime;
    return {
      policy: descriptor.policy,
      category: descriptor.category,
      keywords: descriptor.keywords,
      prerequisites: descriptor.prerequisites,
      availability: () => (runtime ? (runtime as Exclude<AvailabilityResult, true>) : true),
      local: false,
    };
  }

  /** @internal The frames bridge runs a local tool for a caller in another frame. */
  runFor(
    entry: RegistryEntry,
    input: unknown,
    encoding: 'structured' | 'json',
    signal: AbortSignal | undefined,
    caller: string,
  ): Promise<unknown> {
    return this.#run(entry, input, encoding, signal, caller);
  }

  async #run(
    entry: RegistryEntry,
    input: unknown,
    encoding: 'structured' | 'json',
    signal: AbortSignal | undefined,
    caller: string,
    wire = false,
  ) {
    let value = input;
    if (entry.inputSchema) {
      if (encoding === 'json') {
        const lowering = await this.#loweringFor(entry, 'input');
        await check(
          entry.inputSchema,
          lowering ? expanded(entry, 'input', lowering) : entry.inputSchema,
          value,
          'json',
          'input',
        );
        if (lowering) {
          try {
            value = await lowering.lift(value, entry.inputSchema);
          } catch (error) {
            throw asDataError(error);
          }
        }
      } else {
        await check(entry.inputSchema, entry.inputSchema, value, 'structured', 'input');
      }
    } else if (encoding === 'json') {
      checkPlain(value);
    }

    let result: unknown;
    try {
      result = await this.#registry.execute(entry, value, {
        signal,
        caller: { origin: caller },
      });
    } catch (error) {
      if (error instanceof ToolFailure)
        throw new ToolExecutionError(entry.name, await lowerThrown(error.error));
      throw error;
    }

    if (encoding === 'json') {
      // For the wire (see WIRE_RESULT): a result that is JSON as it is goes out as it is.
      if (wire && !entry.outputSchema && isWireJson(result)) return result;
      let lowered: unknown;
      try {
        // The module once loaded is taken as it is: one await fewer per call.
        lowered = await (loadedLowering() ?? (await loadLowering())).lower(
          result,
          entry.outputSchema,
        );
      } catch (error) {
        throw domException(
          'OperationError',
          `The result of "${entry.name}" cannot be lowered to JSON: ${(error as Error).message}`,
        );
      }
      if (entry.outputSchema) {
        const lowering = await this.#loweringFor(entry, 'output');
        await check(
          entry.outputSchema,
          lowering ? expanded(entry, 'output', lowering) : entry.outputSchema,
          lowered,
          'json',
          'output',
        );
      }
      return lowered;
    }
    if (entry.outputSchema)
      await check(entry.outputSchema, entry.outputSchema, result, 'structured', 'output');
    return result;
  }

  /** The lowering module when this schema names web types (memoized per registration). */
  async #loweringFor(
    entry: RegistryEntry,
    which: 'input' | 'output',
  ): Promise<LoweringModule | undefined> {
    return namesWebTypes(entry, which) ? loadLowering() : undefined;
  }
}

/**
 * JSON input to a tool without a schema is used as given, as long as it is JSON: checked by a
 * walk rather than copied (a stringify/parse round trip cost more than the rest of a small
 * call). Anything JSON cannot hold (undefined, functions, non-finite numbers, class
 * instances, cycles, nesting past 128) is a DataError naming the path. Synchronous, and the
 * walk builds no path strings: the path is put together only when something fails.
 */
function checkPlain(value: unknown): void {
  const problem = jsonProblem(value, 0, []);
  if (!problem) return;
  const path = problem.keys
    .reverse()
    .map((key) => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('');
  throw dataError([{ path, reason: problem.reason, schemaPath: '' }]);
}

/** What JSON cannot hold; `keys` collects the path on the way out (innermost first). */
interface Problem {
  reason: string;
  keys: (string | number)[];
}

function problemOf(reason: string): Problem {
  return { reason, keys: [] };
}

function jsonProblem(value: unknown, depth: number, open: object[]): Problem | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : problemOf(`${value} is not a JSON number`);
  if (typeof value !== 'object') return problemOf(`a ${typeof value} is not JSON`);
  if (depth >= 128) return problemOf('nests deeper than 128 levels');
  // The open containers: at most 128 of them, so a scan beats a Set per call.
  if (open.includes(value)) return problemOf('refers back to itself (a cycle)');
  open.push(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'string' || typeof item === 'boolean' || item === null) continue;
      const problem = jsonProblem(item, depth + 1, open);
      if (problem) {
        problem.keys.push(i);
        return problem;
      }
    }
  } else {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      open.pop();
      return problemOf('is not a plain object');
    }
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === 'string' || typeof item === 'boolean' || item === null) continue;
      const problem = jsonProblem(item, depth + 1, open);
      if (problem) {
        problem.keys.push(key);
        return problem;
      }
    }
  }
  open.pop();
  return undefined;
}

/**
 * Would lower (no schema) turn `value` into equal JSON as it stands? Plain objects and dense
 * arrays of JSON values only, at most 128 levels, no cycles, and a JSON text surely under
 * lower's size limit (each string counted at 6 bytes a UTF-16 unit, the worst escape). A getter
 * that throws, or anything else unusual, answers false: lower then reports it as it does.
 */
function isWireJson(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  let bytes = 0;
  const open: object[] = [];
  const visit = (node: unknown, depth: number): boolean => {
    if (node === null || typeof node === 'boolean') {
      bytes += 5;
      return true;
    }
    if (typeof node === 'string') {
      bytes += 6 * node.length + 2;
      return true;
    }
    if (typeof node === 'number') {
      bytes += 24;
      // -0 is lowered (to 0) like anything else lower would change.
      return Number.isFinite(node) && !Object.is(node, -0);
    }
    if (typeof node !== 'object' || depth >= 128 || open.includes(node)) return false;
    open.push(node);
    bytes += 2;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        bytes += 1;
        if (!(i in node) || !visit(node[i], depth + 1)) return false;
      }
    } else {
      const proto = Object.getPrototypeOf(node);
      if (proto !== Object.prototype && proto !== null) return false;
      const keys = Object.keys(node);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        bytes += 6 * key.length + 4;
        if (!visit((node as Record<string, unknown>)[key], depth + 1)) return false;
      }
    }
    open.pop();
    return bytes <= MAX_LOWERED_BYTES;
  };
  try {
    return visit(value, 0);
  } catch {
    return false;
  }
}

function asDataError(error: unknown): DOMException {
  const { path, schemaPath, message } = error as {
    path?: string;
    schemaPath?: string;
    message?: string;
  };
  return dataError([
    { path: path ?? '', reason: message ?? String(error), schemaPath: schemaPath ?? '' },
  ]);
}

/** Validates `value`; DataError for input, OperationError for output. */
async function check(
  original: JsonSchema,
  schema: object,
  value: unknown,
  mode: 'structured' | 'json',
  which: 'input' | 'output',
): Promise<void> {
  const validator = await loadValidator();
  let issues: ValidationIssue[] | null;
  try {
    issues = validator.compile(mode === 'json' ? schema : original, mode)(value);
  } catch (error) {
    // The schema passed registration's checks but the validator cannot compile it.
    throw domException(
      'OperationError',
      `The ${which} schema cannot be compiled: ${(error as Error).message}`,
    );
  }
  if (!issues) return;
  if (which === 'input') throw dataError(issues);
  const first = issues[0];
  throw domException(
    'OperationError',
    `The result does not match outputSchema: ${JSON.stringify({ path: first?.path, reason: first?.reason, schemaPath: first?.schemaPath })}`,
  );
}

function notFound(name: unknown): DOMException {
  return domException(
    'NotFoundError',
    `No tool named ${JSON.stringify(String(name))} is available.`,
  );
}

/** An iframe element? (Never reads a property: `value` may be a cross-origin WindowProxy.) */
function isIframe(value: unknown): value is HTMLIFrameElement {
  const type = (globalThis as { HTMLIFrameElement?: typeof HTMLIFrameElement }).HTMLIFrameElement;
  return type !== undefined && value instanceof type;
}

function compareTools(a: Tool, b: Tool): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0;
}
