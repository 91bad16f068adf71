/**
 * The whole way from a host's call to a tab's tool, in one process: the bridge tool that
 * `tabCatalog` serves, the background's `tabTools` client, the relay and the MAIN-world reader
 * on a happy-dom page running toolwire's polyfill. Only `chrome` (its runtime ports) is a
 * stand-in. A host's cancel (the tool context's signal) must reach the page's tool, and the
 * tool's progress must reach the host (the context's reportProgress).
 */
import { install } from '@toolwire/polyfill';
import type { ReportProgress, ToolContext } from '@toolwire/protocol';
import { noProgress } from '@toolwire/protocol';
import { Window } from 'happy-dom';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { latch, until } from '../../../../test-support/wait.js';
import { tabCatalog } from '../../app/connect/tab-catalog.js';
import type { RuntimePortLike } from '../../src/channel/runtime-port.js';
import { startInPage } from '../in-page.js';

type Listener<T extends unknown[]> = (...args: T) => void;

/** One end of a `chrome.runtime` port pair: messages cross as copies, in a later microtask. */
class LinkedPort implements RuntimePortLike {
  readonly name = 'toolwire-relay';
  other: LinkedPort | undefined;
  #message: Listener<[unknown]>[] = [];
  #disconnect: Listener<[]>[] = [];
  constructor(readonly sender?: object) {}
  postMessage(message: unknown): void {
    const copy = structuredClone(message);
    const other = this.other;
    queueMicrotask(() => other?.deliver(copy));
  }
  disconnect(): void {
    const other = this.other;
    this.other = undefined;
    if (other) other.other = undefined;
    queueMicrotask(() => other?.dropped());
  }
  onMessage = { addListener: (listener: Listener<[unknown]>) => this.#message.push(listener) };
  onDisconnect = { addListener: (listener: Listener<[]>) => this.#disconnect.push(listener) };
  deliver(message: unknown): void {
    for (const listener of this.#message) listener(message);
  }
  dropped(): void {
    for (const listener of this.#disconnect) listener();
  }
}

const ORIGIN = 'https://shop.example';
const TAB = 11;
const connectListeners: Listener<[LinkedPort]>[] = [];
(globalThis as any).chrome = {
  runtime: {
    id: 'ext',
    onConnect: {
      addListener: (listener: Listener<[LinkedPort]>) => connectListeners.push(listener),
    },
  },
  tabs: { get: async () => ({}), onRemoved: { addListener: () => {} } },
};

let tabTools: typeof import('../../src/background/tab-tools.js').tabTools;
beforeAll(async () => {
  ({ tabTools } = await import('../../src/background/tab-tools.js'));
  const { listenForRelays } = await import('../../src/background/relays.js');
  listenForRelays();
});

const windows: Window[] = [];
afterEach(async () => {
  for (const win of windows.splice(0)) await win.happyDOM.close();
});

/** A page at ORIGIN with the polyfill, its relay connected to the background. */
async function openPage() {
  const happy = new Window({ url: `${ORIGIN}/cart` });
  windows.push(happy);
  const win = happy as unknown as globalThis.Window;
  const { toolManager } = install({ window: win as never });
  await startInPage(win, () => {
    const relayEnd = new LinkedPort();
    const backgroundEnd = new LinkedPort({
      id: 'ext',
      frameId: 0,
      url: `${ORIGIN}/cart`,
      tab: { id: TAB, title: 'Cart' },
    });
    relayEnd.other = backgroundEnd;
    backgroundEnd.other = relayEnd;
    for (const listener of connectListeners) listener(backgroundEnd);
    return relayEnd;
  });
  return toolManager;
}

const context = (signal: AbortSignal, reportProgress = noProgress): ToolContext => ({
  requestId: 'r',
  sessionId: null,
  callId: null,
  toolId: 't',
  signal,
  reportProgress,
});

describe("a host's call through the extension to the tab's tool", () => {
  it("brings the page tool's progress to the host, and aborts its signal when the host cancels", async () => {
    const toolManager = await openPage();
    const started = latch();
    const aborted = latch<unknown>();
    await toolManager.register({
      name: 'cart.total',
      naturalLanguageProperties: { description: 'Adds the cart up.' },
      execute: () => ({ total: 12 }),
    });
    await toolManager.register({
      name: 'cart.sync',
      naturalLanguageProperties: { description: 'Syncs the cart until cancelled.' },
      execute: (
        _input: unknown,
        { signal, reportProgress }: { signal: AbortSignal; reportProgress: ReportProgress },
      ) => {
        reportProgress(1, 2, 'half synced');
        started.open();
        return new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            aborted.open(signal.reason);
            reject(signal.reason);
          }),
        );
      },
    });
    const tools = await tabCatalog(tabTools(TAB)).read();
    const tool = (id: string) => tools.find((t) => t.definition.id === id);
    expect(tools.map((t) => t.definition.id).sort()).toEqual(['cart.sync', 'cart.total']);

    // The honest path first: a call through every hop answers.
    expect(await tool('cart.total')?.execute({}, context(new AbortController().signal))).toEqual({
      total: 12,
    });

    const controller = new AbortController();
    const reports: unknown[][] = [];
    const running = tool('cart.sync')?.execute(
      {},
      context(controller.signal, (...report) => reports.push(report)),
    );
    await started.wait;
    // The tool's report crossed the same hops the other way.
    await until(() => reports.length === 1, 'the progress report');
    expect(reports).toEqual([[1, 2, 'half synced']]);
    expect(aborted.isOpen).toBe(false);
    controller.abort();
    // The page's tool sees its own signal abort: the cancel crossed the background, the relay
    // and the private channel into the MAIN world.
    expect(await aborted.wait).toMatchObject({ name: 'AbortError' });
    expect(await running).toMatchObject({ code: 'tool_call_cancelled', retryable: false });
  });
});
