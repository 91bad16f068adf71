/**
 * Declarative tools (webmachinelearning/webmcp declarative-api-explainer.md): every
 * `<form toolname tooldescription>` of the document, open shadow roots included, becomes a tool
 * in the shared registry. This is the lazily loaded chunk `polyfill-declarative`; the core's
 * gate (gate.ts) loads it only once such a form exists.
 *
 * 1. Discovery: a MutationObserver on the document and on every open shadow root found in it
 *    (or attached later: attachShadow is wrapped) rescans when forms, controls or tool
 *    attributes change. A changed declaration replaces the
 *    registration (one `toolchange`); a form that loses `toolname`/`tooldescription` or leaves
 *    the document is unregistered. Names are first come, first served: a form whose name is
 *    taken is skipped (with a console warning) until the name is free again.
 * 2. A call checks the input against the controls, fills them (fill.ts), marks the form and its
 *    default button active (`data-tool-form-active`, `data-tool-submit-active`: a polyfill
 *    cannot add the `:tool-form-active` / `:tool-submit-active` pseudo-classes), fires
 *    `toolactivated`, then submits (`toolautosubmit`, through requestSubmit so that validation
 *    and the submit event happen as for a user) or focuses the submit button and waits.
 *    The form decides what it takes, on every road a call comes by (executeTool, window.tools,
 *    the wire): input that does not fit the controls is refused before anything is filled, and
 *    an autosubmitted form whose own validation refuses the filled values (required, pattern,
 *    min/max/step, email/url, the page's setCustomValidity) refuses the call, as Chromium's
 *    "Form validation failed" does, instead of waiting. Both refusals are a DataError whose
 *    issues name the properties (a caller's error, not the tool's: CALLER_ERROR).
 * 3. The submit event of a waiting form has `agentInvoked` true and a working `respondWith()`
 *    (only after `preventDefault()`, else InvalidStateError, as in Chromium). Its outcome:
 *    respondWith's value -> the result (the last call wins, as in Chromium); not prevented, or
 *    `form.submit()` called -> a navigation, result null (the spec's `DOMString?` null for
 *    "the execution navigated"); prevented without respondWith -> a failure (Chromium 156
 *    rejects this too: the page gave the agent no answer).
 * 4. Before its submit event, a call ends when the caller aborts (registry: AbortError,
 *    `toolcancel`), when the form is removed or its name/description change (NotFoundError,
 *    UnknownError through modelContext; `toolcancel`), when the form is reset (a failure;
 *    `toolcancel`), or when a newer call on the same form takes over (a failure). After the
 *    submit event it completes even if the form goes away.
 */
import { dataError } from '../errors.js';
import { isValidToolName } from '../lib/names.js';
import { policyFromAnnotations } from '../policy.js';
import type { RegistryEntry, ToolRegistry } from '../registry.js';
import type { ToolExecuteContext } from '../types.js';
import type { ValidationIssue } from '../validation/types.js';
import { checkInput, fill } from './fill.js';
import { hookAttachShadow, invalidState, patchPrototypes } from './prototypes.js';
import type { Field } from './schema.js';
import { synthesize } from './schema.js';

export interface DeclarativeDeps {
  window: Window & typeof globalThis;
  registry: ToolRegistry;
  /** Where toolactivated / toolcancel fire (document.modelContext). */
  events: EventTarget;
  /** The core's event classes, so that `instanceof ToolActivatedEvent` holds for these too. */
  activated(toolName: string): Event;
  cancelled(toolName: string): Event;
  /** Native mirroring, as for toolManager registrations. */
  onRegister?(entry: RegistryEntry): Promise<void> | undefined;
  onUnregister?(entry: RegistryEntry): void;
}

export const FORM_ACTIVE = 'data-tool-form-active';
export const SUBMIT_ACTIVE = 'data-tool-submit-active';

