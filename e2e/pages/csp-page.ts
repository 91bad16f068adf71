// The module build of the polyfill on a page whose CSP forbids eval.
import { canEval, install, loadValidator } from '../../packages/polyfill/src/index.js';

const { toolManager, tools } = install();
Object.assign(window, { toolwireTest: { canEval, loadValidator, toolManager, tools } });
(document.getElementById('status') as HTMLElement).textContent = 'ready';
