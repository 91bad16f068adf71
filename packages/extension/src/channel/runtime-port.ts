/**
 * The little of `chrome.runtime.Port` this library uses, declared here so its published types
 * need no `@types/chrome`. A real Port satisfies it; tests pass fakes.
 */
export interface RuntimePortLike {
  readonly name: string;
  postMessage(message: unknown): void;
  disconnect(): void;
  onMessage: { addListener(listener: (message: unknown) => void): void };
  onDisconnect: { addListener(listener: () => void): void };
}

interface ChromeRuntimeLike {
  runtime: {
    id?: string;
    connect(info: { name: string }): RuntimePortLike;
    onMessage?: {
      addListener(listener: (message: unknown, sender: { id?: string }) => void): void;
    };
  };
}

/** What the background sends a tab's relay (`chrome.tabs.sendMessage`) to have it reconnect. */
export const RECONNECT_MESSAGE = 'toolwire-relay-reconnect';

/** `chrome.runtime.connect` of the extension context this runs in. */
export function connectRuntime(name: string): RuntimePortLike {
  const chromeApi = (globalThis as { chrome?: ChromeRuntimeLike }).chrome;
  if (!chromeApi?.runtime?.connect) throw new Error('toolwire: no chrome.runtime here.');
  return chromeApi.runtime.connect({ name });
}

/**
 * Calls `listener` when this extension's background asks the relay to connect again (after
 * its service worker was stopped, which closed every port). Nothing outside an extension.
 */
export function onReconnectRequest(listener: () => void): void {
  const runtime = (globalThis as { chrome?: ChromeRuntimeLike }).chrome?.runtime;
  runtime?.onMessage?.addListener((message, sender) => {
    if (message === RECONNECT_MESSAGE && sender.id === runtime.id) listener();
  });
}
