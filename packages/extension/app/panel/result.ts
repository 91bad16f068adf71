/**
 * Shows a call's result (lowered JSON, docs/lowering.md) readably: a lowered image as an
 * image, a lowered Blob or File as a download, everything as pretty-printed JSON. The result
 * is the page's data: images come only from checked base64 PNG/JPEG/GIF/WebP data URLs,
 * downloads are always `application/octet-stream` blobs, and text is inserted as text.
 */

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** Where to look for images and blobs inside a result. */
const MAX_DEPTH = 4;
const MAX_SHOWN_DATA = 120;

type Binary = { path: string; mimeType: string; data: string; name?: string; image: boolean };

function isBinary(value: unknown): value is { mimeType: string; data: string; name?: unknown } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.mimeType === 'string' &&
    typeof record.data === 'string' &&
    record.data.length % 4 === 0 &&
    BASE64.test(record.data)
  );
}

/** Lowered images and blobs in `value`, with their JSON paths. */
export function findBinaries(value: unknown, path = '', depth = 0, out: Binary[] = []): Binary[] {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return out;
  if (isBinary(value)) {
    const name = typeof value.name === 'string' ? value.name : undefined;
    out.push({
      path: path || '(result)',
      mimeType: value.mimeType,
      data: value.data,
      image: IMAGE_TYPES.has(value.mimeType) && name === undefined,
      ...(name === undefined ? {} : { name }),
    });
    return out;
  }
  for (const [key, child] of Object.entries(value as object))
    findBinaries(child, `${path}/${key}`, depth + 1, out);
  return out;
}

/** The result as JSON text, with long base64 data shortened for reading. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(
    value,
    (key, child) =>
      key === 'data' && typeof child === 'string' && child.length > MAX_SHOWN_DATA
        ? `${child.slice(0, MAX_SHOWN_DATA)}… (${child.length} base64 characters)`
        : child,
    2,
  );
}

function bytesOf(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** A file name safe to suggest: no path separators or control characters. */
function safeName(name: string | undefined, mimeType: string): string {
  let cleaned = '';
  for (const char of name ?? '')
    cleaned +=
      char.charCodeAt(0) < 0x20 || char === '\u007f' || '\\/:*?"<>|'.includes(char) ? '_' : char;
  cleaned = cleaned.slice(0, 100);
  if (cleaned && cleaned !== '.' && cleaned !== '..') return cleaned;
  const ext = mimeType
    .split('/')[1]
    ?.replace(/[^a-z0-9]/g, '')
    .slice(0, 8);
  return `result${ext ? `.${ext}` : '.bin'}`;
}

export function renderResult(doc: Document, result: unknown): HTMLElement {
  const root = doc.createElement('div');
  root.className = 'result';
  for (const binary of findBinaries(result)) {
    const figure = doc.createElement('figure');
    const caption = doc.createElement('figcaption');
    caption.textContent = `${binary.path}: ${binary.mimeType}`;
    if (binary.image) {
      const img = doc.createElement('img');
      img.alt = `image at ${binary.path}`;
      img.src = `data:${binary.mimeType};base64,${binary.data}`;
      figure.append(img, caption);
    } else {
      const link = doc.createElement('a');
      const blob = new Blob([bytesOf(binary.data)], { type: 'application/octet-stream' });
      link.href = URL.createObjectURL(blob);
      link.download = safeName(binary.name, binary.mimeType);
      link.textContent = `Download ${link.download} (${blob.size} bytes)`;
      figure.append(link, caption);
    }
    root.append(figure);
  }
  const pre = doc.createElement('pre');
  pre.textContent = prettyJson(result);
  root.append(pre);
  return root;
}