const WATCHED = [
  'toolname',
  'tooldescription',
  'tooltitle',
  'toolautosubmit',
  'toolparamtitle',
  'toolparamdescription',
  'name',
  'type',
  'required',
  'disabled',
  'pattern',
  'min',
  'max',
  'step',
  'minlength',
  'maxlength',
  'multiple',
  'value',
  'label',
  'form',
];
/** Elements whose arrival or departure can change a form tool. */
const RELEVANT = 'form,input,select,textarea,option,optgroup,fieldset';

interface Registration {
  entry: RegistryEntry;
  signature: string;
  fields: Map<string, Field>;
}

interface Call {
  form: HTMLFormElement;
  name: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** The submit event that answers this call, once it came. */
  event?: Event;
  response?: Promise<unknown>;
  navigated?: boolean;
  button?: Element | null;
  done?: boolean;
}

// registry.ts's CALLER_ERROR (a registered symbol): importing it would pull the registry in.
const CALLER_ERROR = Symbol.for('toolwire.callerError');

/** The failure a caller sees when the tool itself went away (registry.ts CALLER_ERROR). */
function gone(name: string): DOMException {
  const error = new DOMException(
    `The form of tool "${name}" was removed before it was submitted.`,
    'NotFoundError',
  );
  Object.defineProperty(error, CALLER_ERROR, { value: true });
  return error;
}

/** A call the form refuses: its issues, as the caller's error (2 above). */
function refused(issues: ValidationIssue[]): DOMException {
  const error = dataError(issues);
  Object.defineProperty(error, CALLER_ERROR, { value: true });
  return error;
}

/** The keyword of the input schema (schema.ts) that says what a ValidityState flag checks. */
const VALIDITY_KEYWORDS: [keyof ValidityState, string][] = [
  ['valueMissing', 'required'],
  ['typeMismatch', 'format'],
  ['patternMismatch', 'pattern'],
  ['rangeUnderflow', 'minimum'],
  ['rangeOverflow', 'maximum'],
  ['stepMismatch', 'multipleOf'],
  ['badInput', 'type'],
  ['tooShort', 'minLength'],
  ['tooLong', 'maxLength'],
];

/**
 * Why the form's own constraint validation refuses its values: one issue per invalid control,
 * at its property (the root for a control that is none: a file input, an unnamed one), in the
 * browser's words. A `setCustomValidity` refusal is the page's own rule: no schema keyword.
 */
function validityIssues(form: HTMLFormElement, fields: Map<string, Field>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const element of form.elements) {
    const control = element as HTMLInputElement;
    if (!control.willValidate || control.validity?.valid !== false) continue;
    const name = fields.has(control.name) ? control.name : undefined;
    const path = name === undefined ? '' : `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const keyword = VALIDITY_KEYWORDS.find(([flag]) => control.validity[flag])?.[1];
    const schemaPath =
      keyword === undefined
        ? ''
        : keyword === 'required'
          ? '#/required'
          : name === undefined
            ? ''
            : `#/properties${path}/${keyword}`;
    // A radio group's radios each say it once: one issue for the property.
    if (issues.some((issue) => issue.path === path && issue.schemaPath === schemaPath && path))
      continue;
    const reason = control.validationMessage || 'is refused by the form';
    issues.push({ path, reason, schemaPath });
  }
  return issues;
}

/** The default button: the form's first submit button (HTML "default button"). */
function defaultButton(form: HTMLFormElement): Element | null {
  for (const element of form.elements) {
    const type = (element as HTMLInputElement).type;
    if (
      (element.localName === 'button' && type === 'submit') ||
      (element.localName === 'input' && (type === 'submit' || type === 'image'))
    )
      return element;
  }
  return null;
}

