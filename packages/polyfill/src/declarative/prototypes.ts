/**
 * What the declarative chunk adds to the window's prototypes (forms.ts): `agentInvoked` and
 * `respondWith()` on SubmitEvent, a hook on `form.submit()`, and one on `attachShadow` (a shadow
 * root attached to an element already in the document causes no mutation record).
 */

export function invalidState(message: string): DOMException {
  return new DOMException(message, 'InvalidStateError');
}

/** A call waiting for its form's submit event; respondWith() sets its response. */
export interface Answerable {
  response?: Promise<unknown>;
}

/**
 * Where this chunk's hooks live on the prototypes it extends. Windows can share prototypes
 * (happy-dom windows in one test realm), so each window adds its own hook to a list instead of
 * patching again; the gate also reads it to tell this polyfill from a native `agentInvoked`.
 */
const HOOKS = Symbol.for('toolwire.declarative');

type Hooked<T> = { [HOOKS]?: T[] };

/**
 * Adds `SubmitEvent.prototype.agentInvoked` / `respondWith()` (the explainer's "Additions to
 * SubmitEvent") and notices `form.submit()` on a waiting form (a navigation, WPT
 * execute_tool_submit_from_js). The browser's own members are never replaced: the gate does not
 * load this chunk where they exist.
 */
export function patchPrototypes(
  win: Window & typeof globalThis,
  callFor: (event: Event) => Answerable | undefined,
  submitted: (form: HTMLFormElement) => void,
): void {
  const proto = win.SubmitEvent?.prototype as (Event & Hooked<typeof callFor>) | undefined;
  if (proto && !('agentInvoked' in proto && proto[HOOKS])) {
    const finders: (typeof callFor)[] = [];
    proto[HOOKS] = finders;
    const find = (event: Event) => {
      for (const finder of finders) {
        const call = finder(event);
        if (call) return call;
      }
      return undefined;
    };
    Object.defineProperty(proto, 'agentInvoked', {
      configurable: true,
      enumerable: true,
      get(this: Event) {
        return find(this) !== undefined;
      },
    });
    Object.defineProperty(proto, 'respondWith', {
      configurable: true,
      writable: true,
      value(this: Event, response: unknown) {
        const call = find(this);
        if (!call)
          throw invalidState(
            'respondWith() can only be called on a submit event whose agentInvoked is true.',
          );
        if (!this.defaultPrevented)
          throw invalidState('Call preventDefault() on the submit event before respondWith().');
        if (this.eventPhase === 0)
          throw invalidState('respondWith() must be called while the submit event is dispatched.');
        call.response = Promise.resolve(response);
        // Handled in settle(), a task later: not an unhandled rejection meanwhile.
        call.response.catch(() => {});
      },
    });
  }
  proto?.[HOOKS]?.push(callFor);
  const form = win.HTMLFormElement.prototype as HTMLFormElement & Hooked<typeof submitted>;
  if (!form[HOOKS]) {
    const watchers: (typeof submitted)[] = [];
    form[HOOKS] = watchers;
    const submit = form.submit;
    form.submit = function (this: HTMLFormElement) {
      for (const watcher of watchers) watcher(this);
      return submit.call(this);
    };
  }
  form[HOOKS]?.push(submitted);
}

/** Tells `attached` about every open shadow root created in this window from now on. */
export function hookAttachShadow(
  win: Window & typeof globalThis,
  attached: (root: ShadowRoot) => void,
): void {
  const proto = win.Element.prototype as Element & Hooked<typeof attached>;
  if (!proto[HOOKS]) {
    const hooks: (typeof attached)[] = [];
    proto[HOOKS] = hooks;
    const attach = proto.attachShadow;
    proto.attachShadow = function (this: Element, init: ShadowRootInit) {
      const root = attach.call(this, init);
      // Closed roots stay private to their component, as they do for the browser's own scan.
      if (init.mode === 'open') for (const hook of hooks) hook(root);
      return root;
    };
  }
  proto[HOOKS]?.push(attached);
}
