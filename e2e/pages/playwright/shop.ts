// A small shop page for @toolwire/playwright's tests (e2e/playwright-helper.e2e.ts and the
// README example): tools registered through the polyfill's toolManager and through
// document.modelContext (the browser's own when native WebMCP is on, else the polyfill's).
import { install } from '../../../packages/polyfill/src/index.js';

const native = (document as unknown as { modelContext?: unknown }).modelContext !== undefined;
const { toolManager } = install();
let items = 0;

await toolManager.register({
  name: 'cart.add',
  naturalLanguageProperties: {
    description: 'Adds a product to the cart.',
    annotations: { consequentialHint: true },
  },
  inputSchema: {
    type: 'object',
    properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } },
    required: ['sku'],
  },
  execute: (input: unknown) => {
    const { sku, qty = 1 } = input as { sku: string; qty?: number };
    if (sku === 'SOLD-OUT') throw new Error(`${sku} is sold out`);
    items += qty;
    return { sku, qty, items };
  },
});

await toolManager.register({
  name: 'cart.count',
  naturalLanguageProperties: {
    description: 'How many items the cart holds.',
    annotations: { readOnlyHint: true },
  },
  execute: () => items,
});

await toolManager.register({
  name: 'cart.clear',
  naturalLanguageProperties: { description: 'Empties the cart.' },
  execute: () => {
    items = 0;
  },
});

await toolManager.register({
  name: 'cart.label',
  naturalLanguageProperties: { description: 'The cart as one line of text.' },
  execute: () => `${items} items`,
});

// No naturalLanguageProperties: the page's own, never listed for agents.
await toolManager.register({ name: 'cart.debug', execute: () => ({ items }) });

// Through the spec's API, as a page written for native WebMCP would.
const modelContext = (
  document as unknown as { modelContext: { registerTool(tool: object): Promise<void> } }
).modelContext;
await modelContext.registerTool({
  name: 'page.heading',
  description: 'The page heading.',
  execute: () => ({ heading: document.title }),
});

Object.assign(window, { shopInfo: { native } });
(document.getElementById('status') as HTMLElement).textContent = 'ready';
