import { install } from '@toolwire/polyfill';
import { useTool } from '@toolwire/react';
import { useState } from 'react';
import { z } from 'zod';

install(); // or load polyfill.iife.js in a <script> before the app

// Agents read its JSON Schema: sku (required), qty (an integer >= 1, default 1).
const AddToCart = z.object({
  sku: z.string().min(1).describe('The product code, e.g. "A-1"'),
  qty: z.number().int().min(1).default(1),
});

export function Cart() {
  const [cart, setCart] = useState<Record<string, number>>({});
  const add = useTool({
    name: 'cart.add',
    naturalLanguageProperties: { description: 'Adds a product to the shopping cart.' },
    inputSchema: AddToCart,
    // Runs only with arguments the schema accepts; `cart` is the state on screen.
    execute: ({ sku, qty }) => {
      const next = { ...cart, [sku]: (cart[sku] ?? 0) + qty };
      setCart(next); // the page shows the agent's change at once
      return { sku, inCart: next[sku] };
    },
  });
  return (
    <section>
      <h2>Cart</h2>
      <ul>
        {Object.entries(cart).map(([sku, count]) => (
          <li key={sku}>
            {count} × {sku}
          </li>
        ))}
      </ul>
      {add.status === 'error' && <p role="alert">{add.error.message}</p>}
    </section>
  );
}
