/**
 * The allow-list of web types (LOWERING.md §"Initial type list"). A schema names one with
 * `webType`; lift constructs only these, chosen by the schema, never by the data.
 */
export const WEB_TYPES = [
  'Date',
  'BigInt',
  'Map',
  'Set',
  'ArrayBuffer',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
  'DataView',
  'Blob',
  'File',
  'ImageBitmap',
  'ImageData',
  'HTMLCanvasElement',
  'OffscreenCanvas',
  'Error',
  'DOMException',
  'RegExp',
  'URL',
] as const;

export type WebTypeName = (typeof WEB_TYPES)[number];

const NAMES: ReadonlySet<string> = new Set(WEB_TYPES);

export function isWebTypeName(name: unknown): name is WebTypeName {
  return typeof name === 'string' && NAMES.has(name);
}
