import type { WebTypeName } from '../../web-types.js';
import { base64Length, encodeBase64 } from '../base64.js';
import { LITTLE_ENDIAN } from '../endian.js';
import type { WalkState } from '../walk-state.js';
import { liftBase64 } from './base64-text.js';

/**
 * ArrayBuffer, the eleven typed arrays and DataView <-> base64 of exactly the bytes the value
 * views: `byteOffset` and `byteLength` respected, nothing before or after.
 */

type BinaryName = Extract<
  WebTypeName,
  | 'ArrayBuffer'
  | 'DataView'
  | 'Int8Array'
  | 'Uint8Array'
  | 'Uint8ClampedArray'
  | 'Int16Array'
  | 'Uint16Array'
  | 'Int32Array'
  | 'Uint32Array'
  | 'Float32Array'
  | 'Float64Array'
  | 'BigInt64Array'
  | 'BigUint64Array'
>;

type TypedArrayConstructor = new (buffer: ArrayBuffer) => ArrayBufferView;

const TYPED: Record<Exclude<BinaryName, 'ArrayBuffer' | 'DataView'>, TypedArrayConstructor> = {
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
};

/** %TypedArray%.prototype[@@toStringTag] is a brand check: a forged tag cannot pass it. */
const typedArrayTag = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype),
  Symbol.toStringTag,
)?.get as (this: unknown) => string | undefined;

/** Whether a webType names a buffer, a typed array or a DataView. */
export function isBinaryName(name: WebTypeName): name is BinaryName {
  return name === 'ArrayBuffer' || name === 'DataView' || Object.hasOwn(TYPED, name);
}

/** The binary web type of a runtime value, or undefined. Buffer counts as Uint8Array. */
export function binaryTypeOf(value: object): BinaryName | undefined {
  if (value instanceof ArrayBuffer) return 'ArrayBuffer';
  if (!ArrayBuffer.isView(value)) return undefined;
  if (value instanceof DataView) return 'DataView';
  const tag = typedArrayTag.call(value);
  return tag !== undefined && Object.hasOwn(TYPED, tag) ? (tag as BinaryName) : undefined;
}

/**
 * The exact type is required ([L12]): an Int8Array in a Uint8Array slot is refused, since
 * the agent would read the same base64 differently. Buffer passes as the Uint8Array it is.
 */
export function lowerBinary(name: BinaryName, value: object, w: WalkState, at: string): string {
  if (binaryTypeOf(value) !== name) {
    w.fail('type_mismatch', `Expected ${name}.`, `${at}/webType`);
  }
  const buffer = name === 'ArrayBuffer' ? value : (value as ArrayBufferView).buffer;
  // A transferred buffer reads as zero bytes: refuse rather than send an empty string.
  if (isDetached(buffer)) {
    w.fail('invalid_value', 'The buffer is detached (transferred): its bytes are gone.', at);
  }
  const view =
    name === 'ArrayBuffer'
      ? new Uint8Array(value as ArrayBuffer)
      : new Uint8Array(
          (value as ArrayBufferView).buffer,
          (value as ArrayBufferView).byteOffset,
          (value as ArrayBufferView).byteLength,
        );
  // The bytes would mean something else to the agent on a big-endian host.
  if (!LITTLE_ENDIAN && elementSize(name) > 1) {
    w.fail('unsupported_in_environment', 'Multi-byte elements need a little-endian host.', at);
  }
  w.checkBinary(view.byteLength, at, name);
  w.addExact(base64Length(view.byteLength), at);
  return encodeBase64(view);
}

/**
 * The element size decides what whole means: 3 bytes are a Uint8Array but no Int16Array.
 * The bytes are read little-endian by every engine we target ([B4]).
 */
export function liftBinary(name: BinaryName, value: unknown, w: WalkState, at: string): unknown {
  const bytes = liftBase64(value, w, at, name);
  const size = elementSize(name);
  if (bytes.byteLength % size !== 0) {
    w.fail(
      'invalid_value',
      `${bytes.byteLength} bytes is not a whole number of ${name} elements.`,
      `${at}/webType`,
    );
  }
  if (!LITTLE_ENDIAN && size > 1) {
    w.fail('unsupported_in_environment', 'Multi-byte elements need a little-endian host.', at);
  }
  // decodeBase64 hands back a view that owns its whole buffer, so no bytes beyond it leak.
  const buffer = bytes.buffer as ArrayBuffer;
  if (name === 'ArrayBuffer') return buffer;
  if (name === 'DataView') return new DataView(buffer);
  return new TYPED[name](buffer);
}

/**
 * `ArrayBuffer.prototype.detached` is ES2024 (absent in Node 20); where it is missing, slicing
 * is the test: it throws on a detached buffer only, and only a zero-length buffer needs it.
 */
function isDetached(buffer: unknown): boolean {
  if (!(buffer instanceof ArrayBuffer)) return false;
  const flag = (buffer as { detached?: boolean }).detached;
  if (typeof flag === 'boolean') return flag;
  if (buffer.byteLength !== 0) return false;
  try {
    buffer.slice(0);
    return false;
  } catch {
    return true;
  }
}

/** Bytes per element: 1 for ArrayBuffer and DataView, which are untyped bytes. */
function elementSize(name: BinaryName): number {
  if (name === 'ArrayBuffer' || name === 'DataView') return 1;
  return (TYPED[name] as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
}
