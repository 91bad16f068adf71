/**
 * Tabs opened before the extension was installed (or reloaded) never ran its content scripts:
 * they have no relay. The first time the panel watches such a tab, the background injects the
 * two content scripts with `chrome.scripting.executeScript`, into each frame that lacks a relay
 * (the relay in the extension's isolated world, then the reader in the page's MAIN world), and
 * the tab's tools are read without a reload.
 *
 * A reader injected this late runs after the page's scripts, not before them: the built-ins it
 * takes (`MessageChannel`, `postMessage`, `crypto`, the `MessageEvent` getter) may be the
 * page's by then, and a page listener added earlier may see the handoff. What the page can gain
 * is what it has anyway, its own tools' word; the relay's checks, the background's frame
 * addressing and the browser-given frame origins do not depend on the reader running first.
 */

/** Whether the injection ran; `message` says why not (chrome:// pages, the Web Store...). */
export type InjectOutcome = { ok: true; frames: number } | { ok: false; message: string };

const NOT_SCRIPTABLE =
  'The browser does not let extensions read this page (chrome:// pages, the Web Store, other extensions’ pages).';

/** The frames of `tabId` with no relay yet, then the two content scripts injected into them. */
export async function injectRelays(tabId: number): Promise<InjectOutcome> {
  try {
    const probes = await chrome.scripting.executeScript({
      target: { tabId, allFrames: true },
      func: () => (globalThis as { toolwireRelayStarted?: boolean }).toolwireRelayStarted === true,
    });
    const frameIds = probes.filter((probe) => probe.result !== true).map((probe) => probe.frameId);
    if (frameIds.length === 0) return { ok: true, frames: 0 };
    // The relay first: its handoff listener must be there when the reader posts.
    await chrome.scripting.executeScript({
      target: { tabId, frameIds },
      files: ['content/relay.js'],
    });
    await chrome.scripting.executeScript({
      target: { tabId, frameIds },
      files: ['content/main-world.js'],
      world: 'MAIN',
    });
    return { ok: true, frames: frameIds.length };
  } catch {
    return { ok: false, message: NOT_SCRIPTABLE };
  }
}
