// A page with toolwire's polyfill and two tools, connected only through the toolwire extension
// (e2e/extension-tab-session.e2e.ts). From its first script on, it records everything its MAIN
// world can see that could carry a secret handed to the extension inside it: every `message`
// event on the window (data as JSON, capture phase, before anyone can stop it), every DOM
// mutation (nodes, attributes, text), and, on demand, the names and string values of its
// globals. `window.seen()` gives all of it as one text.
import { install } from '../../../packages/polyfill/src/index.js';

const w = window as any;
const seen: string[] = [];
const text = (value: unknown) => {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};
window.addEventListener('message', (event) => seen.push(`message ${text(event.data)}`), {
  capture: true,
});
new MutationObserver((records) => {
  for (const record of records) {
    seen.push(`mutation ${record.type} ${record.attributeName ?? ''} ${text(record.oldValue)}`);
    for (const node of record.addedNodes) {
      seen.push(`added ${node.nodeName} ${(node as Element).outerHTML ?? node.textContent}`);
    }
    if (record.type === 'attributes') {
      const target = record.target as Element;
      seen.push(`attribute ${target.getAttribute(record.attributeName ?? '')}`);
    }
  }
}).observe(document, {
  subtree: true,
  childList: true,
  attributes: true,
  attributeOldValue: true,
  characterData: true,
});
w.seen = () => {
  const globals = Object.getOwnPropertyNames(window).map((name) => {
    let value: unknown;
    try {
      value = (window as any)[name];
    } catch {
      value = undefined;
    }
    return `global ${name} ${typeof value === 'string' ? value : ''}`;
  });
  return [...seen, ...globals, document.documentElement.outerHTML].join('\n');
};

const { toolManager } = install();
w.calls = [];
await toolManager.register({
  name: 'echo',
  naturalLanguageProperties: {
    description: 'Returns its input.',
    annotations: { readOnlyHint: true },
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    },
  },
  execute: (input: { text: string }) => {
    w.calls.push(input.text);
    return { text: input.text };
  },
});
await toolManager.register({
  name: 'fail',
  naturalLanguageProperties: {
    description: 'Always throws.',
    annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: {} },
  },
  execute: () => {
    throw new Error('it failed on purpose');
  },
});
document.getElementById('status')?.replaceChildren('ready');
