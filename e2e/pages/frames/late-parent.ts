// A parent that installs the polyfill only after its frame has loaded (a late bundle): the
// frame's hello went out while nobody listened. `?early` installs at once, the usual order.
import { install } from '../../../packages/polyfill/src/index.js';

const child = document.getElementById('child') as HTMLIFrameElement;
const childReady = () => child.contentDocument?.getElementById('status')?.textContent === 'ready';

if (!new URLSearchParams(location.search).has('early')) {
  // The frame has run its script (and said hello) before we listen.
  // Polls for the frame's own "ready" (its module script ran), not a delay: a frame never
  // ready keeps the page at "loading" and the test fails.
  while (!childReady()) await new Promise((resolve) => setTimeout(resolve, 10));
  (window as any).childWasFirst = true;
}
// Every hello that reaches this window, counted (the e2e test reads it).
(window as any).hellos = 0;
window.addEventListener('message', (event) => {
  if (event.data?.tag === 'toolwire.frames/1' && event.data.kind === 'hello')
    (window as any).hellos++;
});
install();
(document.getElementById('status') as HTMLElement).textContent = 'ready';
