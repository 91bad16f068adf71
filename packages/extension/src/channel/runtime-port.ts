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
  runtime: { connect(info: { name: string }): RuntimePortLike };
}

/** `chrome.runtime.connect` of the extension context this runs in. */
export function connectRuntime(name: string): RuntimePortLike {
  const chromeApi = (globalThis as { chrome?: ChromeRuntimeLike }).chrome;
  if (!chromeApi?.runtime?.connect) throw new Error('toolwire: no chrome.runtime here.');
  return chromeApi.runtime.connect({ name });
}
