/**
 * The isolated relay's checks (src/relay/relay.ts): one handoff only, from this window and
 * origin with one port; requests carry the nonce and fresh ids; only answers to issued ids
 * pass, once, rebuilt by the sanitizer. Each hostile case follows the honest one.
 */
import { Window } from 'happy-dom';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { HANDOFF_TAG } from '../src/channel/messages.js';
import type { RuntimePortLike } from '../src/channel/runtime-port.js';
import { MAX_PROGRESS_MESSAGE } from '../src/channel/sanitize.js';
import { startRelay } from '../src/relay/relay.js';

const NONCE = '0123456789abcdef0123456789abcdef';

class FakeBackground implements RuntimePortLike {
  readonly name = 'toolwire-relay';
  sent: unknown[] = [];
  #listeners: Array<(message: unknown) => void> = [];
  postMessage(message: unknown): void {
    this.sent.push(message);
  }
  disconnect(): void {}
  onMessage = {
    addListener: (listener: (message: unknown) => void) => this.#listeners.push(listener),
  };
  onDisconnect = { addListener: () => {} };
  request(message: unknown): void {
    for (const listener of this.#listeners) listener(message);
  }
}

const channels: MessageChannel[] = [];
const windows: Window[] = [];
afterEach(async () => {
  for (const win of windows.splice(0)) await win.happyDOM.close();
  for (const channel of channels) {
    channel.port1.close();
    channel.port2.close();
  }
  channels.length = 0;
});

function setup() {
  // A fresh window per case: each relay listens on its own.
  const happy = new Window({ url: 'http://localhost:5197/page' });
  windows.push(happy);
  const win = happy as unknown as globalThis.Window;
  const backgrounds: FakeBackground[] = [];
  const state = startRelay({
    win,
    connect: () => {
      const port = new FakeBackground();
      backgrounds.push(port);
      return port;
    },
  });
  const handoff = (
    init: Partial<MessageEventInit> = {},
    data: unknown = { toolwire: HANDOFF_TAG, nonce: NONCE },
  ) => {
    const channel = new MessageChannel();
    channels.push(channel);
    const event = new (happy as unknown as typeof globalThis).MessageEvent('message', {
      data,
      origin: 'http://localhost:5197',
      source: win as unknown as MessageEventSource,
      ports: [channel.port2],
      ...init,
    });
    win.dispatchEvent(event);
    return channel.port1;
  };
  return { state, backgrounds, handoff, win };
}

/** The next message on a port. */
function next(port: MessagePort): Promise<any> {
  return new Promise((resolve) => {
    port.onmessage = (event) => resolve(event.data);
  });
}

/** The relay has passed a change notice on: everything sent on the port before it is handled. */
const changed = (background: FakeBackground) =>
  until(
    () => background.sent.some((message) => (message as { event?: string }).event === 'changed'),
    'the change notice reached the background',
  );

describe('the relay', () => {
  it('accepts the first handoff, forwards requests with the nonce and fresh ids, and answers once', async () => {
    const { state, backgrounds, handoff } = setup();
    const main = handoff();
    expect(state).toMatchObject({ accepted: true, refused: 0 });
    expect(backgrounds).toHaveLength(1);
    const background = backgrounds[0] as FakeBackground;

    const first = next(main);
    background.request({ id: 1, op: 'list' });
    const listRequest = await first;
    expect(listRequest).toMatchObject({ nonce: NONCE, op: 'list' });
    const second = next(main);
    background.request({ id: 2, op: 'call', name: 'cart.add', args: { qty: 1 } });
    const callRequest = await second;
    expect(callRequest).toMatchObject({
      nonce: NONCE,
      op: 'call',
      name: 'cart.add',
      args: { qty: 1 },
    });
    expect(callRequest.id).not.toBe(listRequest.id);

    main.postMessage({
      nonce: NONCE,
      id: listRequest.id,
      outcome: {
        ok: true,
        result: [
          {
            name: 'cart.add',
            description: 'Adds.',
            origin: 'http://localhost:1',
            source: 'toolwire',
          },
          // Not canonical: dropped.
          { name: 'evil', description: '', origin: 'http://LOCALHOST:1', source: 'toolwire' },
        ],
      },
    });
    main.postMessage({ nonce: NONCE, id: callRequest.id, outcome: { ok: true, result: { n: 1 } } });
    // The same id again: refused, not forwarded twice.
    main.postMessage({ nonce: NONCE, id: callRequest.id, outcome: { ok: true, result: { n: 2 } } });
    // Barrier: an honest notice after it on the same port.
    main.postMessage({ nonce: NONCE, event: 'changed' });
    await changed(background);
    expect(background.sent).toEqual([
      {
        id: 1,
        outcome: {
          ok: true,
          result: [
            {
              name: 'cart.add',
              description: 'Adds.',
              origin: 'http://localhost:1',
              source: 'toolwire',
            },
          ],
        },
      },
      { id: 2, outcome: { ok: true, result: { n: 1 } } },
      { event: 'changed' },
    ]);
    expect(state.refused).toBe(1);
  });

  it('refuses a second handoff, and hides every handoff from later listeners', async () => {
    const { state, backgrounds, handoff, win } = setup();
    const seen: unknown[] = [];
    const spy = (event: Event) => seen.push((event as MessageEvent).data);
    win.addEventListener('message', spy, true);
    const main = handoff();
    const forged = handoff({}, { toolwire: HANDOFF_TAG, nonce: 'f'.repeat(32) });
    // The end of the forged channel the relay was handed (and refused).
    const forgedEnd = (channels.at(-1) as MessageChannel).port2;
    expect(state).toMatchObject({ accepted: true, refused: 1 });
    expect(backgrounds).toHaveLength(1);
    expect(seen).toEqual([]);
    win.removeEventListener('message', spy, true);

    // Requests still go to the first port only, with the first nonce.
    const forgedGot: unknown[] = [];
    forged.onmessage = (event) => forgedGot.push(event.data);
    const request = next(main);
    backgrounds[0]?.request({ id: 7, op: 'list' });
    expect(await request).toMatchObject({ nonce: NONCE });
    // Barrier: a marker sent from the end the relay was handed arrives after anything the
    // relay sent on it.
    forgedEnd.postMessage('marker');
    await until(() => forgedGot.includes('marker'), 'the marker came through');
    expect(forgedGot).toEqual(['marker']);
  });

  it.each([
    ['another source', { source: null }],
    ['another origin', { origin: 'http://evil.example' }],
    ['no port', { ports: [] }],
  ])('refuses a handoff from %s', (_label, init) => {
    const { state, backgrounds, handoff } = setup();
    handoff(init as Partial<MessageEventInit>);
    expect(state).toMatchObject({ accepted: false, refused: 1 });
    expect(backgrounds).toHaveLength(0);
    // The honest one after it is still accepted.
    handoff();
    expect(state.accepted).toBe(true);
  });

  it('drops answers with a wrong nonce or an id it never issued, and junk from the background', async () => {
    const { state, backgrounds, handoff } = setup();
    const main = handoff();
    const background = backgrounds[0] as FakeBackground;
    const request = next(main);
    background.request({ id: 1, op: 'call', name: 't', args: {} });
    const { id } = await request;
    main.postMessage({ nonce: 'f'.repeat(32), id, outcome: { ok: true, result: 'forged' } });
    main.postMessage({ nonce: NONCE, id: `${id}0`, outcome: { ok: true, result: 'forged' } });
    background.request({ id: 'x', op: 'list' });
    background.request({ id: 2, op: 'eval' });
    // Honest answers after them on the same port: once the last is through, the forged ones
    // were handled (and must not show before the real one).
    main.postMessage({ nonce: NONCE, id, outcome: { ok: true, result: 'real' } });
    main.postMessage({ nonce: NONCE, event: 'changed' });
    await changed(background);
    expect(state.refused).toBe(2);
    expect(background.sent).toEqual([
      { id: 1, outcome: { ok: true, result: 'real' } },
      { event: 'changed' },
    ]);
  });

  it("takes a call's result as JSON text, parsed once; not JSON, not text, or a listing: refused", async () => {
    const { state, backgrounds, handoff } = setup();
    const main = handoff();
    const background = backgrounds[0] as FakeBackground;
    const ids: string[] = [];
    for (const message of [
      { id: 1, op: 'call', name: 't', args: {} },
      { id: 2, op: 'call', name: 't', args: {} },
      { id: 3, op: 'call', name: 't', args: {} },
      { id: 4, op: 'list' },
    ]) {
      const request = next(main);
      background.request(message);
      ids.push((await request).id);
    }
    // Honest first: the reader's text, parsed for the runtime port.
    main.postMessage({ nonce: NONCE, id: ids[0], resultJson: '{"n":1,"list":[true,null]}' });
    // A forged answer with the wrong nonce, as text: refused, the call stays pending.
    main.postMessage({ nonce: 'f'.repeat(32), id: ids[1], resultJson: '"forged"' });
    main.postMessage({ nonce: NONCE, id: ids[1], resultJson: '{"n":' });
    main.postMessage({ nonce: NONCE, id: ids[2], resultJson: { n: 1 } });
    main.postMessage({ nonce: NONCE, id: ids[3], resultJson: '[{"name":"x"}]' });
    // The same id again: refused.
    main.postMessage({ nonce: NONCE, id: ids[0], resultJson: '{"n":2}' });
    main.postMessage({ nonce: NONCE, event: 'changed' });
    await changed(background);
    const invalid = { ok: false, error: { code: 'response_invalid' } };
    expect(background.sent).toMatchObject([
      { id: 1, outcome: { ok: true, result: { n: 1, list: [true, null] } } },
      { id: 2, outcome: invalid },
      { id: 3, outcome: invalid },
      { id: 4, outcome: invalid },
      { event: 'changed' },
    ]);
    expect(state.refused).toBe(2);
  });

  it('passes a cancel on to the call it names, and only to a call it forwarded', async () => {
    const { backgrounds, handoff } = setup();
    const main = handoff();
    const background = backgrounds[0] as FakeBackground;
    const called = next(main);
    background.request({ id: 5, op: 'call', name: 'slow', args: {} });
    const { id } = await called;
    // Honest path: the background cancels its call 5; the MAIN world is told the relay's id.
    const aborted = next(main);
    background.request({ id: 5, op: 'abort' });
    expect(await aborted).toEqual({ nonce: NONCE, id, op: 'abort' });
    // A cancel of a call it never forwarded goes nowhere: the next message the MAIN world
    // gets is the list sent after it.
    const after = next(main);
    background.request({ id: 99, op: 'abort' });
    background.request({ id: 6, op: 'list' });
    expect(await after).toMatchObject({ nonce: NONCE, op: 'list' });
  });

  it('passes checked progress reports of a call that asked for them, before its answer', async () => {
    const { state, backgrounds, handoff } = setup();
    const main = handoff();
    const background = backgrounds[0] as FakeBackground;
    const asked = next(main);
    background.request({ id: 1, op: 'call', name: 'slow', args: {}, progress: true });
    const request = await asked;
    expect(request).toMatchObject({ op: 'call', name: 'slow', progress: true });
    const plain = next(main);
    background.request({ id: 2, op: 'call', name: 'quick', args: {} });
    const quiet = await plain;
    expect('progress' in quiet).toBe(false);
    const listed = next(main);
    background.request({ id: 3, op: 'list' });
    const list = await listed;

    const long = 'x'.repeat(MAX_PROGRESS_MESSAGE + 100);
    // The honest reports first: numbers that grow, a total, a message (clipped).
    main.postMessage({ nonce: NONCE, id: request.id, progress: { progress: 1, total: 4 } });
    main.postMessage({
      nonce: NONCE,
      id: request.id,
      progress: { progress: 2, total: 4, message: long, extra: '<b>' },
    });
    // The hostile ones: a number that does not grow, not a number, infinite; a report for a
    // call that did not ask, for a list, for an id never issued, with another nonce.
    main.postMessage({ nonce: NONCE, id: request.id, progress: { progress: 2 } });
    main.postMessage({ nonce: NONCE, id: request.id, progress: { progress: 1.5 } });
    main.postMessage({ nonce: NONCE, id: request.id, progress: { progress: '3' } });
    main.postMessage({ nonce: NONCE, id: request.id, progress: { progress: Infinity } });
    main.postMessage({ nonce: NONCE, id: request.id, progress: 3 });
    main.postMessage({ nonce: NONCE, id: quiet.id, progress: { progress: 1 } });
    main.postMessage({ nonce: NONCE, id: list.id, progress: { progress: 1 } });
    main.postMessage({ nonce: NONCE, id: `${request.id}0`, progress: { progress: 3 } });
    main.postMessage({ nonce: 'f'.repeat(32), id: request.id, progress: { progress: 3 } });
    // Fields that are not right are left out; the report itself passes.
    main.postMessage({
      nonce: NONCE,
      id: request.id,
      progress: { progress: 3, total: -1, message: { toString: 'x' } },
    });
    main.postMessage({ nonce: NONCE, id: request.id, outcome: { ok: true, result: 'done' } });
    // After the answer, a report has no call to belong to.
    main.postMessage({ nonce: NONCE, id: request.id, progress: { progress: 4 } });
    main.postMessage({ nonce: NONCE, event: 'changed' });
    await changed(background);
    expect(background.sent).toEqual([
      { id: 1, progress: { progress: 1, total: 4 } },
      {
        id: 1,
        progress: { progress: 2, total: 4, message: 'x'.repeat(MAX_PROGRESS_MESSAGE) },
      },
      { id: 1, progress: { progress: 3 } },
      { id: 1, outcome: { ok: true, result: 'done' } },
      { event: 'changed' },
    ]);
    expect(state.refused).toBe(10);
  });

  it('refuses a call whose progress flag is anything but true', async () => {
    const { backgrounds, handoff } = setup();
    const main = handoff();
    const background = backgrounds[0] as FakeBackground;
    const first = next(main);
    background.request({ id: 1, op: 'call', name: 'a', args: {}, progress: 'yes' });
    background.request({ id: 2, op: 'call', name: 'b', args: {}, progress: true });
    // The first message the MAIN world gets is the honest second call.
    expect(await first).toMatchObject({ op: 'call', name: 'b', progress: true });
  });
});
