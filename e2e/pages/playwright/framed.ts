// The top page of @toolwire/playwright's frame tests (e2e/playwright-helper.e2e.ts): one tool
// of its own, and a same-origin iframe (frame-child.html) that registers another.
import { install } from '../../../packages/polyfill/src/index.js';

const { toolManager } = install();

await toolManager.register({
  name: 'top.title',
  naturalLanguageProperties: { description: "The top page's title." },
  execute: () => document.title,
});

(document.getElementById('status') as HTMLElement).textContent = 'ready';
