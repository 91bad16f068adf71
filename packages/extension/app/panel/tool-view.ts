/**
 * One tool in the panel: its name, title, origin, source and policy, its description, the
 * form generated from its input schema (with a JSON editor to switch to), a Call button and
 * the last result. While a call runs, a Cancel button and a progress bar with the tool's
 * message beside it. Every page-controlled string is set as text.
 */
import type { TabCallOutcome, TabProgress, TabTool } from '../../src/types.js';
import { buildForm, jsonEditor } from './form.js';
import { renderResult } from './result.js';

/** A call the panel started: its outcome, and how to cancel it. */
export interface RunningCall {
  outcome: Promise<TabCallOutcome>;
  cancel(): void;
}

export type Caller = (
  name: string,
  args: unknown,
  onProgress: (progress: TabProgress) => void,
) => RunningCall;

function text<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  value: string,
  cls?: string,
) {
  const node = doc.createElement(tag);
  node.textContent = value;
  if (cls) node.className = cls;
  return node;
}

export function renderTool(doc: Document, tool: TabTool, call: Caller): HTMLElement {
  const article = doc.createElement('article');
  article.className = 'tool';
  article.dataset.tool = tool.name;
  const header = doc.createElement('header');
  header.append(text(doc, 'h3', tool.name, 'tool-name'));
  if (tool.title && tool.title !== tool.name)
    header.append(text(doc, 'span', tool.title, 'tool-title'));
  const badges = doc.createElement('p');
  badges.className = 'badges';
  badges.append(
    text(doc, 'span', tool.source, `badge source-${tool.source}`),
    text(doc, 'span', tool.policy ?? 'write', `badge policy-${tool.policy ?? 'write'}`),
    text(doc, 'span', tool.origin, 'badge origin'),
  );
  article.append(header, badges, text(doc, 'p', tool.description, 'description'));

  const form = buildForm(doc, tool.inputSchema);
  const json = jsonEditor(doc, undefined, 'arguments (JSON)');
  json.element.hidden = true;
  json.element.classList.add('json-editor');
  const toggle = text(doc, 'button', 'Edit as JSON', 'toggle-json');
  toggle.type = 'button';
  toggle.hidden = form.jsonOnly;
  toggle.addEventListener('click', () => {
    const toJson = json.element.hidden;
    if (toJson) {
      const current = form.read();
      json.element.value = JSON.stringify(current.ok ? current.value : {}, null, 2);
    }
    json.element.hidden = !toJson;
    form.element.hidden = toJson;
    toggle.textContent = toJson ? 'Use the form' : 'Edit as JSON';
  });
  const run = text(doc, 'button', 'Call', 'call');
  run.type = 'button';
  const cancel = text(doc, 'button', 'Cancel', 'cancel');
  cancel.type = 'button';
  cancel.hidden = true;
  const output = doc.createElement('div');
  output.className = 'output';
  run.addEventListener('click', async () => {
    const read = json.element.hidden ? form.read() : json.read();
    output.replaceChildren();
    if (!read.ok) {
      output.append(text(doc, 'p', read.message, 'error'));
      return;
    }
    const args = 'empty' in read && read.empty ? {} : read.value;
    run.disabled = true;
    const progress = progressView(doc);
    output.append(progress.element);
    const running = call(tool.name, args, progress.update);
    const onCancel = () => {
      cancel.disabled = true;
      running.cancel();
    };
    cancel.disabled = false;
    cancel.hidden = false;
    cancel.addEventListener('click', onCancel);
    const outcome = await running.outcome;
    cancel.removeEventListener('click', onCancel);
    cancel.hidden = true;
    run.disabled = false;
    output.replaceChildren(
      outcome.ok
        ? renderResult(doc, outcome.result)
        : text(doc, 'p', `${outcome.error.code}: ${outcome.error.message}`, 'error'),
    );
  });
  const actions = doc.createElement('div');
  actions.className = 'actions';
  actions.append(run, cancel, toggle);
  article.append(form.element, json.element, actions, output);
  return article;
}

/**
 * A running call's progress: a `<progress>` bar (indeterminate until the tool reports a
 * total), the count, and the tool's message beside it, as text.
 */
function progressView(doc: Document): {
  element: HTMLElement;
  update(progress: TabProgress): void;
} {
  const element = doc.createElement('div');
  element.className = 'progress';
  const bar = doc.createElement('progress');
  const count = text(doc, 'span', '', 'progress-count');
  const message = text(doc, 'span', '', 'progress-message');
  element.append(bar, count, message);
  return {
    element,
    update(progress) {
      if (progress.total !== undefined) {
        bar.max = progress.total;
        bar.value = Math.max(0, Math.min(progress.progress, progress.total));
        count.textContent = `${progress.progress}/${progress.total}`;
      } else {
        count.textContent = String(progress.progress);
      }
      message.textContent = progress.message ?? '';
    },
  };
}
