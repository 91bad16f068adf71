// The cart component of packages/react/README.md (docs/react.md), as written there, in a page.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Cart } from './cart.js';

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <Cart />
  </StrictMode>,
);
