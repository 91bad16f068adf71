/**
 * One tool in the panel: its name, title, origin, source and policy, its description, the
 * form generated from its input schema (with a JSON editor to switch to), a Call button and
 * the last result. Every page-controlled string is set as text.
 */
import type { TabCallOutcome, TabTool } from '../../src/types.js';
import { buildForm, jsonEditor } from './form.js';
import { renderResult } from './result.js';

export type Caller = (name: string, args: unknown) => Promise<TabCallOutcome>;

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
    const outcome = await call(tool.name, args);
    run.disabled = false;
    output.replaceChildren(
      outcome.ok
        ? renderResult(doc, outcome.result)
        : text(doc, 'p', `${outcome.error.code}: ${outcome.error.message}`, 'error'),
    );
  });
  const actions = doc.createElement('div');
  actions.className = 'actions';
  actions.append(run, toggle);
  article.append(form.element, json.element, actions, output);
  return article;
}
