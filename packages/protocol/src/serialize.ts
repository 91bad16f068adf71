/**
 * Turning envelopes into text frames. The bridge already serialized each payload once (to
 * measure it for compression); the frame reuses that text instead of stringifying again. For
 * the envelopes it makes itself, the bridge writes the whole frame at once (rememberFrame).
 * Envelopes are not to be changed after the bridge hands them out; a replaced payload is
 * noticed and the frame made again from the envelope.
 */
interface Known {
  payload: unknown;
  json: string;
  frame: string | undefined;
}

const known = new WeakMap<object, Known>();

export function rememberPayloadJson(envelope: { payload: unknown }, json: string): void {
  known.set(envelope, { payload: envelope.payload, json, frame: undefined });
}

/** The complete frame for `envelope` (its payload is `envelope.payload`, serialized as `json`). */
export function rememberFrame(envelope: { payload: unknown }, json: string, frame: string): void {
  known.set(envelope, { payload: envelope.payload, json, frame });
}

/** One text frame for an envelope: compact JSON, with the payload spliced in when known. */
export function serializeMessage(envelope: object): string {
  const entry = known.get(envelope);
  const payload = (envelope as { payload?: unknown }).payload;
  if (entry === undefined || entry.payload !== payload) return JSON.stringify(envelope);
  if (entry.frame !== undefined) return entry.frame;
  const json = entry.json;
  const head = JSON.stringify({ ...envelope, payload: undefined });
  // `head` is a JSON object with at least a type; reopen it and append the payload last.
  return head === '{}' ? `{"payload":${json}}` : `${head.slice(0, -1)},"payload":${json}}`;
}
