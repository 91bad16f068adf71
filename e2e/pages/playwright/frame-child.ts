// The same-origin iframe of framed.html: registers its own tool, which doubles a number.
import { install } from '../../../packages/polyfill/src/index.js';

const { toolManager } = install();

await toolManager.register({
  name: 'frame.double',
  naturalLanguageProperties: { description: 'Doubles a number, in the child frame.' },
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  execute: (input: unknown) => ({ doubled: (input as { n: number }).n * 2, in: document.title }),
});

(document.getElementById('status') as HTMLElement).textContent = 'ready';
