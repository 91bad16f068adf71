import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';

/** Renders the app under StrictMode: each effect mounts, unmounts and mounts again. */
export function render(): void {
  const container = document.getElementById('root');
  if (!container) throw new Error('The page has no #root.');
  createRoot(container).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
