// A parent that installs the polyfill only after its frame has loaded (a late bundle): the
// frame's hello went out while nobody listened. `?early` installs at once, the usual order.
import { install } from '../../../packages/polyfill/src/index.js';

const child = document.getElementById('child') as HTMLIFrameElement;
const childReady = () => child.contentDocument?.getElementById('status')?.textContent === 'ready';

// Every hello that reaches this window once the polyfill listens, counted (the e2e test reads
// it); one that arrives before is the hello that went to nobody.
let listening = false;
(window as any).hellos = 0;
window.addEventListener('message', (event) => {
  if (listening && event.data?.tag === 'toolwire.frames/1' && event.data.kind === 'hello')
    (window as any).hellos++;
});

if (!new URLSearchParams(location.search).has('early')) {
  // The frame has run its script (and said hello) before we listen.
  // Polls for the frame's own "ready" (its module script ran), not a delay: a frame never
  // ready keeps the page at "loading" and the test fails.
  while (!childReady()) await new Promise((resolve) => setTimeout(resolve, 10));
  // The frame posted its hello before it was ready, but the message may not have been
  // dispatched yet: a message we post ourselves now is dispatched after it (one task source,
  // one event loop), so once ours arrives the frame's hello has gone by, to nobody.
  await new Promise<void>((resolve) => {
    const token = Math.random();
    const passed = (event: MessageEvent) => {
      if (event.data?.lateParentBarrier !== token) return;
      window.removeEventListener('message', passed);
      resolve();
    };
    window.addEventListener('message', passed);
    window.postMessage({ lateParentBarrier: token }, '*');
  });
  (window as any).childWasFirst = true;
}
listening = true;
install();
(document.getElementById('status') as HTMLElement).textContent = 'ready';
