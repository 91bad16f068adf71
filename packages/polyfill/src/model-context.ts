/**
 * `document.modelContext`, faithful to the current WebMCP spec (its sections "registerTool",
 * "getTools", "executeTool", "notify documents of a tool change", "Events"), over the shared
 * registry (docs/browser-api.md "When the promises settle").
 *
 * 1. registerTool checks, in the spec's order: allowed to use `tools` (NotAllowedError),
 *    duplicate name, name syntax, empty description (InvalidStateError), inputSchema
 *    serialization (its exception, or TypeError), an aborted signal (its reason), untrustworthy
 *    `exposedTo` (SecurityError). Only the signal unregisters.
 * 2. getTools returns plain RegisteredTool dictionaries sorted by name, `inputSchema` parsed.
 * 3. executeTool resolves the tool's result as a JSON string (a string result as it is, as the
 *    WPT tests expect); every failure after the checks is an UnknownError; the caller's abort
 *    rejects with the caller's reason.
 * 4. The tools it lists are the agent-exposed ones: its own registrations, and toolManager
 *    registrations that carry naturalLanguageProperties (their `webType` schemas expanded).
 * 5. Timing: the checks reject at once; otherwise each promise settles in a queued task
 *    ("queue a global task on the webmcp task source"), never in the caller's microtasks. Each
 *    registerTool registration and unregistration fires one `toolchange`, in a task, and
 *    registerTool resolves in a task queued after it (spec "notify documents of a tool
 *    change"). A caller's abort rejects at once, as the spec's abort steps do.
 * 6. executeTool checks the input against inputSchema before the tool runs, as the tentative
 *    WPT executeTool-input-validation expects: a DataError whose message is the JSON of
 *    `{path, reason, schemaPath}`, the reason being the failing keyword and the schema path
 *    that keyword's place in the schema that holds it (`/required`, `/enum`).
 */
import { expanded, namesWebTypes } from './agent-schema.js';
import { dataError } from './errors.js';
import { HeardTarget } from './events.js';
import type { FramesGate } from './frames/gate.js';
import { abortReason, domException } from './lib/dom.js';
import { loadLowering } from './lib/lowering.js';
import { isValidToolName } from './lib/names.js';
import { trustworthyOrigin } from './lib/origins.js';
import { inTask, queueGlobalTask } from './lib/tasks.js';
import { policyFromAnnotations } from './policy.js';
import type { ModelContextToolAnnotations, RegisteredTool } from './registered-tool.js';
import { registeredTool, specAnnotations } from './registered-tool.js';
import type { RegistryEntry } from './registry.js';
import { ToolFailure, ToolRegistry } from './registry.js';
import { normalizeExposedTo } from './tool-manager.js';
import type { Tools } from './tools.js';
import type { JsonSchema } from './types.js';
import { loadValidator } from './validation/load.js';
import type { SchemaValidator, ValidationIssue } from './validation/types.js';

export interface ModelContextTool {
  name: string;
  title?: string;
  description: string;
  inputSchema?: object;
  execute(input: object, options: { signal: AbortSignal }): Promise<unknown> | unknown;
  annotations?: ModelContextToolAnnotations;
}

/**
 * `document.modelContext` as a page can count on it: the spec's surface, which the polyfill's
 * ModelContext and a browser's own both provide (the global type, global.ts).
 */
export interface DocumentModelContext extends EventTarget {
  registerTool(
    tool: ModelContextTool,
    options?: { exposedTo?: string[]; signal?: AbortSignal },
  ): Promise<undefined>;
  getTools(options?: { fromOrigins?: string[] }): Promise<RegisteredTool[]>;
  executeTool(
    tool: RegisteredTool,
    inputObject?: object,
    options?: { signal?: AbortSignal },
  ): Promise<string | null>;
  ontoolchange: ((event: Event) => unknown) | null;
  ontoolactivated: ((event: Event) => unknown) | null;
  ontoolcancel: ((event: Event) => unknown) | null;
}

export interface ModelContextHooks {
  /** Is this document allowed to use `tools`? undefined while a frame waits for its parent. */
  permission(): boolean | undefined;
  /** Settles once the permission is known. */
  ready: Promise<boolean>;
  /** The frames bridge, for tools in other documents of the page. */
  frames?: FramesGate | undefined;
  window: Window;
  /** The generic layer: toolManager tools called from here take its JSON path. */
  tools: Tools;
}

type Handler = ((event: Event) => unknown) | null;

export class ModelContext extends HeardTarget implements DocumentModelContext {
  #registry: ToolRegistry;
  #hooks: ModelContextHooks;
  #handlers = new Map<string, { handler: Handler; listener: (event: Event) => void }>();