export function startDeclarative(deps: DeclarativeDeps): () => void {
  const { window: win, registry } = deps;
  const doc = win.document;
  const registered = new Map<HTMLFormElement, Registration>();
  /** The latest call per form, until it ends. */
  const calls = new Map<HTMLFormElement, Call>();
  const bound = new WeakMap<Event, Call>();
  const roots = new Set<Document | ShadowRoot>();
  const warned = new WeakMap<HTMLFormElement, string>();

  const finish = (call: Call, ok: boolean, value: unknown) => {
    if (call.done) return;
    call.done = true;
    if (calls.get(call.form) === call) calls.delete(call.form);
    call.form.removeAttribute(FORM_ACTIVE);
    call.button?.removeAttribute(SUBMIT_ACTIVE);
    if (ok) call.resolve(value);
    else call.reject(value);
  };

  /** Ends a call that has not been submitted yet, telling listeners it was cancelled. */
  const cancel = (form: HTMLFormElement, error: unknown) => {
    const call = calls.get(form);
    if (!call || call.event || call.done) return;
    finish(call, false, error);
    deps.events.dispatchEvent(deps.cancelled(call.name));
  };

  /** After the submit event has been dispatched: what did the page do with it? */
  const settle = (call: Call) => {
    if (call.done) return;
    if (call.response) {
      call.response.then(
        (value) => finish(call, true, value),
        (error) => finish(call, false, error),
      );
    } else if (!(call.event as Event).defaultPrevented || call.navigated) {
      finish(call, true, null);
    } else {
      finish(
        call,
        false,
        invalidState('The submit event was cancelled with preventDefault() but no respondWith().'),
      );
    }
  };

  /** The call a submit event answers: the first trusted submit of a waiting form. */
  const callFor = (event: Event): Call | undefined => {
    const known = bound.get(event);
    if (known) return known;
    // happy-dom leaves isTrusted undefined; browsers always set it.
    if (event.type !== 'submit' || event.eventPhase === 0 || event.isTrusted === false)
      return undefined;
    const call = calls.get(event.target as HTMLFormElement);
    if (!call || call.event || call.done) return undefined;
    call.event = event;
    bound.set(event, call);
    // Dispatch ends before this task: then the page has said what it wanted.
    setTimeout(() => settle(call), 0);
    return call;
  };

  const onSubmit = (event: Event) => void callFor(event);
  const onReset = (event: Event) =>
    cancel(event.target as HTMLFormElement, new DOMException('The form was reset.', 'AbortError'));

  patchPrototypes(win, callFor, (form) => {
    const call = calls.get(form);
    if (!call || call.done) return;
    call.navigated = true;
    if (!call.event) finish(call, true, null);
  });

  const execute =
    (form: HTMLFormElement, name: string) => (input: unknown, context: ToolExecuteContext) => {
      const registration = registered.get(form);
      if (!registration) throw gone(name);
      const misfits = checkInput(registration.fields, input);
      if (misfits.length > 0) throw refused(misfits);
      const record = input as Record<string, unknown>;
      cancel(form, new DOMException('A newer call took over this form.', 'AbortError'));
      return new Promise((resolve, reject) => {
        const call: Call = { form, name, resolve, reject };
        calls.set(form, call);
        context.signal.addEventListener('abort', () => finish(call, false, context.signal.reason), {
          once: true,
        });
        fill(registration.fields, record);
        if (call.done) return; // an input or change handler removed the form
        form.setAttribute(FORM_ACTIVE, '');
        call.button = defaultButton(form);
        call.button?.setAttribute(SUBMIT_ACTIVE, '');
        deps.events.dispatchEvent(deps.activated(name));
        if (call.done) return;
        if (!form.hasAttribute('toolautosubmit')) {
          (call.button as HTMLElement | null)?.focus?.();
          return;
        }
        form.requestSubmit();
        // No submit event: the form's own validation refused what the call filled in (2).
        if (call.event || call.done) return;
        const invalid = validityIssues(form, registration.fields);
        if (invalid.length > 0) finish(call, false, refused(invalid));
      });
    };

  const drop = (form: HTMLFormElement, cancelCall: boolean) => {
    const current = registered.get(form);
    if (!current) return;
    registered.delete(form);
    deps.onUnregister?.(current.entry);
    registry.remove(current.entry);
    if (cancelCall) cancel(form, gone(current.entry.name));
  };

  const sync = (form: HTMLFormElement) => {
    const name = form.getAttribute('toolname');
    const description = form.getAttribute('tooldescription');
    const current = registered.get(form);
    if (!name || !description || !isValidToolName(name)) {
      drop(form, true);
      return;
    }
    const { schema, fields } = synthesize(form);
    const title = form.getAttribute('tooltitle');
    const signature = JSON.stringify([
      name,
      title,
      description,
      form.hasAttribute('toolautosubmit'),
      schema,
    ]);
    if (current?.signature === signature) {
      current.fields = fields; // same shape, maybe new elements
      return;
    }
    // Only a new name or description cancels a call in progress (explainer "Pseudo-classes").
    if (current)
      drop(form, current.entry.name !== name || current.entry.description !== description);
    if (registry.get(name)) {
      // Once per form and name: every later rescan would repeat it.
      if (warned.get(form) !== name) {
        warned.set(form, name);
        console.warn(`toolwire: form tool "${name}" is not registered: the name is taken.`);
      }
      return;
    }
    const entry = registry.add({
      name,
      origin: registry.origin,
      exposedTo: [],
      layer: 'declarative',
      agentExposed: true,
      title,
      description,
      annotations: null,
      inputSchema: schema,
      outputSchema: undefined,
      category: undefined,
      keywords: [],
      prerequisites: [],
      // Form tools carry no annotations.
      policy: policyFromAnnotations(null),
      availability: undefined,
      execute: execute(form, name),
      events: deps.events,
      selfActivating: true,
    });
    registered.set(form, { entry, signature, fields });
    form.addEventListener('submit', onSubmit);
    form.addEventListener('reset', onReset);
    void deps.onRegister?.(entry);
  };

  const observer = new win.MutationObserver((records) => {
    let relevant = false;
    for (const record of records) {
      if (record.type === 'attributes') relevant = true;
      for (const node of record.addedNodes) {
        if (isRelevant(node)) relevant = true;
        adopt(node);
      }
      for (const node of record.removedNodes) if (isRelevant(node)) relevant = true;
    }
    if (relevant) scan();
  });

  /** Starts watching every open shadow root at or below `node` not yet known. */
  function adopt(node: Node): void {
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
    const parent = node as Element;
    const hosts = parent.querySelectorAll('*');
    for (const host of [parent, ...hosts]) {
      const root = (host as Element).shadowRoot;
      if (!root || roots.has(root)) continue;
      roots.add(root);
      watch(root);
      adopt(root);
    }
  }

  function watch(root: Document | ShadowRoot): void {
    roots.add(root);
    observer.observe(root, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: WATCHED,
    });
  }

  function scan(): void {
    const forms: HTMLFormElement[] = [];
    for (const root of roots) {
      if (root !== doc && !(root as ShadowRoot).host.isConnected) {
        roots.delete(root); // found again through addedNodes if its host comes back
        continue;
      }
      forms.push(...root.querySelectorAll('form'));
    }
    // Departures first, so that a name they free is there for the forms that follow.
    for (const form of [...registered.keys()]) if (!forms.includes(form)) drop(form, true);
    for (const form of forms) sync(form);
  }

  watch(doc);
  adopt(doc);
  // A shadow root attached to an element already in the document causes no mutation record.
  hookAttachShadow(win, (root) => {
    if (root.host.ownerDocument !== doc || roots.has(root)) return;
    watch(root);
    queueMicrotask(scan);
  });
  scan();
  return () => {
    observer.disconnect();
    for (const form of [...registered.keys()]) drop(form, true);
  };
}

function isRelevant(node: Node): boolean {
  if (node.nodeType !== 1) return false;
  const element = node as Element;
  return (
    element.matches(RELEVANT) ||
    element.querySelector(RELEVANT) !== null ||
    element.shadowRoot !== null
  );
}
