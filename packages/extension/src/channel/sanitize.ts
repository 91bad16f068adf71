/**
 * What crosses out of the MAIN world is untrusted: the page shares that world and can lie or
 * send junk. The relay rebuilds every tool list and outcome from checked fields (strings capped,
 * origins canonical, schemas plain JSON within a size), and the background checks again. A
 * call's result crosses as JSON text within a size, parsed once where it is used (the
 * background, or the relay for the runtime port), which proves it is JSON.
 */
import type {
  TabCallOutcome,
  TabProgress,
  TabTool,
  TabToolPolicy,
  TabToolSource,
} from '../types.js';

/** At most this many tools per tab (a frame lists at most 256; a page may have several). */
const MAX_TOOLS = 1024;
const MAX_NAME = 256;
const MAX_TEXT = 8192;
/** One tool's schemas and annotations, as JSON text. */
const MAX_SCHEMA_CHARS = 256 * 1024;
/** One call's result, as JSON text (a lowered image is base64 in it). */
const MAX_RESULT_CHARS = 64 * 1024 * 1024;
/** A failure's details, as JSON text, once clipped (a schema failure lists its issues). */
const MAX_DETAILS_CHARS = 64 * 1024;
/** Clipping a failure's details: how deep, how many entries per array or object. */
const MAX_DETAILS_DEPTH = 8;
const MAX_DETAILS_ENTRIES = 100;
/** A progress report's message: a line to show beside a progress bar. */
export const MAX_PROGRESS_MESSAGE = 1024;

const SOURCES: readonly TabToolSource[] = ['toolwire', 'native', 'declarative'];
const POLICIES: readonly TabToolPolicy[] = ['read', 'write', 'critical'];

function text(value: unknown, max: number): string | undefined {
  return typeof value === 'string' && value.length <= max ? value : undefined;
}

/** A copy of `value` as plain JSON objects, or undefined when it is not JSON or too large. */
function plainJson(value: unknown, maxChars: number): unknown {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return undefined;
  }
  if (json === undefined || json.length > maxChars) return undefined;
  return JSON.parse(json);
}

function jsonObject(value: unknown): object | undefined {
  if (value === undefined || value === null) return undefined;
  const copy = plainJson(value, MAX_SCHEMA_CHARS);
  return typeof copy === 'object' && copy !== null && !Array.isArray(copy) ? copy : undefined;
}

function canonicalOrigin(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const origin = new URL(value).origin;
    return origin === value && origin !== 'null' ? origin : undefined;
  } catch {
    return undefined;
  }
}

/** One tool, rebuilt from checked fields; undefined (dropped) when a required field is bad. */
function sanitizeTool(raw: unknown): TabTool | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const tool = raw as Record<string, unknown>;
  const name = text(tool.name, MAX_NAME);
  const origin = canonicalOrigin(tool.origin);
  const source = SOURCES.find((s) => s === tool.source);
  if (!name || !origin || !source) return undefined;
  const out: TabTool = {
    name,
    description: text(tool.description, MAX_TEXT) ?? '',
    origin,
    source,
  };
  const title = text(tool.title, MAX_NAME);
  if (title) out.title = title;
  const inputSchema = jsonObject(tool.inputSchema);
  if (inputSchema) out.inputSchema = inputSchema;
  const outputSchema = jsonObject(tool.outputSchema);
  if (outputSchema) out.outputSchema = outputSchema;
  const annotations = jsonObject(tool.annotations);
  if (annotations) out.annotations = annotations as Record<string, unknown>;
  const policy = POLICIES.find((p) => p === tool.policy);
  if (policy) out.policy = policy;
  if (tool.agentExposed === false) out.agentExposed = false;
  return out;
}

/** A tool list: each entry checked, duplicates by name dropped, at most MAX_TOOLS. */
export function sanitizeTools(raw: unknown): TabTool[] {
  if (!Array.isArray(raw)) return [];
  const seen = new Set<string>();
  const out: TabTool[] = [];
  for (const entry of raw.slice(0, MAX_TOOLS)) {
    const tool = sanitizeTool(entry);
    if (!tool || seen.has(tool.name)) continue;
    seen.add(tool.name);
    out.push(tool);
  }
  return out;
}

/**
 * A copy of a failure's `details` as plain JSON, clipped: strings to MAX_TEXT, arrays and
 * objects to their first MAX_DETAILS_ENTRIES entries, nothing below MAX_DETAILS_DEPTH, what JSON
 * cannot hold left out; null when nothing is left or the copy is still above MAX_DETAILS_CHARS.
 */
