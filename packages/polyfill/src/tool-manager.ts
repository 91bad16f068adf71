/**
 * `window.toolManager` (docs/browser-api.md "Registering"): register / unregister over the shared registry.
 * Registration checks run synchronously and the returned promise settles in a microtask:
 * nothing on its path waits for a timer or for the validator to load (docs/performance.md).
 * Layered on native WebMCP, it settles once the mirror is listed natively.
 */
import { HeardTarget } from './events.js';
import { abortReason, domException } from './lib/dom.js';
import { isValidToolName } from './lib/names.js';
import { trustworthyOrigin } from './lib/origins.js';
import { checkToolSchema } from './lib/schema-check.js';
import { policyFromAnnotations } from './policy.js';
import type { RegistryEntry, ToolRegistry } from './registry.js';
import { isStandardSchema, standardSchemasOf } from './standard-schema.js';
import type {
  JsonSchema,
  RegisterOptions,
  ToolAnnotations,
  ToolDefinition,
  ToolPolicy,
} from './types.js';

export interface ToolManagerHooks {
  /** Is this document allowed to use the `tools` feature? */
  allowed(): boolean;
  /**
   * Told after a registration is stored and before it is removed (native mirroring). A promise
   * it returns is what register() resolves with: the tool is listed natively by then. It never
   * rejects (a mirror the browser refuses is warned about, not the registration's failure).
   */
  onRegister?(entry: RegistryEntry): Promise<void> | undefined;
  onUnregister?(entry: RegistryEntry): void;
}

const POLICIES = new Set<ToolPolicy>(['read', 'write', 'critical']);

/** Normalizes `exposedTo`: '*' or potentially trustworthy origins, else SecurityError. */
export function normalizeExposedTo(exposedTo: unknown, allowWildcard: boolean): string[] {
  if (exposedTo === undefined || exposedTo === null) return [];
  if (!Array.isArray(exposedTo)) throw new TypeError('exposedTo must be an array of origins.');
  return exposedTo.map((item) => {
    if (allowWildcard && item === '*') return '*';
    const origin = trustworthyOrigin(item);
    if (!origin)
      throw domException(
        'SecurityError',
        `exposedTo entry ${JSON.stringify(item)} is not a potentially trustworthy origin.`,
      );
    return origin;
  });
}

function schemaPair(top: unknown, nested: unknown, label: string): JsonSchema | undefined {
  const standard = isStandardSchema(top)
    ? label
    : isStandardSchema(nested)
      ? `naturalLanguageProperties.${label}`
      : undefined;
  if (standard !== undefined)
    throw new TypeError(
      `${standard} is a Standard Schema (zod, valibot...): pass the definition through defineTool() first.`,
    );
  if (top !== undefined && nested !== undefined) {
    checkToolSchema(top, label);
    checkToolSchema(nested, `naturalLanguageProperties.${label}`);
    if (top !== nested && JSON.stringify(top) !== JSON.stringify(nested)) {
      throw new TypeError(
        `${label} is given both at the top level and in naturalLanguageProperties, and they differ.`,
      );
    }
    return top as JsonSchema;
  }
  const schema = top ?? nested;
  if (schema === undefined) return undefined;
  checkToolSchema(schema, top !== undefined ? label : `naturalLanguageProperties.${label}`);
  return schema as JsonSchema;
}

function policyOf(explicit: unknown, annotations: ToolAnnotations | null): ToolPolicy {
  if (explicit !== undefined) {
    if (!POLICIES.has(explicit as ToolPolicy))
      throw new TypeError(
        `policy must be read, write or critical, not ${JSON.stringify(explicit)}.`,
      );
    return explicit as ToolPolicy;
  }
  return policyFromAnnotations(annotations);
}

function stringList(value: unknown, label: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
    throw new TypeError(`${label} must be an array of strings.`);
  return [...value];
}

export class ToolManager extends HeardTarget {
  #registry: ToolRegistry;
  #hooks: ToolManagerHooks;

  constructor(registry: ToolRegistry, hooks: ToolManagerHooks) {
    super();
    this.#registry = registry;
    this.#hooks = hooks;
  }

