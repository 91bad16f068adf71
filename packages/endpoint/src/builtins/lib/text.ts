/**
 * Text as the built-in tools report it: whitespace collapsed, trimmed, bounded. `contentText`
 * is the "name from content" walk of accname 1.2 (step 2F), simplified: hidden descendants are
 * skipped, embedded controls contribute their value, inline elements join without a space.
 */
import { isHiddenSelf } from './visibility.js';

/** Names, texts and values in the tree and in query results are bounded to this many characters. */
const MAX_TEXT_LENGTH = 200;

/** Elements whose content is never text a user reads. */
export const SKIPPED_TAGS: ReadonlySet<string> = new Set([
  'script',
  'style',
  'template',
  'head',
  'noscript',
  'meta',
  'link',
  'title',
]);

// Inline formatting elements: their text joins the surrounding text without a separator.
const INLINE_TAGS: ReadonlySet<string> = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'ins',
  'kbd',
  'label',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
]);

// Enough raw text to fill MAX_TEXT_LENGTH after collapsing; the walk stops there.
const RAW_TEXT_BUDGET = MAX_TEXT_LENGTH * 8;

export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Cuts to at most `max` characters, the last one an ellipsis when something was cut. */
export function truncate(text: string, max = MAX_TEXT_LENGTH): string {
  return text.length > max ? `${text.slice(0, max - 1)}\u2026` : text;
}

/** Collapsed, bounded text, or undefined when empty (empty fields are omitted). */
export function clean(text: string | null | undefined): string | undefined {
  if (!text) return undefined;
  const collapsed = truncate(collapse(text));
  return collapsed === '' ? undefined : collapsed;
}

/** The element's own text: its text-node children only, not its descendants'. */
export function directText(element: Element): string | undefined {
  let text = '';
  for (let node = element.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 3) text += (node as Text).data;
    if (text.length > RAW_TEXT_BUDGET) break;
  }
  return clean(text);
}

/** What an embedded control contributes to its container's name (accname 2C/2E). */
function embeddedValue(element: Element): string | undefined {
  const tag = element.localName;
  if (tag === 'input') {
    const input = element as HTMLInputElement;
    if (['checkbox', 'radio', 'hidden', 'file', 'password'].includes(input.type)) return '';
    if (['button', 'submit', 'reset'].includes(input.type)) return undefined;
    return input.value;
  }
  if (tag === 'textarea') return (element as HTMLTextAreaElement).value;
  if (tag === 'select') {
    const select = element as HTMLSelectElement;
    return Array.from(select.options)
      .filter((option) => option.selected)
      .map((option) => option.text)
      .join(' ');
  }
  return undefined;
}

/**
 * The text a user reads inside `root` (accname "name from content"), skipping `exclude` (the
 * labelled control itself, when computing a wrapping label's text).
 */
export function contentText(root: Element, exclude?: Element): string {
  const parts: string[] = [];
  let length = 0;
  const visit = (node: Node): void => {
    if (length > RAW_TEXT_BUDGET) return;
    if (node.nodeType === 3) {
      const data = (node as Text).data;
      parts.push(data);
      length += data.length;
      return;
    }
    if (node.nodeType !== 1) return;
    const element = node as Element;
    if (element === exclude || SKIPPED_TAGS.has(element.localName)) return;
    if (element !== root && isHiddenSelf(element)) return;
    const inline = INLINE_TAGS.has(element.localName);
    if (!inline) parts.push(' ');
    const label = element === root ? null : element.getAttribute('aria-label');
    const embedded = element === root ? undefined : embeddedValue(element);
    if (label?.trim()) parts.push(label);
    else if (embedded !== undefined) parts.push(embedded);
    else if (element.localName === 'img') parts.push(element.getAttribute('alt') ?? '');
    else if (element.localName === 'br') parts.push(' ');
    else for (let child = element.firstChild; child; child = child.nextSibling) visit(child);
    if (!inline) parts.push(' ');
  };
  visit(root);
  return parts.join('');
}
