/**
 * `startLinkPage()`, for an extension's link page: a hidden extension frame that a tab's relay
 * embeds for a moment to hand this extension's service worker a direct `MessagePort`. It passes on what a handoff
 * carries (the nonce and the one port) and nothing else; it answers nobody and holds no secret.
 * The page around it can post to it too: the worker takes a port only with a nonce it issued
 * for a live relay, which never reaches the page.
 */
import { isDirectHandoff } from '../channel/messages.js';

/** Passes direct-port handoffs from the page that embeds this frame to the service worker. */
export function startLinkPage(): void {
  addEventListener('message', (event) => {
    const port = event.ports[0];
    if (!isDirectHandoff(event.data) || event.ports.length !== 1 || !port) {
      for (const stray of event.ports) stray.close();
      return;
    }
    const { toolwire, nonce } = event.data;
    navigator.serviceWorker.ready.then(
      (registration) => {
        if (registration.active) registration.active.postMessage({ toolwire, nonce }, [port]);
        else port.close();
      },
      () => port.close(),
    );
  });
}