  register(tool: ToolDefinition, options: RegisterOptions = {}): Promise<void> {
    try {
      // Resolves once the tool is listed everywhere it will be: natively too, where mirrored.
      return this.#register(tool, options) ?? Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #register(tool: ToolDefinition, options: RegisterOptions): Promise<void> | undefined {
    if (!this.#hooks.allowed())
      throw domException('NotAllowedError', 'This document is not allowed to use tools.');
    if (typeof tool !== 'object' || tool === null)
      throw new TypeError('register() takes a tool definition object.');
    if (typeof tool.execute !== 'function')
      throw new TypeError('A tool needs an execute() function.');
    const { name } = tool;
    if (!isValidToolName(name)) {
      throw domException(
        'InvalidStateError',
        `Invalid tool name ${JSON.stringify(name)}: use 1-128 of A-Z a-z 0-9 _ . -`,
      );
    }
    if (this.#registry.get(name))
      throw domException('InvalidStateError', `A tool named "${name}" is already registered.`);
    // The specification's registerTool() shape puts these at the top; here they would hide the
    // tool from agents without a word, so they are refused (docs/browser-api.md "Registering").
    if ('description' in tool)
      throw new TypeError(`Tool "${name}": description goes in naturalLanguageProperties.`);
    const nlp = tool.naturalLanguageProperties;
    if (nlp !== undefined && (typeof nlp !== 'object' || nlp === null))
      throw new TypeError('naturalLanguageProperties must be an object.');
    if (nlp && (typeof nlp.description !== 'string' || nlp.description === '')) {
      throw domException(
        'InvalidStateError',
        `Tool "${name}" is exposed to agents but has no description.`,
      );
    }
    const inputSchema = schemaPair(tool.inputSchema, nlp?.inputSchema, 'inputSchema');
    const outputSchema = schemaPair(tool.outputSchema, nlp?.outputSchema, 'outputSchema');
    const standard = standardSchemasOf(tool);
    const { signal } = options;
    if (signal?.aborted) throw abortReason(signal);
    const exposedTo = normalizeExposedTo(tool.exposedTo, true);
    const annotations = nlp?.annotations ? { ...nlp.annotations } : null;
    if (tool.availability !== undefined && typeof tool.availability !== 'function') {
      throw new TypeError('availability must be a function.');
    }
    const entry = this.#registry.add({
      name,
      origin: this.#registry.origin,
      exposedTo,
      layer: 'toolManager',
      agentExposed: nlp !== undefined,
      title: typeof nlp?.title === 'string' ? nlp.title : null,
      description: nlp?.description ?? '',
      annotations,
      inputSchema,
      outputSchema,
      standard,
      category: typeof nlp?.category === 'string' ? nlp.category : undefined,
      keywords: stringList(nlp?.keywords, 'keywords'),
      prerequisites: stringList(nlp?.prerequisites, 'prerequisites'),
      policy: policyOf(tool.policy, annotations),
      availability: tool.availability
        ? () =>
            (
              tool.availability as () => ReturnType<NonNullable<ToolDefinition['availability']>>
            ).call(tool)
        : undefined,
      execute: (input, context) => tool.execute(input, context),
      events: this,
    });
    // Only a registration with a signal gets a listener (and a closure): most have none.
    if (signal) {
      const onAbort = () => this.#release(entry);
      this.#aborts.set(entry, [signal, onAbort]);
      signal.addEventListener('abort', onAbort, { once: true });
    }
    return this.#hooks.onRegister?.(entry);
  }

  /** Registrations made with a signal: its listener, removed when the tool goes. */
  #aborts = new Map<RegistryEntry, [AbortSignal, () => void]>();

  #release(entry: RegistryEntry): void {
    const abort = this.#aborts.get(entry);
    if (abort) {
      this.#aborts.delete(entry);
      abort[0].removeEventListener('abort', abort[1]);
    }
    if (!this.#registry.isCurrent(entry)) return;
    this.#hooks.onUnregister?.(entry);
    this.#registry.remove(entry);
  }

  /** Same as aborting the registration's signal. */
  unregister(name: string): Promise<void> {
    const entry = this.#registry.get(name);
    // Ours: registered by this toolManager (its events go here).
    if (entry?.layer !== 'toolManager' || entry.events !== this) {
      return Promise.reject(
        domException(
          'NotFoundError',
          `No tool named "${String(name)}" was registered with toolManager.`,
        ),
      );
    }
    this.#release(entry);
    return Promise.resolve();
  }
}
