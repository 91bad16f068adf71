/**
 * Turning envelopes into text frames. The bridge already serialized each payload once (to
 * measure it for compression); the frame reuses that text instead of stringifying again.
 */
const payloadJson = new WeakMap<object, string>();

export function rememberPayloadJson(envelope: object, json: string): void {
  payloadJson.set(envelope, json);
}

/** One text frame for an envelope: compact JSON, with the payload spliced in when known. */
export function serializeMessage(envelope: object): string {
  const json = payloadJson.get(envelope);
  if (json === undefined) return JSON.stringify(envelope);
  const head = JSON.stringify({ ...envelope, payload: undefined });
  // `head` is a JSON object with at least a type; reopen it and append the payload last.
  return head === '{}' ? `{"payload":${json}}` : `${head.slice(0, -1)},"payload":${json}}`;
}
