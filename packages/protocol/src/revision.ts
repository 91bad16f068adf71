/**
 * docs/wire.md "Revisions": `"sha256:" + lowercase hex(SHA-256(UTF-8 bytes of compact JSON))`, keys in
 * insertion order. SHA-256 comes from WebCrypto, present in browsers and in Node 20.
 */

const encoder = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function subtle(): SubtleCrypto {
  const crypto = globalThis.crypto;
  if (!crypto?.subtle) {
    // WebCrypto's subtle API exists only in secure contexts (https, localhost) and Node >= 19.
    throw new Error(
      'toolwire: crypto.subtle is unavailable (an insecure context?); revisions need SHA-256.',
    );
  }
  return crypto.subtle;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await subtle().digest('SHA-256', encoder.encode(text)));
  let hex = '';
  for (const byte of digest) hex += HEX[byte];
  return hex;
}

/** The revision token of a JSON value: hash of its compact JSON, keys in insertion order. */
export async function computeRevision(value: unknown): Promise<string> {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('computeRevision: the value has no JSON form.');
  return `sha256:${await sha256Hex(json)}`;
}

/** Same as computeRevision, over JSON text already serialized compactly. */
export async function revisionOfJson(json: string): Promise<string> {
  return `sha256:${await sha256Hex(json)}`;
}
