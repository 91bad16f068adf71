/**
 * The finest step `performance.now()` takes in this context (5 us in a cross-origin isolated
 * page), for bench pages served by Vite. bench/pages/polyfill-page.ts keeps its own copy: it is
 * served as a single transformed file, with no module graph to import this from.
 */
export function timerResolutionUs(): number {
  let finest = Number.POSITIVE_INFINITY;
  for (let k = 0; k < 20; k++) {
    const start = performance.now();
    let next = performance.now();
    while (next === start) next = performance.now();
    finest = Math.min(finest, next - start);
  }
  return finest * 1000;
}
