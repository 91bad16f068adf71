/**
 * Whether this host stores multi-byte numbers little-endian. Every engine toolwire targets
 * does; binary lowering refuses multi-byte typed arrays elsewhere (LOWERING.md [B4]).
 */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
