/**
 * The core's part of declarative tools: decides whether the page needs the
 * `polyfill-declarative` chunk at all, and loads it when it does. It costs a page without tool
 * forms one MutationObserver that looks at added elements only.
 *
 * - Native declarative support (`SubmitEvent.prototype.agentInvoked`, Chromium with the WebMCP
 *   flag) registers forms itself; scanning too would register every form twice, so nothing runs.
 * - Otherwise the chunk starts as soon as a `form[toolname]` or an open shadow root (which may
 *   hold one, now or later) is in the document.
 */
const FORM = 'form[toolname]';
/** The endpoint's pairing prompt (packages/endpoint/src/pairing-prompt.ts). */
const PROMPT = 'toolwire-pairing';

/**
 * An open shadow root may hold a tool form, but for the endpoint's pairing prompt's. The
 * polyfill's own page script has no prompt: the define drops the test from it (written out at
 * each use, as a helper function would stay in that script).
 */
function holdsForm(node: Node): boolean {
  if (node.nodeType !== 1 && node.nodeType !== 9) return false;
  const element = node as Element;
  if (
    element.matches?.(FORM) ||
    (typeof __TOOLWIRE_PACKAGE__ !== 'undefined' && __TOOLWIRE_PACKAGE__ === '@toolwire/polyfill'
      ? element.shadowRoot
      : element.shadowRoot && element.localName !== PROMPT) ||
    element.querySelector(FORM)
  )
    return true;
  for (const child of element.querySelectorAll('*')) {
    if (
      typeof __TOOLWIRE_PACKAGE__ !== 'undefined' && __TOOLWIRE_PACKAGE__ === '@toolwire/polyfill'
        ? child.shadowRoot
        : child.shadowRoot && child.localName !== PROMPT
    )
      return true;
  }
  return false;
}

export function watchForms(win: Window & typeof globalThis, start: () => void): void {
  const proto = win.SubmitEvent?.prototype;
  // The chunk marks its own agentInvoked (prototypes.ts HOOKS): that one is not native.
  const native = proto && 'agentInvoked' in proto && !(Symbol.for('toolwire.declarative') in proto);
  if (!win.MutationObserver || native) return;
  const doc = win.document;
  if (holdsForm(doc)) {
    start();
    return;
  }
  const observer = new win.MutationObserver((records) => {
    for (const record of records) {
      if (record.type === 'attributes' || [...record.addedNodes].some(holdsForm)) {
        observer.disconnect();
        start();
        return;
      }
    }
  });
  observer.observe(doc, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['toolname'],
  });
}
