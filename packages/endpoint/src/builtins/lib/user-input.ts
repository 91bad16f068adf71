/**
 * Input as a user's would arrive: the pointer and mouse sequence around a click, values
 * set through the native setter followed by `input` and `change`.
 *
 * - Events are built from the element's own window (frames, happy-dom), bubble and are
 *   composed. They are untrusted (`isTrusted: false`), as any script-dispatched event; the
 *   browser still runs a click's activation behaviour (toggle, submit, follow a link).
 * - `setNativeValue` calls the prototype's `value` setter, not the element's own property:
 *   React (and others) wrap the instance property to track the last value they saw, so going
 *   around it is what lets them notice the change in the following `input` event.
 */

type EventConstructor<T extends Event, I> = new (type: string, init?: I) => T;

interface EventWindow {
  Event: typeof Event;
  MouseEvent: typeof MouseEvent;
  PointerEvent?: typeof PointerEvent;
  InputEvent?: typeof InputEvent;
}

function viewOf(element: Element): EventWindow {
  return (element.ownerDocument.defaultView ?? globalThis) as unknown as EventWindow;
}

// Focusable elements (HTML "focusable area", without layout); a click focuses the nearest one.
const FOCUSABLE =
  'a[href], area[href], button, input, select, textarea, summary, iframe, [tabindex], [contenteditable=""], [contenteditable="true"], [contenteditable="plaintext-only"]';

/** Whether `focus()` can move focus to the element (decided by markup, as happy-dom focuses anything). */
export function isFocusable(element: Element): boolean {
  return element.matches(FOCUSABLE);
}

function center(element: Element): { clientX: number; clientY: number } {
  if (typeof element.getBoundingClientRect !== 'function') return { clientX: 0, clientY: 0 };
  const rect = element.getBoundingClientRect();
  return { clientX: rect.x + rect.width / 2, clientY: rect.y + rect.height / 2 };
}

/**
 * pointerdown, mousedown, focus (unless mousedown was cancelled), pointerup, mouseup, click.
 * A cancelled pointerdown suppresses the compatibility mouse events but not the click
 * (Pointer Events 3, "compatibility mapping").
 */
export function tap(element: Element): void {
  const view = viewOf(element);
  const base = {
    bubbles: true,
    cancelable: true,
    composed: true,
    view: element.ownerDocument.defaultView,
    button: 0,
    detail: 1,
    ...center(element),
  };
  const Pointer = view.PointerEvent as EventConstructor<Event, PointerEventInit> | undefined;
  const pointer = { ...base, pointerId: 1, pointerType: 'mouse', isPrimary: true };
  const pointerDown = Pointer
    ? element.dispatchEvent(new Pointer('pointerdown', { ...pointer, buttons: 1 }))
    : true;
  let mouseDown = true;
  if (pointerDown)
    mouseDown = element.dispatchEvent(new view.MouseEvent('mousedown', { ...base, buttons: 1 }));
  if (mouseDown) {
    const focusable = element.closest(FOCUSABLE) as HTMLElement | null;
    focusable?.focus?.();
  }
  if (Pointer) element.dispatchEvent(new Pointer('pointerup', { ...pointer, buttons: 0 }));
  if (pointerDown) element.dispatchEvent(new view.MouseEvent('mouseup', { ...base, buttons: 0 }));
  element.dispatchEvent(new view.MouseEvent('click', { ...base, buttons: 0 }));
}

/** Sets `value` through the nearest prototype setter, around any instance-level override. */
export function setNativeValue(
  element: HTMLInputElement | HTMLTextAreaElement,
  value: string,
): void {
  for (let proto = Object.getPrototypeOf(element); proto; proto = Object.getPrototypeOf(proto)) {
    const setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set;
    if (setter) {
      setter.call(element, value);
      return;
    }
  }
  element.value = value;
}

/**
 * `input` as the browser fires it: an InputEvent carrying `inputType` and `data` for typing,
 * a plain Event for a `<select>` (no inputType is given).
 */
export function dispatchInput(
  element: Element,
  inputType?: string,
  data: string | null = null,
): void {
  const view = viewOf(element);
  const Input = view.InputEvent as EventConstructor<Event, InputEventInit> | undefined;
  const init = { bubbles: true, cancelable: false, composed: true };
  element.dispatchEvent(
    inputType !== undefined && Input
      ? new Input('input', { ...init, inputType, data })
      : new view.Event('input', init),
  );
}

export function dispatchChange(element: Element): void {
  element.dispatchEvent(new (viewOf(element).Event)('change', { bubbles: true }));
}
