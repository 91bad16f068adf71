/**
 * The limits lower and lift enforce (LOWERING.md §"Limits"). Each breach is a coded
 * LoweringError; nothing is truncated, downscaled or re-encoded to fit.
 */
export interface LoweringLimits {
  /** Arrays/objects nested on the JSON side; the root container is level 1. At most 1000. */
  maxDepth: number;
  /** UTF-8 bytes of the compact JSON text lower produces, or lift is handed. */
  maxJsonBytes: number;
  /** Bytes of one binary value: a buffer or view, a Blob, a PNG, or an image's RGBA pixels. */
  maxBinaryBytes: number;
}

export type LoweringOptions = Partial<LoweringLimits>;

export const DEFAULT_LIMITS: Readonly<LoweringLimits> = Object.freeze({
  maxDepth: 128,
  maxJsonBytes: 64 * 1024 * 1024,
  maxBinaryBytes: 32 * 1024 * 1024,
});

/** The walkers recurse once or twice per level; this keeps them far from the engine's stack. */
export const MAX_DEPTH_CEILING = 1000;
