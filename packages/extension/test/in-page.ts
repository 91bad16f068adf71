/**
 * The two content scripts started on a happy-dom window as the extension starts them: the
 * isolated relay (given its port to the background) and the MAIN-world reader, through the real
 * handoff. happy-dom lacks what the handoff needs, so the browser's parts stand in for it.
 */
import { expect } from 'vitest';
import { until } from '../../../test-support/wait.js';
import type { RuntimePortLike } from '../src/channel/runtime-port.js';
import { startMainWorldReader } from '../src/main-world/reader.js';
import type { RelayState } from '../src/relay/relay.js';
import { startRelay } from '../src/relay/relay.js';

export async function startInPage(
  win: globalThis.Window,
  connect: () => RuntimePortLike,
): Promise<RelayState> {
  const origin = win.location.origin;
  // happy-dom has no MessageChannel: Node's stands in (the page's own, captured by the reader).
  (win as any).MessageChannel = MessageChannel;
  // Nor a postMessage that transfers ports: the browser's, as a queued MessageEvent.
  (win as any).postMessage = (data: unknown, targetOrigin: string, ports: MessagePort[]) => {
    expect(targetOrigin).toBe(origin);
    // Semantic, not a wait: window.postMessage queues a task to dispatch the event.
    setTimeout(() =>
      win.dispatchEvent(
        new (win as any).MessageEvent('message', { data, origin, source: win, ports }),
      ),
    );
  };
  const state = startRelay({ win, connect });
  startMainWorldReader(win);
  await until(() => state.accepted, 'the relay accepted the handoff');
  return state;
}
