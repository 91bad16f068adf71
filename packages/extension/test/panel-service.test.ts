/**
 * The background's service to a side panel (app/panel-service.ts): a panel's call runs with its
 * progress reports sent to the panel, the panel's Cancel cancels it, and a panel that goes
 * cancels what it left running. Requests that are not well formed are ignored.
 */
import { describe, expect, it } from 'vitest';
import { latch, until } from '../../../test-support/wait.js';
import type { PanelEvent } from '../app/panel/messages.js';
import type { PanelPort } from '../app/panel-service.js';
import { servePanel } from '../app/panel-service.js';
import type { TabCallOptions, TabCallOutcome } from '../src/types.js';
import { FakeTabClient, tabTool } from './connect/fake-client.js';

class FakePanelPort implements PanelPort {
  events: PanelEvent[] = [];
  #message: ((message: unknown) => void)[] = [];
  #disconnect: (() => void)[] = [];
  postMessage(event: PanelEvent): void {
    this.events.push(event);
  }
  onMessage = {
    addListener: (listener: (message: unknown) => void) => this.#message.push(listener),
  };
  onDisconnect = { addListener: (listener: () => void) => this.#disconnect.push(listener) };
  /** The panel sends a request. */
  send(message: unknown): void {
    for (const listener of this.#message) listener(message);
  }
  /** The panel closes. */
  close(): void {
    for (const listener of this.#disconnect) listener();
  }
  outcome(id: number): TabCallOutcome | undefined {
    for (const event of this.events)
      if (event.type === 'outcome' && event.id === id) return event.outcome;
    return undefined;
  }
}

/** A tab whose `slow` tool reports as the test says and runs until the caller cancels it. */
function slowTab() {
  const client = new FakeTabClient([tabTool('slow'), tabTool('quick')]);
  const started = latch<TabCallOptions>();
  client.answers.set('quick', () => ({ ok: true, result: 'quick' }));
  client.answers.set('slow', (_args, options) => {
    started.open(options);
    return new Promise<TabCallOutcome>((resolve) =>
      options.signal?.addEventListener('abort', () =>
        resolve({
          ok: false,
          error: { code: 'tool_call_cancelled', message: 'The caller cancelled the call.' },
        }),
      ),
    );
  });
  const port = new FakePanelPort();
  servePanel(port, () => client);
  port.send({ op: 'watch', tabId: 7 });
  return { client, port, started };
}

describe('the panel service', () => {
  it("sends a call's progress to the panel, and cancels the call on the panel's Cancel", async () => {
    const { port, started } = slowTab();
    // Honest path first: a call that answers.
    port.send({ op: 'call', id: 1, tabId: 7, name: 'quick', args: {} });
    await until(() => port.outcome(1), 'the quick answer');
    expect(port.outcome(1)).toEqual({ ok: true, result: 'quick' });

    port.send({ op: 'call', id: 2, tabId: 7, name: 'slow', args: {} });
    const options = await started.wait;
    options.onProgress?.({ progress: 1, total: 3, message: 'reading' });
    expect(port.events.filter((event) => event.type === 'progress')).toEqual([
      { type: 'progress', id: 2, progress: { progress: 1, total: 3, message: 'reading' } },
    ]);
    // A cancel of a call that is not running (answered, or never sent) changes nothing.
    port.send({ op: 'cancel', id: 1 });
    port.send({ op: 'cancel', id: 42 });
    expect(options.signal?.aborted).toBe(false);
    port.send({ op: 'cancel', id: 2 });
    expect(options.signal?.aborted).toBe(true);
    await until(() => port.outcome(2), 'the cancelled outcome');
    expect(port.outcome(2)).toMatchObject({ ok: false, error: { code: 'tool_call_cancelled' } });
    // Once answered, the call's reports no longer reach the panel.
    options.onProgress?.({ progress: 2 });
    expect(port.events.filter((event) => event.type === 'progress')).toHaveLength(1);
  });

  it('cancels the calls a panel left running when it goes', async () => {
    const { port, started, client } = slowTab();
    port.send({ op: 'call', id: 1, tabId: 7, name: 'slow', args: {} });
    const options = await started.wait;
    expect(options.signal?.aborted).toBe(false);
    port.close();
    expect(options.signal?.aborted).toBe(true);
    expect(client.closed).toBe(true);
  });

  it('ignores requests that are not well formed', async () => {
    const { port, client } = slowTab();
    for (const junk of [
      null,
      'call',
      { op: 'call', id: 'x', tabId: 7, name: 'quick', args: {} },
      { op: 'call', id: 3, tabId: 7, name: 5, args: {} },
      { op: 'call', id: 4, tabId: 8, name: 'quick', args: {} },
      { op: 'cancel', id: 'all' },
      { op: 'eval', id: 5 },
    ])
      port.send(junk);
    // The honest call after them is the first the tab sees.
    port.send({ op: 'call', id: 6, tabId: 7, name: 'quick', args: {} });
    await until(() => port.outcome(6), 'the honest answer');
    expect(client.calls.map((call) => call.name)).toEqual(['quick']);
    expect(port.events.filter((event) => event.type === 'outcome')).toHaveLength(1);
  });

  it('injects the relays of a tab before reading it, and says in one line where it may not', async () => {
    const client = new FakeTabClient([tabTool('quick')]);
    const injected: number[] = [];
    const made: number[] = [];
    const port = new FakePanelPort();
    servePanel(
      port,
      (tabId) => {
        made.push(tabId);
        return client;
      },
      async (tabId) => {
        injected.push(tabId);
        return tabId === 9
          ? { ok: false, message: 'The browser does not let extensions read this page.' }
          : { ok: true, frames: 2 };
      },
    );
    // A web page: injected, then read.
    port.send({ op: 'watch', tabId: 7 });
    await until(() => port.events.some((event) => event.type === 'tools'), 'the tools');
    expect([injected, made]).toEqual([[7], [7]]);
    // A page the browser keeps extensions out of: no client, one line.
    port.send({ op: 'watch', tabId: 9 });
    await until(() => port.events.some((event) => event.type === 'error'), 'the refusal');
    expect(made).toEqual([7]);
    expect(port.events.filter((event) => event.type === 'error')).toEqual([
      {
        type: 'error',
        tabId: 9,
        code: 'page_not_scriptable',
        message: 'The browser does not let extensions read this page.',
      },
    ]);
  });
});
