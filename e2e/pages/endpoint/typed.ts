// A page whose tool is written with defineTool and a zod schema (issue 15, e2e/typed-tools).
// Fragment: the ws URL of a test host; without one, the page only registers.
import * as z from 'zod';
import { connect } from '../../../packages/endpoint/src/index.js';
import { defineTool, install } from '../../../packages/polyfill/src/index.js';
import '../../../packages/polyfill/src/global.js';

install();

await toolManager.register(
  defineTool({
    name: 'order.place',
    naturalLanguageProperties: {
      description: 'Places an order.',
      annotations: { readOnlyHint: true },
    },
    inputSchema: z.object({
      sku: z.string(),
      qty: z.number().int().min(1).default(1),
      by: z.iso.datetime().transform((text) => new Date(text)),
    }),
    outputSchema: z.object({ id: z.string(), day: z.number() }),
    execute: ({ sku, qty, by }) => ({ id: `${sku}x${qty}`, day: by.getUTCDate() }),
  }),
);
(window as unknown as { typedReady: boolean }).typedReady = true;

const url = decodeURIComponent(location.hash.slice(1));
if (url) connect({ url, guard: 'read-only' });
