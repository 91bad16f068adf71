/** Percentiles over raw samples, shared by the benches that time calls inside a page. */

/** The q-quantile (0..1) of the samples, interpolated linearly between the two nearest ranks. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return (
    (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (at - low)
  );
}
