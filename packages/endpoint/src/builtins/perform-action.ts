/**
 * `ui.perform_action` (write): one user action on a node referenced by `ui.query_nodes`.
 *
 * Staleness, precisely: a reference is stale when its node id resolves to no element that is
 * still connected to this document (never issued here, collected, removed, moved elsewhere),
 * or when it names a revision this page has not reached yet (it came from an earlier load of
 * the page, whose ids restarted). A reference from an older revision whose element still exists
 * is **not** stale: ids are never reused, so the id still names the element the caller saw,
 * wherever it moved and whatever changed around it. Stale fails `stale_node_reference` with
 * `details.refreshWith: "ui.query_nodes"`.
 *
 * Order of checks: stale, disabled (`node_disabled`; not for scrollIntoView), element kind
 * (`action_not_supported`), then the action. The result reports the snapshot after the action.
 */
import type { BridgeTool, ToolFailureOutcome } from '@toolwire/protocol';
import { toolFailure, toolResult } from '@toolwire/protocol';
import { BUILTIN_ERROR_CODES, invalidArguments, staleReference } from './lib/failures.js';
import { checkedOf, rawValueOf } from './lib/node-state.js';
import { roleOf } from './lib/roles.js';
import type { DomSnapshotter } from './lib/snapshot.js';
import { collapse, truncate } from './lib/text.js';
import {
  dispatchChange,
  dispatchInput,
  isFocusable,
  setNativeValue,
  tap,
} from './lib/user-input.js';
import { isEnabled } from './lib/visibility.js';
import { MAX_RESULT_VALUE, UI_ACTIONS } from './perform-action-definition.js';
import type { NodeReference, PerformActionResult, UiAction } from './types.js';

// Inputs whose value a user cannot type.
const UNTYPABLE_INPUTS: ReadonlySet<string> = new Set([
  'button',
  'checkbox',
  'file',
  'hidden',
  'image',
  'radio',
  'reset',
  'submit',
]);

function notSupported(action: UiAction, element: Element, why: string) {
  return toolFailure({
    code: BUILTIN_ERROR_CODES.actionNotSupported,
    message: `Cannot ${action} a <${element.localName}>: ${why}.`,
    details: { action, element: element.localName, role: roleOf(element) },
  });
}

/** A failure, a message to attach to the result (the action ran but did nothing), or nothing. */
type Outcome = ToolFailureOutcome | string | undefined;

function setText(element: Element, action: UiAction, text: string): Outcome {
  if (element.localName === 'input' || element.localName === 'textarea') {
    const field = element as HTMLInputElement | HTMLTextAreaElement;
    if (element.localName === 'input' && UNTYPABLE_INPUTS.has((field as HTMLInputElement).type))
      return notSupported(
        action,
        element,
        `an input of type "${(field as HTMLInputElement).type}" takes no text`,
      );
    if (field.readOnly) return notSupported(action, element, 'it is read-only');
    field.focus?.();
    setNativeValue(field, text);
    dispatchInput(
      field,
      text === '' ? 'deleteContentBackward' : 'insertText',
      text === '' ? null : text,
    );
    dispatchChange(field);
    return undefined;
  }
  if (isEditableContent(element)) {
    (element as HTMLElement).focus?.();
    element.textContent = text;
    // Editable content fires input but never change.
    dispatchInput(
      element,
      text === '' ? 'deleteContentBackward' : 'insertReplacementText',
      text === '' ? null : text,
    );
    return undefined;
  }
  return notSupported(action, element, 'it is not a text field');
}

function isEditableContent(element: Element): boolean {
  if ((element as HTMLElement).isContentEditable === true) return true;
  const editable = element.closest('[contenteditable]')?.getAttribute('contenteditable');
  return editable === '' || editable === 'true' || editable === 'plaintext-only';
}

function optionLabel(option: HTMLOptionElement): string {
  return collapse(option.label || option.text);
}

