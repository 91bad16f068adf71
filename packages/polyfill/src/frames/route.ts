/** Frame geometry: walks `frames` (readable across origins) to find a descendant window. */

/** Route from `from` down to `target` through `frames`, or undefined. */
export function routeFrom(from: Window, target: Window): number[] | undefined {
  if (from === target) return [];
  const search = (win: Window, depth: number): number[] | undefined => {
    if (depth > 16) return undefined;
    for (let i = 0; i < win.frames.length; i++) {
      const child = win.frames[i] as Window;
      if (child === target) return [i];
      const deeper = search(child, depth + 1);
      if (deeper) return [i, ...deeper];
    }
    return undefined;
  };
  return search(from, 0);
}

/** Frames deeper than this are never reached (routeFrom searches 16 levels; docs/wire.md routes allow 32). */
export const MAX_ROUTE_DEPTH = 32;

/**
 * The window `route` leads to from `from`, or undefined when there is none. Reads only `frames`,
 * `length` and in-range indices, which a cross-origin WindowProxy allows: an index past the end
 * of a cross-origin window's frames throws SecurityError instead of answering undefined.
 */
export function windowAtRoute(from: Window, route: readonly number[]): Window | undefined {
  if (route.length > MAX_ROUTE_DEPTH) return undefined;
  let win: Window | undefined = from;
  try {
    for (const index of route) {
      const frames: Window = win.frames;
      if (!Number.isInteger(index) || index < 0 || index >= frames.length) return undefined;
      win = frames[index] as Window | undefined;
      if (!win) return undefined;
    }
  } catch {
    return undefined;
  }
  return win;
}