function clippedDetails(value: unknown): unknown {
  const clip = (node: unknown, depth: number): unknown => {
    if (node === null || typeof node === 'boolean') return node;
    if (typeof node === 'string') return node.slice(0, MAX_TEXT);
    if (typeof node === 'number') return Number.isFinite(node) ? node : null;
    if (typeof node !== 'object' || depth >= MAX_DETAILS_DEPTH) return undefined;
    if (Array.isArray(node))
      return node.slice(0, MAX_DETAILS_ENTRIES).map((item) => clip(item, depth + 1) ?? null);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(node).slice(0, MAX_DETAILS_ENTRIES)) {
      const item = clip((node as Record<string, unknown>)[key], depth + 1);
      if (item !== undefined) out[key.slice(0, MAX_NAME)] = item;
    }
    return out;
  };
  try {
    const copy = clip(value, 0);
    if (copy === undefined) return null;
    const json = JSON.stringify(copy);
    return json.length <= MAX_DETAILS_CHARS ? copy : null;
  } catch {
    // A getter that throws, a proxy: no details.
    return null;
  }
}

/**
 * A coded error outcome (messages are capped; they are shown as text, never as markup).
 * `retryable` only when it is a boolean; `details` clipped (clippedDetails).
 */
export function failure(
  code: string,
  message: string,
  name?: string,
  extra: { retryable?: unknown; details?: unknown } = {},
): TabCallOutcome {
  const error: Extract<TabCallOutcome, { ok: false }>['error'] = {
    code,
    message: message.slice(0, MAX_TEXT),
  };
  if (name) error.name = name.slice(0, MAX_NAME);
  if (typeof extra.retryable === 'boolean') error.retryable = extra.retryable;
  if (extra.details !== undefined && extra.details !== null)
    error.details = clippedDetails(extra.details);
  return { ok: false, error };
}

/** An outcome from the other side: JSON results within the size limit, coded errors. */
/**
 * A call's successful result as JSON text within the size limit, for the direct port (a string
 * is copied whole, cheaper than cloning the object, and parsing it on the other side gives plain
 * JSON again). Undefined when the outcome is not a result with a value, or the value is not JSON
 * or too large: then `sanitizeOutcome` says what to send.
 */
export function resultJson(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const outcome = raw as Record<string, unknown>;
  if (outcome.ok !== true || outcome.result === undefined || outcome.result === null)
    return undefined;
  let json: string | undefined;
  try {
    json = JSON.stringify(outcome.result);
  } catch {
    return undefined;
  }
  return json !== undefined && json.length <= MAX_RESULT_CHARS ? json : undefined;
}

/**
 * A call's result as the MAIN world sent it, JSON text: the text when it is a string within the
 * size limit (whether it is JSON is proven where it is parsed: `outcomeOfJson`), else undefined.
 */
export function resultText(raw: unknown): string | undefined {
  return typeof raw === 'string' && raw.length <= MAX_RESULT_CHARS ? raw : undefined;
}

/** The outcome of a result sent as JSON text (`resultJson`), checked again. */
export function outcomeOfJson(json: string): TabCallOutcome {
  if (json.length > MAX_RESULT_CHARS)
    return failure('response_invalid', 'The result is not JSON, or is too large.');
  try {
    return { ok: true, result: JSON.parse(json) };
  } catch {
    return failure('response_invalid', 'The result is not JSON, or is too large.');
  }
}

export function sanitizeOutcome(raw: unknown): TabCallOutcome {
  if (typeof raw !== 'object' || raw === null) return failure('response_invalid', 'No outcome.');
  const outcome = raw as Record<string, unknown>;
  if (outcome.ok === true) {
    if (outcome.result === undefined || outcome.result === null) return { ok: true, result: null };
    const result = plainJson(outcome.result, MAX_RESULT_CHARS);
    if (result === undefined)
      return failure('response_invalid', 'The result is not JSON, or is too large.');
    return { ok: true, result };
  }
  const error = (outcome.error ?? {}) as Record<string, unknown>;
  const code = text(error.code, MAX_NAME);
  if (outcome.ok !== false || !code || !/^[a-z][a-z0-9_]*$/.test(code))
    return failure('response_invalid', 'An outcome that is neither a result nor a coded error.');
  return failure(code, text(error.message, MAX_TEXT) ?? '', text(error.name, MAX_NAME), {
    retryable: error.retryable,
    details: error.details,
  });
}

/** `value` cut to `max` UTF-16 units, never through a surrogate pair. */
function clip(value: string, max: number): string {
  if (value.length <= max) return value;
  const cut = value.charCodeAt(max - 1);
  return value.slice(0, cut >= 0xd800 && cut <= 0xdbff ? max - 1 : max);
}

/**
 * A progress report rebuilt from checked fields, or undefined (dropped) when `progress` is not
 * a finite number or does not grow past `last`, the previous report passed for the same call.
 * A `total` that is not a finite positive number is left out; a message is clipped.
 */
export function sanitizeProgress(raw: unknown, last: number | undefined): TabProgress | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const report = raw as Record<string, unknown>;
  const progress = report.progress;
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return undefined;
  if (last !== undefined && !(progress > last)) return undefined;
  const out: TabProgress = { progress };
  const total = report.total;
  if (typeof total === 'number' && Number.isFinite(total) && total > 0) out.total = total;
  if (typeof report.message === 'string' && report.message !== '')
    out.message = clip(report.message, MAX_PROGRESS_MESSAGE);
  return out;
}
