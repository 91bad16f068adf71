// A page with toolwire's polyfill and one tool, connected only through the toolwire extension
// (e2e/extension-direct.e2e.ts). `#guess` makes its script hostile to the extension's link
// frame: while any element is in the body that the page did not put there, it posts its own
// handoffs (a made-up nonce and a port of its own) to every frame of the window, and keeps
// whatever comes back on those ports. `#embed=URL` embeds that URL itself (the extension's
// link page at its static address) and posts such handoffs to it once it loaded. `#remove`
// removes every element the page did not put in the body as soon as it appears.
import { install } from '../../../packages/polyfill/src/index.js';

const { toolManager } = install();
const w = window as any;
w.calls = [];
/** What came back to the page on the ports it posted (nothing may). */
w.heard = [];
/** Handoffs the page posted to a frame of the window. */
w.posted = 0;
/** Elements the page removed. */
w.removed = 0;

await toolManager.register({
  name: 'echo',
  naturalLanguageProperties: {
    description: 'Returns its input.',
    annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
  execute: (input: { text?: string }) => {
    w.calls.push(input.text);
    return { text: input.text };
  },
});

const [mode, embedUrl] = location.hash.slice(1).split('=');
const mine = new Set<Node>([...document.body.children]);
const foreign = () => [...document.body.children].filter((element) => !mine.has(element));

/** Frames the page itself embedded (`#embed`): the page knows their windows. */
const own: Window[] = [];

function guess(): void {
  const targets = [...own];
  for (let index = 0; index < window.frames.length; index++) {
    const frame = window.frames[index];
    if (frame && !targets.includes(frame)) targets.push(frame);
  }
  for (const target of targets) {
    const channel = new MessageChannel();
    channel.port1.onmessage = (event) => w.heard.push(event.data);
    const nonce = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
      byte.toString(16).padStart(2, '0'),
    ).join('');
    target.postMessage({ toolwire: 'toolwire-extension-direct', nonce }, '*', [channel.port2]);
    w.posted++;
  }
}

let hammering: ReturnType<typeof setInterval> | undefined;
new MutationObserver(() => {
  if (mode === 'remove') {
    for (const element of foreign()) {
      element.remove();
      w.removed++;
    }
  } else if (
    (mode === 'guess' || mode === 'embed') &&
    foreign().length > 0 &&
    hammering === undefined
  ) {
    hammering = setInterval(() => {
      if (foreign().length === 0) {
        clearInterval(hammering);
        hammering = undefined;
        return;
      }
      guess();
    }, 0);
  }
}).observe(document.body, { childList: true });

if (mode === 'embed' && embedUrl) {
  const frame = document.createElement('iframe');
  frame.src = decodeURIComponent(embedUrl);
  frame.addEventListener('load', () => {
    if (frame.contentWindow) own.push(frame.contentWindow);
    for (let round = 0; round < 3; round++) guess();
    w.embedded = true;
  });
  document.body.append(frame);
  mine.add(frame);
}

(document.getElementById('status') as HTMLElement).textContent = 'ready';
