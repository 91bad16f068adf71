/**
 * The built isolated-world content script (`dist/content/relay.js`): starts the relay, once a
 * document. The extension may inject it again into a tab that was open before it was installed
 * (`chrome.scripting.executeScript`): the mark, in this extension's isolated world (no page
 * script sees it), keeps that from starting a second relay where the manifest's already runs.
 */
import { startRelay } from '../relay/relay.js';

const mark = globalThis as { toolwireRelayStarted?: boolean };
if (!mark.toolwireRelayStarted) {
  mark.toolwireRelayStarted = true;
  // The extension's tab session (injected on Connect, same isolated world) asks through it.
  (globalThis as { toolwireRelayLocal?: unknown }).toolwireRelayLocal = startRelay().local;
}
