/**
 * The background's end of the direct port (src/background/relay-link.ts): offered once, then
 * requests go on the accepted `MessagePort` and answers come back on it, a call's result as
 * JSON text parsed and checked again. The hostile cases follow the honest one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RelayLink } from '../src/background/relay-link.js';
import { DIRECT_ACCEPTED } from '../src/channel/messages.js';
import type { RuntimePortLike } from '../src/channel/runtime-port.js';

class FakeRuntimePort implements RuntimePortLike {
  readonly name = 'toolwire-relay';
  sent: any[] = [];
  postMessage(message: unknown): void {
    this.sent.push(message);
  }
  disconnect(): void {}
  onMessage = { addListener: () => {} };
  onDisconnect = { addListener: () => {} };
}

const channels: MessageChannel[] = [];
afterEach(() => {
  for (const channel of channels.splice(0)) {
    channel.port1.close();
    channel.port2.close();
  }
});

const NONCE = '0123456789abcdef0123456789abcdef';
const TAB = {
  tabId: 7,
  title: 'Shop',
  url: 'https://shop.example/',
  origin: 'https://shop.example',
};

/** The next message the relay's end of the channel receives. */
function next(port: MessagePort): Promise<any> {
  return new Promise((resolve) => {
    port.onmessage = (event) => resolve(event.data);
  });
}

function setup() {
  const runtime = new FakeRuntimePort();
  const link = new RelayLink(runtime, TAB);
  const channel = new MessageChannel();
  channels.push(channel);
  let used = 0;
  link.whenUsed(() => {
    used++;
    link.offerDirect(NONCE, 'link.html');
  });
  return { runtime, link, relay: channel.port2, mine: channel.port1, used: () => used };
}

describe('the direct port', () => {
  it('is offered once before the first request; then requests and answers use it', async () => {
    const { runtime, link, relay, mine, used } = setup();
    const first = link.call('echo', { text: 'a' });
    // The offer went first, on the runtime port, then the request.
    expect(runtime.sent).toEqual([
      { direct: NONCE, page: 'link.html' },
      { id: 1, op: 'call', name: 'echo', args: { text: 'a' } },
    ]);
    runtime.sent.length = 0;
    // The relay answers the request that came on the runtime port there (the link reads both).
    const accepted = next(relay);
    link.attachDirect(mine);
    expect(await accepted).toBe(DIRECT_ACCEPTED);
    expect(link.direct).toBe(true);
    const request = next(relay);
    const second = link.call('echo', { text: 'b' });
    // On the direct port the input goes as JSON text (on the runtime port above, as a value).
    expect(await request).toEqual({ id: 2, op: 'call', name: 'echo', argsJson: '{"text":"b"}' });
    expect(runtime.sent).toEqual([]);
    relay.postMessage({ id: 2, resultJson: '{"text":"b"}' });
    expect(await second).toEqual({ ok: true, result: { text: 'b' } });
    // Only one offer, however many requests.
    expect(used()).toBe(1);
    link.end();
    expect(await first).toMatchObject({ ok: false, error: { code: 'tab_gone' } });
  });

  it('checks what arrives on it: JSON text only for a call, parsed; nothing for ids not asked', async () => {
    const { link, relay, mine } = setup();
    void link.list();
    const accepted = next(relay);
    link.attachDirect(mine);
    await accepted;
    // Honest first.
    let request = next(relay);
    const honest = link.call('echo', {});
    await request;
    relay.postMessage({ id: 2, resultJson: '[1,2]' });
    expect(await honest).toEqual({ ok: true, result: [1, 2] });
    // Not JSON.
    request = next(relay);
    const broken = link.call('echo', {});
    await request;
    relay.postMessage({ id: 3, resultJson: '{"text":' });
    expect(await broken).toMatchObject({ ok: false, error: { code: 'response_invalid' } });
    // A listing sent as JSON text is refused (a listing is rebuilt field by field).
    request = next(relay);
    const listing = link.list();
    await request;
    relay.postMessage({ id: 4, resultJson: '[{"name":"x"}]' });
    expect(await listing).toMatchObject({ ok: false, error: { code: 'response_invalid' } });
    // An answer to an id never asked, then the real one: only the real one counts.
    request = next(relay);
    const real = link.call('echo', {});
    await request;
    relay.postMessage({ id: 99, resultJson: '"forged"' });
    relay.postMessage({ id: 5, resultJson: '"real"' });
    expect(await real).toEqual({ ok: true, result: 'real' });
  });

  it('a second port is closed, and the port closes when the link ends', async () => {
    const { link, relay, mine } = setup();
    void link.list();
    const accepted = next(relay);
    link.attachDirect(mine);
    await accepted;
    const other = new MessageChannel();
    channels.push(other);
    const heard: unknown[] = [];
    other.port2.onmessage = (event) => heard.push(event.data);
    link.attachDirect(other.port1);
    // Requests still go on the first port.
    const request = next(relay);
    const call = link.call('echo', {});
    expect(await request).toMatchObject({ op: 'call' });
    expect(heard).toEqual([]);
    link.end();
    expect(await call).toMatchObject({ ok: false, error: { code: 'tab_gone' } });
    expect(link.direct).toBe(false);
    // An ended link offers nothing.
    expect(link.offerDirect(NONCE, 'link.html')).toBe(false);
  });
});
