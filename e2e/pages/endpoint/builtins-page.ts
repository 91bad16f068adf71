// The built-in ui.* tools on a real form, behind a real bridge. The test drives them through
// `window.toolwireBuiltins.call`, the way a host's tool.call would arrive.

import { createBuiltinTools } from '../../../packages/endpoint/src/builtins/index.js';
import { pageValidator } from '../../../packages/endpoint/src/validator.js';
import { createToolBridge, decodePayload } from '../../../packages/protocol/src/index.js';

const builtins = createBuiltinTools({ document });
const bridge = createToolBridge({
  tools: () => builtins.tools,
  guard: 'full-access',
  validator: pageValidator(),
});

// What the page's own listeners saw, per field and event type: "name:input" -> 1.
const events: Record<string, number> = {};
for (const type of ['input', 'change', 'click']) {
  document.getElementById('signup')?.addEventListener(type, (event) => {
    const target = event.target as HTMLElement;
    const key = `${target.dataset.testid ?? target.localName}:${type}`;
    events[key] = (events[key] ?? 0) + 1;
  });
}

const form = document.getElementById('signup') as HTMLFormElement;
form.addEventListener('submit', (event) => {
  event.preventDefault();
  const field = (id: string) => document.getElementById(id) as HTMLInputElement;
  const rows: Array<[string, string]> = [
    ['name', field('name').value],
    ['email', field('email').value],
    ['plan', (document.getElementById('plan') as HTMLSelectElement).value],
    ['subscribe', field('subscribe').checked ? 'yes' : 'no'],
  ];
  const list = document.createElement('ul');
  list.setAttribute('aria-label', 'Submitted');
  for (const [key, value] of rows) {
    const item = document.createElement('li');
    item.dataset.testid = `submitted-${key}`;
    item.textContent = `${key}: ${value}`;
    list.append(item);
  }
  document.querySelector('[data-testid="result"]')?.replaceChildren(list);
});

let sequence = 0;
async function call(toolId: string, args: unknown = {}, after?: unknown) {
  const response = await bridge.handle({
    type: 'tool.call',
    id: `e2e-${++sequence}`,
    sessionId: 'e2e',
    sentAt: new Date().toISOString(),
    capability: 'tool.exec',
    payload: { toolId, arguments: args, ...(after ? { after } : {}) },
  });
  return { type: response?.type, payload: decodePayload(response?.envelope.payload) as any };
}

Object.assign(window, { toolwireBuiltins: { call, events } });
(document.getElementById('status') as HTMLElement).textContent = 'ready';