function selectOptions(element: Element, value: unknown): Outcome {
  if (element.localName !== 'select')
    return notSupported('select', element, 'it is not a <select>');
  const select = element as HTMLSelectElement;
  const wanted = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  if (!wanted || wanted.length === 0 || wanted.some((item) => typeof item !== 'string'))
    return invalidArguments('select needs `value`: an option value or label, or an array of them.');
  if (!select.multiple && wanted.length > 1)
    return invalidArguments('This <select> takes one option; pass a single value.');
  const options = Array.from(select.options);
  const chosen: HTMLOptionElement[] = [];
  for (const item of wanted as string[]) {
    const needle = collapse(item);
    const option =
      options.find((candidate) => candidate.value === item) ??
      options.find((candidate) => optionLabel(candidate) === needle) ??
      options.find((candidate) => optionLabel(candidate).toLowerCase() === needle.toLowerCase());
    if (!option) {
      return toolFailure({
        code: BUILTIN_ERROR_CODES.optionNotFound,
        message: `No option of this <select> has the value or label "${item}".`,
        details: {
          value: item,
          options: options.slice(0, 50).map((candidate) => ({
            value: candidate.value,
            label: optionLabel(candidate),
          })),
        },
      });
    }
    if (!isEnabled(option)) {
      return toolFailure({
        code: BUILTIN_ERROR_CODES.nodeDisabled,
        message: `The option "${optionLabel(option)}" is disabled.`,
        details: { value: option.value },
      });
    }
    chosen.push(option);
  }
  let changed = false;
  for (const option of options) {
    const selected = chosen.includes(option);
    if (option.selected !== selected) {
      option.selected = selected;
      changed = true;
    }
  }
  // A user picking the option already shown fires nothing; so do we.
  if (changed) {
    dispatchInput(select);
    dispatchChange(select);
  }
  return changed ? undefined : 'That selection was already made; no event was fired.';
}

function check(element: Element, wanted: boolean): Outcome {
  const role = roleOf(element);
  const state = checkedOf(element, role);
  if (state === undefined)
    return notSupported('check', element, `its role "${role}" has no checked state`);
  const isRadio = role === 'radio' || role === 'menuitemradio';
  if (isRadio && !wanted)
    return notSupported('check', element, 'a radio button is unchecked by checking another one');
  if (state === wanted) return `Already ${wanted ? 'checked' : 'unchecked'}; not clicked.`;
  tap(element);
  const after = checkedOf(element, role);
  return after === wanted
    ? undefined
    : `Clicked, but the page left it ${after === true ? 'checked' : after === 'mixed' ? 'mixed' : 'unchecked'}.`;
}

function focus(element: Element): Outcome {
  if (!isFocusable(element)) return notSupported('focus', element, 'it cannot take focus');
  (element as HTMLElement).focus?.();
  if (element.ownerDocument.activeElement !== element)
    return notSupported('focus', element, 'it cannot take focus');
  return undefined;
}

function scrollIntoView(element: Element): Outcome {
  element.scrollIntoView?.({ block: 'center', inline: 'nearest' });
  return undefined;
}

export function performAction(snapshotter: DomSnapshotter): BridgeTool['execute'] {
  return (args) => {
    const reference = args.reference as NodeReference | undefined;
    const action = args.action as UiAction;
    if (!reference || typeof reference.nodeId !== 'string' || !UI_ACTIONS.includes(action))
      return invalidArguments('ui.perform_action needs a reference and an action.');
    const { nodeId } = reference;
    if (typeof reference.revision === 'number' && reference.revision > snapshotter.revision())
      return staleReference(
        nodeId,
        'comes from a revision this page has not reached (an earlier page load)',
      );
    const element = snapshotter.resolve(nodeId);
    if (!element) return staleReference(nodeId, 'is no longer in the page');
    if (action !== 'scrollIntoView' && !isEnabled(element)) {
      return toolFailure({
        code: BUILTIN_ERROR_CODES.nodeDisabled,
        message: `Node ${nodeId} is disabled; a user could not ${action} it.`,
        details: { nodeId, action },
      });
    }

    let outcome: Outcome;
    switch (action) {
      case 'tap':
        tap(element);
        break;
      case 'setText':
        if (typeof args.text !== 'string') return invalidArguments('setText needs `text`.');
        outcome = setText(element, action, args.text);
        break;
      case 'clear':
        outcome = setText(element, action, '');
        break;
      case 'focus':
        outcome = focus(element);
        break;
      case 'scrollIntoView':
        outcome = scrollIntoView(element);
        break;
      case 'select':
        outcome = selectOptions(element, args.value);
        break;
      case 'check':
        outcome = check(element, args.checked !== false);
        break;
    }
    if (outcome !== undefined && typeof outcome !== 'string') return outcome;

    const capture = snapshotter.capture();
    const result: PerformActionResult = {
      performed: action,
      nodeId,
      snapshotId: capture.snapshotId,
      revision: capture.revision,
    };
    const value = rawValueOf(element);
    if (value !== undefined) result.value = truncate(value, MAX_RESULT_VALUE);
    const checked = checkedOf(element, roleOf(element));
    if (checked !== undefined) result.checked = checked;
    return typeof outcome === 'string' ? toolResult(result, { message: outcome }) : result;
  };
}
