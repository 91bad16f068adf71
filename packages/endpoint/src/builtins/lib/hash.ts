/**
 * FNV-1a (32-bit) over the UTF-16 code units of a string, as 8 lowercase hex digits: the short,
 * deterministic content hash in `snapshotId = "web:<revision>:<hash>"`. Not cryptographic; it
 * only tells two snapshots of the same revision counter apart.
 */
export function fnv1a32(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
