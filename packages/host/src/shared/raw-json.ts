/**
 * A call's result carried as the JSON text the host wrote, for a process that only forwards it
 * (`toolwire mcp --attach`, control/channel.ts): the value is parsed only if someone reads it.
 */
import type { JsonValue, ResultPayload } from '@toolwire/protocol';

const RAW_JSON = Symbol('toolwire.rawJson');

/**
 * A ResultPayload of `fields` whose `result` is `text` parsed on first read (an enumerable
 * getter, so spreading or serializing the payload reads it as usual).
 */
export function withRawResult(fields: Record<string, unknown>, text: string): ResultPayload {
  let parsed: { value: JsonValue | null } | undefined;
  const payload = { ...fields } as Record<string | symbol, unknown>;
  Object.defineProperty(payload, 'result', {
    enumerable: true,
    configurable: true,
    get() {
      parsed ??= { value: JSON.parse(text) as JsonValue | null };
      return parsed.value;
    },
  });
  Object.defineProperty(payload, RAW_JSON, { value: text });
  return payload as unknown as ResultPayload;
}

/** The JSON text of a payload's `result` as the host wrote it, when it came so. */
export function rawResultJson(payload: ResultPayload): string | undefined {
  const text = (payload as unknown as Record<symbol, unknown>)[RAW_JSON];
  return typeof text === 'string' ? text : undefined;
}