  constructor(registry: ToolRegistry, hooks: ModelContextHooks) {
    super();
    this.#registry = registry;
    this.#hooks = hooks;
    // Our own registrations queue their toolchange themselves (registerTool). The other
    // layers' agent-exposed changes of one turn make one toolchange, as before: a form tool
    // that changes is replaced (an unregistration and a registration) and fires once.
    // Until that toolchange has fired, later changes ride on it: 1,000 sequential
    // toolManager registrations queue one task, not 1,000.
    registry.onChange((change) => {
      if (this.#layersChangeQueued) return;
      if (change.entries.some((entry) => entry.agentExposed && entry.layer !== 'modelContext')) {
        this.#layersChangeQueued = true;
        queueGlobalTask(() => {
          this.#layersChangeQueued = false;
          if (this.#hooks.permission() === true) this.dispatchEvent(new Event('toolchange'));
        });
      }
    });
  }

  #layersChangeQueued = false;

  /** Spec "notify documents of a tool change": fire `toolchange` in a queued task. */
  #queueToolchange(): void {
    queueGlobalTask(() => {
      if (this.#hooks.permission() === true) this.dispatchEvent(new Event('toolchange'));
    });
  }

  registerTool(
    tool: ModelContextTool,
    options: { exposedTo?: string[]; signal?: AbortSignal } = {},
  ): Promise<undefined> {
    try {
      // WebIDL dictionary conversion happens before the method's steps.
      if (typeof tool !== 'object' || tool === null)
        throw new TypeError("Failed to execute 'registerTool': the tool is not an object.");
      for (const member of ['name', 'description'] as const) {
        if (tool[member] === undefined)
          throw new TypeError(
            `Failed to execute 'registerTool': required member ${member} is undefined.`,
          );
      }
      if (typeof tool.execute !== 'function')
        throw new TypeError(
          "Failed to execute 'registerTool': required member execute is not a function.",
        );
      const name = String(tool.name);
      const description = String(tool.description);
      const permission = this.#hooks.permission();
      if (permission === undefined) {
        return this.#hooks.ready.then(() => this.registerTool(tool, options));
      }
      if (!permission)
        throw domException('NotAllowedError', 'This document is not allowed to use tools.');
      if (this.#registry.get(name)) throw domException('InvalidStateError', 'Duplicate tool name');
      if (!isValidToolName(name)) throw domException('InvalidStateError', 'Invalid tool name');
      if (description === '') throw domException('InvalidStateError', 'Description is required');
      let inputSchema: JsonSchema | undefined;
      if (tool.inputSchema !== undefined) {
        const text = JSON.stringify(tool.inputSchema);
        if (text === undefined) throw new TypeError('inputSchema cannot be serialized to JSON.');
        inputSchema = JSON.parse(text) as JsonSchema;
      }
      const { signal } = options;
      if (signal?.aborted) throw abortReason(signal);
      const exposedTo = normalizeExposedTo(options.exposedTo, false);
      const annotations = tool.annotations ? specAnnotations(tool.annotations) : null;
      const execute = tool.execute;
      const entry = this.#registry.add({
        name,
        origin: this.#registry.origin,
        exposedTo,
        layer: 'modelContext',
        agentExposed: true,
        title: tool.title === undefined ? null : String(tool.title),
        description,
        annotations,
        inputSchema,
        outputSchema: undefined,
        category: undefined,
        keywords: [],
        prerequisites: [],
        policy: policyFromAnnotations(annotations),
        availability: undefined,
        // The signal is read when the tool reads it: its AbortController is made only then.
        execute: (input, context) =>
          execute.call(tool, input as object, {
            get signal() {
              return context.signal;
            },
          }),
        events: this,
      });
      // Spec "registerTool": the change is notified, then a task resolves the promise; the
      // signal's abort steps unregister and reject (a no-op once resolved).
      this.#queueToolchange();
      return new Promise((resolve, reject) => {
        signal?.addEventListener(
          'abort',
          () => {
            if (this.#registry.remove(entry)) this.#queueToolchange();
            reject(abortReason(signal));
          },
          { once: true },
        );
        queueGlobalTask(() => resolve(undefined));
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async getTools(options: { fromOrigins?: string[] } = {}): Promise<RegisteredTool[]> {
    const permission = this.#hooks.permission() ?? (await this.#hooks.ready);
    if (!permission)
      throw domException('NotAllowedError', 'This document is not allowed to use tools.');
    const fromOrigins = (options.fromOrigins ?? []).map((entry) => {
      const origin = trustworthyOrigin(entry);
      if (!origin)
        throw domException(
          'SecurityError',
          `fromOrigins entry ${JSON.stringify(entry)} is not a potentially trustworthy origin.`,
        );
      return origin;
    });
    const frames = this.#hooks.frames;
    // Other documents of the page: the top walks the tree (spec "getTools" step 3), in the
    // frames chunk.
    if (frames && (frames.hasChildren || !frames.isTop))
      return inTask(await frames.specTools(fromOrigins));
    const caller = this.#registry.origin;
    const entries = this.#registry.list(
      caller,
      (entry) =>
        entry.agentExposed && (entry.origin === caller || fromOrigins.includes(entry.origin)),
    );
    const out: RegisteredTool[] = [];
    for (const entry of entries) out.push(await this.#registeredTool(entry));
    // Spec "getTools": the list is resolved in a queued task.
    return inTask(out);
  }

  async #registeredTool(entry: RegistryEntry): Promise<RegisteredTool> {
    let inputSchema: object | undefined;
    if (entry.inputSchema) {
      inputSchema = namesWebTypes(entry, 'input')
        ? expanded(entry, 'input', await loadLowering())
        : (JSON.parse(JSON.stringify(entry.inputSchema)) as object);
    }
    return registeredTool(entry, inputSchema, this.#hooks.window);
  }

  executeTool(
    tool: RegisteredTool,
    inputObject?: object,
    options: { signal?: AbortSignal } = {},
  ): Promise<string | null> {
    try {
      if (typeof tool !== 'object' || tool === null)
        throw new TypeError("Failed to execute 'executeTool': the tool is not an object.");
      for (const member of ['name', 'description', 'window', 'origin'] as const) {
        if (tool[member] === undefined)
          throw new TypeError(
            `Failed to execute 'executeTool': required member ${member} is undefined.`,
          );
      }
      const permission = this.#hooks.permission();
      if (permission === undefined) {
        return this.#hooks.ready.then(() => this.executeTool(tool, inputObject, options));
      }
      if (!permission)
        throw domException('NotAllowedError', 'This document is not allowed to use tools.');
      // This document's own origin is already in its one serialized form: no URL to parse.
      let origin = String(tool.origin);
      if (origin !== this.#registry.origin) {
        try {
          origin = new URL(origin).origin;
        } catch {
          throw domException(
            'NotSupportedError',
            `The tool origin ${JSON.stringify(tool.origin)} cannot be parsed.`,
          );
        }
      }
      if (origin === 'null')
        throw domException('NotSupportedError', 'The tool has an opaque origin.');
      const input = inputObject === undefined ? {} : inputObject;
      if (typeof input !== 'object' || input === null) {
        throw new TypeError(
          "Failed to execute 'executeTool': invalid input object: value is not an object",
        );
      }
      const inputText = JSON.stringify(input);
      if (inputText === undefined)
        throw new TypeError('The input object cannot be serialized to JSON.');
      if (options.signal?.aborted) throw abortReason(options.signal);
      const frames = this.#hooks.frames;
      if (frames && tool.window !== this.#hooks.window) {
        return settleInTask(
          this.#executeElsewhere(
            frames,
            tool.window,
            String(tool.name),
            origin,
            inputText,
            options.signal,
          ),
          options.signal,
        );
      }
      const entry = this.#registry.get(String(tool.name));
      if (
        !entry ||
        entry.origin !== origin ||
        !entry.agentExposed ||
        !ToolRegistry.isExposedTo(entry, this.#registry.origin)
      ) {
        return settleInTask(
          Promise.reject(
            domException('UnknownError', `No tool named "${String(tool.name)}" can be executed.`),
          ),
          options.signal,
        );
      }
      // The input crosses to the target as JSON, as it would between documents.
      return settleInTask(
        this.runFor(entry, JSON.parse(inputText) as unknown, options.signal, this.#registry.origin),
        options.signal,
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A tool in another document of the page: the frames bridge routes the call. */
  async #executeElsewhere(
    frames: FramesGate,
    window: Window,
    name: string,
    origin: string,
    inputText: string,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    try {
      return String(await frames.callSpec(window, name, origin, JSON.parse(inputText), signal));
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      // The target's input check crosses frames as it is.
      if ((error as Error | null)?.name === 'DataError') throw error;
      throw domException('UnknownError', 'Tool was executed but the invocation failed.');
    }
  }

  /** @internal Runs one of this document's tools for a caller (here or in another frame). */
  async runFor(
    entry: RegistryEntry,
    input: unknown,
    signal: AbortSignal | undefined,
    caller: string,
  ): Promise<string | null> {
    let result: unknown;
    try {
      if (entry.layer === 'toolManager') {
        result = await this.#hooks.tools.runFor(entry, input, 'json', signal, caller);
      } else {
        const loading =
          entry.layer === 'modelContext' && entry.inputSchema
            ? checkInput(entry.inputSchema, input)
            : undefined;
        if (loading) await loading;
        result = await this.#registry.execute(entry, input, { signal, caller: { origin: caller } });
      }
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      // The input failed inputSchema (ours, or toolManager's check): the spec's DataError. A
      // form that refuses its input is an UnknownError, as Chromium's own form tools answer.
      if (
        error instanceof DOMException &&
        error.name === 'DataError' &&
        entry.layer !== 'declarative'
      )
        throw specDataError((error as DOMException & { errors?: ValidationIssue[] }).errors ?? []);
      const reason = error instanceof ToolFailure ? error.error : error;
      if (reason !== undefined) {
        console.warn(
          `WebMCP tool execution failed: ${String((reason as Error)?.message ?? reason)}`,
        );
      }
      throw domException('UnknownError', 'Tool was executed but the invocation failed.');
    }
    // A string result comes back as it is: the public WPT tests (executeTool-abort,
    // exposedTo-*) expect that, and Chromium does it, though the spec text would quote it.
    if (typeof result === 'string') return result;
    // A form tool whose submission navigated: the spec's `DOMString?` null (declarative/forms.ts).
    if (result === null && entry.layer === 'declarative') return null;
    let text: string | undefined;
    try {
      text = JSON.stringify(result);
    } catch {}
    if (text === undefined)
      throw domException('UnknownError', 'The tool result cannot be serialized to JSON.');
    return text;
  }

  declare ontoolchange: Handler;
  declare ontoolactivated: Handler;
  declare ontoolcancel: Handler;

  // The event handler attributes: an accessor pair on the prototype each, as a class's own.
  static {
    for (const type of ['toolchange', 'toolactivated', 'toolcancel']) {
      // biome-ignore lint/complexity/noThisInStatic: a byte less in the 12 KiB core than the name
      Object.defineProperty(this.prototype, `on${type}`, {
        get(this: ModelContext): Handler {
          return this.#handlers.get(type)?.handler ?? null;
        },
        set(this: ModelContext, handler: Handler) {
          this.#setHandler(type, handler);
        },
        configurable: true,
      });
    }
  }

  #setHandler(type: string, handler: Handler): void {
    const current = this.#handlers.get(type);
    if (current) this.removeEventListener(type, current.listener);
    if (typeof handler !== 'function') {
      this.#handlers.delete(type);
      return;
    }
    const listener = (event: Event) => {
      handler.call(this, event);
    };
    this.#handlers.set(type, { handler, listener });
    this.addEventListener(type, listener);
  }
}

/**
 * Settles in a queued task what `work` settles with (spec "executeTool": the completion steps
 * queue a task). The caller's abort rejects at once with its reason, as the abort steps do.
 */
function settleInTask<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal) {
      if (signal.aborted) {
        work.catch(() => {});
        reject(abortReason(signal));
        return;
      }
      signal.addEventListener('abort', () => reject(abortReason(signal)), { once: true });
    }
    work.then(
      (value) => queueGlobalTask(() => resolve(value)),
      (error) => {
        if (signal?.aborted && error === signal.reason) reject(error);
        else queueGlobalTask(() => reject(error));
      },
    );
  });
}

let validator: SchemaValidator | undefined;

/**
 * Throws the spec's DataError when `input` fails `schema`. Synchronous once the
 * validator is loaded, so the tool still starts in the executeTool call, as without a schema.
 */
function checkInput(schema: object, input: unknown): Promise<void> | undefined {
  if (!validator)
    return loadValidator().then((loaded) => {
      validator = loaded;
      checkInput(schema, input);
    });
  let issues: ValidationIssue[] | null;
  try {
    issues = validator.compile(schema, 'json')(input);
  } catch {
    // A schema the engine cannot compile goes unchecked: the spec checks none at registration.
    return undefined;
  }
  if (issues) throw specDataError(issues);
  return undefined;
}

/**
 * The tentative WPT's form of a failure: the keyword as the reason, and the keyword's place in
 * the schema that holds it as the schema path (ajv's `#/properties/color/enum` gives `enum`
 * and `/enum`). `window.tools.callTool` keeps the validator's own words (run.ts).
 */
function specDataError(issues: readonly ValidationIssue[]): DOMException {
  return dataError(
    issues.map((issue) => {
      // The last step of the schema path is a keyword's name, which has no `~` or `/` to unescape.
      const keyword = issue.schemaPath.split('/').pop();
      return keyword && keyword !== '#'
        ? { path: issue.path, reason: keyword, schemaPath: `/${keyword}` }
        : issue;
    }),
  );
}
