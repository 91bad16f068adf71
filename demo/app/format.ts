/** Small helpers shared by the session panel and the agent view. */

/** A string longer than this is clipped in pretty-printed JSON (a Blob's base64, say). */
const CLIP = 120;

/** Pretty JSON, long strings clipped so one exchange stays readable. */
export function pretty(value: unknown): string {
  if (value === undefined) return '(nothing)';
  return JSON.stringify(
    value,
    (_key, item: unknown) =>
      typeof item === 'string' && item.length > CLIP
        ? `${item.slice(0, CLIP)}… (${item.length} chars)`
        : item,
    2,
  );
}

/** One-line JSON, clipped to `max` characters. */
export function oneLine(value: unknown, max = 80): string {
  if (value === undefined) return '';
  const text = JSON.stringify(value) ?? '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className = '',
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.append(...children);
  return node;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function clock(date: Date): string {
  return date.toTimeString().slice(0, 8);
}
