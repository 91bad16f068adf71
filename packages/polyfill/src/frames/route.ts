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
